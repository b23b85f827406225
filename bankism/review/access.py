"""Threads, loops and accesses: how the threads of a block index a shared array (``Access``).

Index functions are plain Python of the thread indices and loop variables; their source text names
them in messages.
"""

from __future__ import annotations

import ast
import functools
import inspect
import linecache
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from bankism.arch import (
    LANES,
    LANES_PER_MATRIX,
    MATRIX_OPS,
    MATRIX_ROW_BYTES,
    MAX_THREADS_PER_BLOCK,
    OPS,
    WIDTHS,
)
from bankism.errors import BankismError
from bankism.review.layout import SharedArray, all_indices


@dataclass(frozen=True)
class Threads:
    """Thread indices of every warp of a block, arrays of shape (warps, 32), x fastest as in CUDA."""

    x: np.ndarray
    y: np.ndarray
    z: np.ndarray
    linear: np.ndarray
    lane: np.ndarray
    warp: np.ndarray
    valid: np.ndarray
    block: tuple[int, int, int]

    @property
    def warps(self) -> int:
        return int(self.x.shape[0])


def block_dims(block: object) -> tuple[int, int, int]:
    """``block`` as (x, y, z): an int or a tuple of one to three positive ints."""
    try:
        dims = (block,) if isinstance(block, int | np.integer) else tuple(block)  # type: ignore[arg-type]
        wrong = not 1 <= len(dims) <= 3 or any(
            isinstance(d, bool | str | bytes) or int(d) != d or d < 1 for d in dims)
    except (TypeError, ValueError, OverflowError):
        wrong = True
    if wrong:
        raise BankismError(f"block={block!r} must be 1 to 3 positive integers, as in <<<grid, block>>>")
    dims = tuple(int(d) for d in dims) + (1,) * (3 - len(dims))
    if math.prod(dims) > MAX_THREADS_PER_BLOCK:
        raise BankismError(
            f"block={block!r} has {math.prod(dims)} threads; CUDA allows {MAX_THREADS_PER_BLOCK}"
        )
    return dims


@functools.lru_cache(maxsize=32)
def threads(block: tuple[int, int, int]) -> Threads:
    """The ``Threads`` of a block; lanes past the last thread are marked invalid (index 0)."""
    bx, by, bz = block
    count = bx * by * bz
    warps = -(-count // LANES)
    linear = np.arange(warps * LANES, dtype=np.int64).reshape(warps, LANES)
    valid = linear < count
    inside = np.where(valid, linear, 0)
    return Threads(
        x=inside % bx, y=(inside // bx) % by, z=inside // (bx * by), linear=inside,
        lane=linear % LANES, warp=linear // LANES, valid=valid, block=block,
    )


def loop_parameters(function: Callable, loops: Mapping[str, Iterable], role: str, label: str) -> list[str]:
    """Names of the loop variables ``function`` takes after the thread argument."""
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return []
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return list(loops)
    names = []
    for parameter in parameters[1:]:
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            continue
        if parameter.name in loops:
            names.append(parameter.name)
        elif parameter.default is inspect.Parameter.empty:
            given = ", ".join(loops) or "none"
            raise BankismError(
                f"{label}: the {role} function takes loop variable {parameter.name!r}; pass "
                f"loops={{{parameter.name!r}: range(...)}} (loops given: {given})"
            )
    return names


@dataclass(frozen=True)
class RecordNames(Sequence):
    """Names "record 0", "record 1", ... made on demand (a trace may hold millions)."""

    count: int
    prefix: str = "record "

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self.count))]
        if not -self.count <= i < self.count:
            raise IndexError(i)
        return f"{self.prefix}{i % self.count}"


@dataclass(frozen=True)
class _Recorded:
    """Indices, active lanes and place names of warp-instructions that were given, not computed."""

    indices: tuple[np.ndarray, ...]
    active: np.ndarray
    places: Sequence[str]


@dataclass(frozen=True, eq=False)
class Access:
    """One shared-memory access site: which element each thread touches, and how.

    ``index(t, **loop_values)`` returns the element's indices (a tuple, one per dimension)
    from ``t.x``/``t.y``/``t.z`` (also ``t.linear``, ``t.lane``, ``t.warp``): arrays with one
    row per warp and one column per lane. Loop variables arrive as keyword arguments named
    as in ``loops=`` and broadcast against the thread arrays. ``vector`` elements per lane
    (float2: 2, float4: 4, 8 halves in a uint4: 8); matrix ops move 16-byte rows whose
    starts the first ``8 * matrices`` lanes give. ``mask(t, **loop_values)`` gives the active lanes.
    """

    array: SharedArray
    index: Callable | None
    op: str = "load"
    vector: int | None = None
    matrices: int | None = None
    mask: Callable | None = None
    name: str | None = None
    recorded: _Recorded | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.array, SharedArray):
            raise BankismError(f"Access needs a SharedArray; got {type(self.array).__name__}")
        if self.op not in OPS:
            raise BankismError(f"unknown op {self.op!r}: expected one of {', '.join(OPS)}")
        if self.recorded is None and not callable(self.index):
            raise BankismError(f"access to {self.array.name}: index must be a function of the threads")
        if self.mask is not None and not callable(self.mask):
            raise BankismError(f"access to {self.array.name}: mask must be a function of the threads")
        if self.op in MATRIX_OPS:
            if self.matrices not in (1, 2, 4):
                raise BankismError(
                    f"{self.op} of {self.array.name} needs matrices=1, 2 or 4; got {self.matrices!r}"
                )
            row = MATRIX_ROW_BYTES
            whole = row // self.array.itemsize if row % self.array.itemsize == 0 else None
            if whole is None or self.vector not in (None, whole):
                raise BankismError(
                    f"{self.op} of {self.array.name} moves 16-byte rows of {self.array.cuda_type}; "
                    f"vector={self.vector!r} does not fit"
                )
            object.__setattr__(self, "vector", whole)
        else:
            if self.matrices is not None:
                raise BankismError(f"matrices= applies to ldmatrix/stmatrix only, not to {self.op!r}")
            vector = 1 if self.vector is None else self.vector
            if int(vector) != vector or vector * self.array.itemsize not in WIDTHS:
                raise BankismError(
                    f"{self.op} of {self.array.name}: vector={self.vector!r} {self.array.cuda_type} elements "
                    f"make {vector * self.array.itemsize} bytes; a lane moves 1, 2, 4, 8 or 16 bytes"
                )
            object.__setattr__(self, "vector", int(vector))

    @classmethod
    def from_addresses(
        cls,
        array: SharedArray,
        addresses: object,
        op: str = "load",
        width: int | None = None,
        active: object = None,
        matrices: int | None = None,
        name: str | None = None,
        places: Sequence[str] | None = None,
    ) -> Access:
        """An access whose warp-instructions were recorded as byte addresses (a trace, ``explain``).

        The addresses (shape (N, 32)) are mapped back to indices of ``array``, so the access
        can be re-laid-out by ``advise``; ``places`` names each warp-instruction in messages.
        """
        label = name or f"{op} of {array.name}"
        rows = np.asarray(addresses)
        if rows.ndim == 1:
            rows = rows[np.newaxis]
        if rows.ndim != 2 or rows.shape[1] != LANES or rows.dtype.kind not in "iu":
            raise BankismError(f"{label}: addresses must be integers of shape (N, 32); got {rows.shape}")
        rows = rows.astype(np.int64)
        lanes_active = _active_lanes(active, rows.shape[0], label)
        if op in MATRIX_OPS:
            lanes_active &= np.arange(LANES) < LANES_PER_MATRIX * (matrices or 0)
        width = array.itemsize if width is None else width
        if op not in MATRIX_OPS and width % array.itemsize:
            raise BankismError(
                f"{label}: {width}-byte accesses do not cover whole {array.itemsize}-byte elements of "
                f"{array.name}; declare it with a {width}-byte element type"
            )
        vector = None if op in MATRIX_OPS else width // array.itemsize
        place_names = places if places is not None else RecordNames(rows.shape[0])
        if len(place_names) != rows.shape[0]:
            raise BankismError(
                f"{label}: {len(place_names)} place names for {rows.shape[0]} warp-instructions"
            )
        indices = _indices_of_addresses(array, rows, lanes_active, label, place_names)
        recorded = _Recorded(indices=indices, active=lanes_active, places=place_names)
        return cls(array, None, op, vector=vector, matrices=matrices, name=name, recorded=recorded)

    @property
    def width(self) -> int:
        """Bytes each lane moves."""
        return self.vector * self.array.itemsize

    @property
    def label(self) -> str:
        """How messages name this access: its ``name`` or ``op array[index source]``."""
        if self.name:
            return self.name
        text = f"{self.op} {self.array.name}"
        if self.index is not None:
            text += _index_source(self.index)
        if self.vector > 1 and self.op not in MATRIX_OPS:
            text += f" ({self.vector}-wide)"
        if self.op in MATRIX_OPS:
            text += f" (x{self.matrices})"
        if self.mask is not None:
            condition = _lambda_body(self.mask)
            text += f" if {condition}" if condition else " (masked)"
        return text

    def on(self, array: SharedArray) -> Access:
        """The same access to another layout of the same array (same dtype and shape)."""
        if array.dtype != self.array.dtype or array.shape != self.array.shape:
            raise BankismError(
                f"{self.label}: cannot move to {array}: element type and shape must stay the same"
            )
        return replace(self, array=array)

    def __repr__(self) -> str:
        return f"Access({self.label!r})"


def _active_lanes(active: object, n: int, label: str) -> np.ndarray:
    """Active lanes as a bool array (n, 32), from None, bools, or integer bitmasks."""
    if active is None:
        return np.ones((n, LANES), bool)
    array = np.asarray(active)
    if array.dtype == np.bool_:
        return np.broadcast_to(array, (n, LANES)).copy()
    if array.dtype.kind not in "iu":
        raise BankismError(f"{label}: active must be None, bools or 32-bit lane masks; got {array.dtype}")
    masks = np.broadcast_to(array.astype(np.int64).reshape(-1), (n,))
    return ((masks[:, np.newaxis] >> np.arange(LANES)) & 1).astype(bool)


def _indices_of_addresses(
    array: SharedArray, rows: np.ndarray, active: np.ndarray, label: str, places: Sequence[str]
) -> tuple[np.ndarray, ...]:
    """Indices of ``array`` whose elements start at the given byte addresses (inactive lanes: 0)."""
    offsets = rows - array.base
    element = offsets // array.itemsize
    inverse = _inverse_layout(array)
    inside = (offsets >= 0) & (offsets % array.itemsize == 0) & (element < inverse.size)
    flat = np.where(active & inside, inverse[np.where(inside, element, 0)], 0)
    bad = np.argwhere(active & (~inside | (flat < 0)))
    if bad.size:
        i, lane = (int(v) for v in bad[0])
        raise BankismError(
            f"{label}, {places[i]}, lane {lane}: address {int(rows[i, lane])} is not the start of an "
            f"element of {array} at base {array.base}"
        )
    return tuple(np.unravel_index(flat, array.shape))


@functools.lru_cache(maxsize=64)
def _inverse_layout(array: SharedArray) -> np.ndarray:
    """For each element offset, the row-major element number stored there (-1: padding)."""
    offsets = array.element_offsets(*all_indices(array))
    inverse = np.full(int(offsets.max()) + 1, -1, np.int64)
    inverse[offsets] = np.arange(offsets.size)
    return inverse




@functools.lru_cache(maxsize=128)
def _parsed_source(filename: str, text: str) -> ast.Module | None:
    try:
        return ast.parse(text, filename)
    except SyntaxError:
        return None


def _lambda_node(function: Callable) -> tuple[ast.Lambda, str] | None:
    """The AST node of a lambda and the source it was parsed from, when the source is at hand."""
    code = getattr(function, "__code__", None)
    if code is None or function.__name__ != "<lambda>":
        return None
    source = "".join(linecache.getlines(code.co_filename))
    tree = _parsed_source(code.co_filename, source) if source else None
    if tree is None:
        return None
    positions = [(p[0], p[2], p[1], p[3]) for p in code.co_positions()
                 if None not in p and (p[0], p[2]) != (p[1], p[3])]
    best = None
    for node in ast.walk(tree):
        if not isinstance(node, ast.Lambda) or node.lineno != code.co_firstlineno:
            continue
        span = (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
        inside = all(
            (span[0], span[1]) <= (a, b) and (c, d) <= (span[2], span[3]) for a, b, c, d in positions
        )
        if inside and (best is None or (span[2], span[3]) < (best[1][2], best[1][3])):
            best = (node, span)
    return (best[0], source) if best else None


def _lambda_body(function: Callable) -> str | None:
    """The source text of a lambda's body, or None when it is not available."""
    found = _lambda_node(function)
    if found is None:
        return None
    node, source = found
    return ast.get_source_segment(source, node.body)


def _index_source(function: Callable) -> str:
    """``[t.x][t.y]`` for ``lambda t: (t.x, t.y)``; the function's name when there is no source."""
    found = _lambda_node(function)
    if found is None:
        return f"[{getattr(function, '__name__', 'index')}(t)]"
    node, source = found
    parts = node.body.elts if isinstance(node.body, ast.Tuple) else [node.body]
    return "".join(f"[{ast.get_source_segment(source, part)}]" for part in parts)


