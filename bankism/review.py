"""Kernel-design reviews: a shared array, a thread mapping, the engine's verdict, and the fix.

A reviewer states a layout (``SharedArray``) and how the threads of a block index it
(``Access``: a function of the thread indices and of loop variables). ``check`` evaluates
every warp and every loop value with NumPy, hands all warp-instructions of an access to
``bankism.simulate`` in one call, and reports totals and the worst warp-instruction.
``advise`` searches row paddings and CuTe-style XOR swizzles for a layout under which all
given accesses reach their ideal wavefront counts, and proves each proposal with ``check``.
No hardware rule lives here: every count comes from the engine.
"""

from __future__ import annotations

import ast
import functools
import html
import inspect
import itertools
import linecache
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

import bankism
from bankism.errors import BankismError

LANES = 32
MATRIX_OPS = ("ldmatrix", "stmatrix")
OPS = ("load", "store", "atomic", "ldmatrix", "stmatrix")
WIDTHS = (1, 2, 4, 8, 16)
MAX_THREADS_PER_BLOCK = 1024
#: Bytes of one row of banks (32 banks x 4 bytes); paddings beyond it repeat the same bank pattern.
BANK_ROW_BYTES = 128
#: Upper bound on lanes handed to one ``simulate`` call while screening candidate layouts (memory, not speed).
SCREEN_LANES_PER_CALL = 1 << 23

_DTYPE_ALIASES = {
    "float": "float32", "fp32": "float32", "f32": "float32",
    "double": "float64", "fp64": "float64", "f64": "float64",
    "half": "float16", "__half": "float16", "fp16": "float16", "f16": "float16",
    "bf16": "bfloat16", "__nv_bfloat16": "bfloat16", "nv_bfloat16": "bfloat16",
    "int": "int32", "unsigned": "uint32", "unsigned int": "uint32",
    "char": "int8", "signed char": "int8", "unsigned char": "uint8",
    "short": "int16", "unsigned short": "uint16",
    "long long": "int64", "unsigned long long": "uint64",
}
_ITEMSIZES = {
    "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "float16": 2, "bfloat16": 2,
    "int32": 4, "uint32": 4, "float32": 4, "int64": 8, "uint64": 8, "float64": 8,
}
_CUDA_NAMES = {
    "int8": "signed char", "uint8": "unsigned char", "int16": "short", "uint16": "unsigned short",
    "float16": "half", "bfloat16": "__nv_bfloat16", "int32": "int", "uint32": "unsigned int",
    "float32": "float", "int64": "long long", "uint64": "unsigned long long", "float64": "double",
}


# ---------------------------------------------------------------------------------------------
# Layouts
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Swizzle:
    """CuTe's ``Swizzle<bits, base, shift>`` on element offsets: ZZZ ^= YYY.

    The ``bits`` bits starting at bit ``base + max(0, shift)`` (YYY) are xor-ed into the
    ``bits`` bits starting at bit ``base - min(0, shift)`` (ZZZ); for shift >= 0 this is
    ``offset ^ ((offset >> shift) & (((1 << bits) - 1) << base))``, exactly as
    ``cute::Swizzle::apply`` in cutlass/include/cute/swizzle.hpp.
    """

    bits: int
    base: int
    shift: int

    def __post_init__(self) -> None:
        if self.bits < 0 or self.base < 0:
            raise BankismError(f"Swizzle<{self.bits},{self.base},{self.shift}>: bits and base must be >= 0")
        if abs(self.shift) < self.bits:
            raise BankismError(
                f"Swizzle<{self.bits},{self.base},{self.shift}>: |shift| must be >= bits, as CuTe requires"
            )

    @property
    def yyy_mask(self) -> int:
        """The source bits (CuTe's yyy_msk)."""
        return ((1 << self.bits) - 1) << (self.base + max(0, self.shift))

    @property
    def zzz_mask(self) -> int:
        """The bits that get flipped (CuTe's zzz_msk)."""
        return ((1 << self.bits) - 1) << (self.base - min(0, self.shift))

    def __call__(self, offset):
        """The swizzled offset (an int or an integer array), like ``cute::Swizzle::apply``."""
        source = offset & self.yyy_mask
        moved = source >> self.shift if self.shift >= 0 else source << -self.shift
        return offset ^ moved

    def __str__(self) -> str:
        return f"Swizzle<{self.bits},{self.base},{self.shift}>"


def _canonical_dtype(dtype: object) -> str:
    """The dtype's canonical name ("float32", "float16", ...), accepting CUDA and NumPy spellings."""
    if isinstance(dtype, str):
        name = _DTYPE_ALIASES.get(dtype.strip(), dtype.strip())
        if name in _ITEMSIZES:
            return name
    try:
        name = np.dtype(dtype).name
    except TypeError:
        name = None
    if name in _ITEMSIZES:
        return name
    known = ", ".join(sorted(set(_ITEMSIZES) | set(_DTYPE_ALIASES)))
    raise BankismError(f"unknown element type {dtype!r}: expected one of {known}")


@dataclass(frozen=True, repr=False)
class SharedArray:
    """A ``__shared__`` array: element type, shape, row padding, base byte offset and swizzle.

    Element ``[i0]...[in]`` lives at the element offset of the row-major layout whose last
    dimension is ``shape[-1] + pad`` long; a ``Swizzle`` is applied to that element offset
    (as CuTe composes a swizzle with a layout); a function ``(row, col) -> element offset``
    (any rank: one argument per dimension) replaces the layout altogether. Its bytes start
    at ``base`` in the shared-memory window.
    """

    dtype: str
    shape: tuple[int, ...]
    pad: int = 0
    base: int = 0
    swizzle: Swizzle | Callable | None = None
    name: str = "smem"

    def __post_init__(self) -> None:
        object.__setattr__(self, "dtype", _canonical_dtype(self.dtype))
        shape = (self.shape,) if isinstance(self.shape, int | np.integer) else tuple(self.shape)
        if not shape or any(int(n) != n or n < 1 for n in shape):
            raise BankismError(f"shared array {self.name}: shape {self.shape!r} must be positive integers")
        object.__setattr__(self, "shape", tuple(int(n) for n in shape))
        if int(self.pad) != self.pad or self.pad < 0:
            raise BankismError(f"shared array {self.name}: pad={self.pad!r} must be an integer >= 0")
        if self.pad and len(self.shape) < 2:
            raise BankismError(f"shared array {self.name}: pad applies to rows; a 1-D array has none")
        if int(self.base) != self.base or self.base < 0 or self.base % self.itemsize:
            raise BankismError(
                f"shared array {self.name}: base={self.base!r} must be a byte offset >= 0 "
                f"aligned to its {self.itemsize}-byte elements"
            )
        if self.swizzle is not None and not isinstance(self.swizzle, Swizzle) and not callable(self.swizzle):
            raise BankismError(
                f"shared array {self.name}: swizzle must be a Swizzle or a function of the indices"
            )
        if callable(self.swizzle) and not isinstance(self.swizzle, Swizzle):
            if self.pad:
                raise BankismError(
                    f"shared array {self.name}: give pad= or a layout function, not both: the function "
                    "decides every offset"
                )
            _check_layout_function(self)

    @property
    def itemsize(self) -> int:
        """Bytes per element."""
        return _ITEMSIZES[self.dtype]

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        """Number of elements (padding excluded)."""
        return math.prod(self.shape)

    @property
    def pitch(self) -> int:
        """Elements from the start of one row to the start of the next (``shape[-1] + pad``)."""
        return self.shape[-1] + self.pad

    @property
    def strides(self) -> tuple[int, ...]:
        """Element strides of the padded row-major layout, before any swizzle."""
        strides = [1]
        extent = self.pitch
        for n in reversed(self.shape[:-1]):
            strides.append(extent)
            extent *= n
        return tuple(reversed(strides))

    @property
    def nbytes(self) -> int:
        """Shared memory the declaration takes, padding included."""
        allocated = math.prod(self.shape[:-1]) * self.pitch
        return max(allocated, _max_offset(self) + 1) * self.itemsize

    @property
    def dense_nbytes(self) -> int:
        """Bytes of the same array with no padding."""
        return self.size * self.itemsize

    @property
    def extra_bytes(self) -> int:
        """Shared memory spent on padding (or on a layout function's holes)."""
        return self.nbytes - self.dense_nbytes

    @property
    def cuda_type(self) -> str:
        return _CUDA_NAMES[self.dtype]

    @property
    def declaration(self) -> str:
        """The CUDA declaration of this array, padding included (a swizzle is in the indexing)."""
        if callable(self.swizzle) and not isinstance(self.swizzle, Swizzle):
            return f"__shared__ {self.cuda_type} {self.name}[{self.nbytes // self.itemsize}];"
        dims = "".join(f"[{n}]" for n in self.shape[:-1]) + f"[{self.pitch}]"
        return f"__shared__ {self.cuda_type} {self.name}{dims};"

    def with_layout(self, pad: int = 0, swizzle: Swizzle | Callable | None = None) -> SharedArray:
        """The same array with another padding and swizzle (base and name kept)."""
        return replace(self, pad=pad, swizzle=swizzle)

    def element_offsets(self, *indices: np.ndarray) -> np.ndarray:
        """Element offsets of the elements at ``indices`` (one integer array per dimension)."""
        if callable(self.swizzle) and not isinstance(self.swizzle, Swizzle):
            return np.asarray(self.swizzle(*indices), dtype=np.int64)
        offsets = np.zeros(np.broadcast_shapes(*(np.shape(i) for i in indices)), np.int64)
        for index, stride in zip(indices, self.strides, strict=True):
            offsets = offsets + np.asarray(index, np.int64) * stride
        if isinstance(self.swizzle, Swizzle):
            offsets = self.swizzle(offsets)
        return offsets

    def byte_addresses(self, *indices: np.ndarray) -> np.ndarray:
        """Byte offsets in the shared-memory window of the elements at ``indices``."""
        return self.base + self.element_offsets(*indices) * self.itemsize

    def __str__(self) -> str:
        dims = "".join(f"[{n}]" for n in self.shape)
        text = f"{self.cuda_type} {self.name}{dims}"
        if self.pad:
            text += f" (rows padded to {self.pitch})"
        if isinstance(self.swizzle, Swizzle):
            text += f" with {self.swizzle}"
        elif self.swizzle is not None:
            text += f" with layout {getattr(self.swizzle, '__name__', 'function')}"
        return text

    def __repr__(self) -> str:
        parts = [repr(self.dtype), repr(self.shape)]
        if self.pad:
            parts.append(f"pad={self.pad}")
        if self.base:
            parts.append(f"base={self.base}")
        if self.swizzle is not None:
            parts.append(f"swizzle={self.swizzle!r}")
        if self.name != "smem":
            parts.append(f"name={self.name!r}")
        return f"SharedArray({', '.join(parts)})"


def _all_indices(array: SharedArray) -> tuple[np.ndarray, ...]:
    """Index arrays of every element, in row-major order."""
    return tuple(axis.reshape(-1) for axis in np.indices(array.shape, dtype=np.int64))


def _check_layout_function(array: SharedArray) -> None:
    """A layout function must give every element its own non-negative integer offset."""
    indices = _all_indices(array)
    try:
        offsets = np.asarray(array.swizzle(*indices))
    except Exception as error:
        raise BankismError(
            f"shared array {array.name}: the layout function failed on index arrays ({error}); "
            "write it with NumPy operations"
        ) from None
    if offsets.shape != indices[0].shape or offsets.dtype.kind not in "iu":
        raise BankismError(
            f"shared array {array.name}: the layout function must return one integer offset per element"
        )
    if offsets.min() < 0:
        at = int(np.argmin(offsets))
        raise BankismError(
            f"shared array {array.name}: the layout function puts {_index_text(indices, at)} at negative "
            f"offset {int(offsets[at])}"
        )
    order = np.argsort(offsets, kind="stable")
    same = np.flatnonzero(offsets[order][1:] == offsets[order][:-1])
    if same.size:
        first, second = order[same[0]], order[same[0] + 1]
        raise BankismError(
            f"shared array {array.name}: the layout function puts {_index_text(indices, first)} and "
            f"{_index_text(indices, second)} at the same offset {int(offsets[first])}"
        )


def _index_text(indices: tuple[np.ndarray, ...], at: int) -> str:
    return "".join(f"[{int(axis[at])}]" for axis in indices)


@functools.lru_cache(maxsize=256)
def _max_offset(array: SharedArray) -> int:
    """The largest element offset any element of ``array`` takes."""
    if array.swizzle is None:
        return sum((n - 1) * s for n, s in zip(array.shape, array.strides, strict=True))
    return int(array.element_offsets(*_all_indices(array)).max())


# ---------------------------------------------------------------------------------------------
# Threads, loops and accesses
# ---------------------------------------------------------------------------------------------


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


def _block_dims(block: object) -> tuple[int, int, int]:
    """``block`` as (x, y, z): an int or a tuple of one to three positive ints."""
    dims = (block,) if isinstance(block, int | np.integer) else tuple(block)
    if not 1 <= len(dims) <= 3 or any(int(d) != d or d < 1 for d in dims):
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


def _loop_parameters(function: Callable, loops: Mapping[str, Iterable], role: str, label: str) -> list[str]:
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
            whole = 16 // self.array.itemsize if 16 % self.array.itemsize == 0 else None
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
            lanes_active &= np.arange(LANES) < 8 * (matrices or 0)
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
    offsets = array.element_offsets(*_all_indices(array))
    inverse = np.full(int(offsets.max()) + 1, -1, np.int64)
    inverse[offsets] = np.arange(offsets.size)
    return inverse


# ---------------------------------------------------------------------------------------------
# Source text of index lambdas (for messages)
# ---------------------------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------------------------
# Evaluation: indices of every warp-instruction of an access
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Places:
    """Names the warp-instructions of an evaluated access: loop-major, then warp."""

    threads: Threads | None
    loop_names: tuple[str, ...]
    loop_values: tuple[tuple, ...]
    recorded: Sequence[str] | None = None

    def __len__(self) -> int:
        if self.recorded is not None:
            return len(self.recorded)
        return len(self.loop_values) * self.threads.warps

    def warp(self, i: int) -> int | None:
        return None if self.recorded is not None else i % self.threads.warps

    def loops(self, i: int) -> dict[str, object]:
        if self.recorded is not None:
            return {}
        values = self.loop_values[i // self.threads.warps]
        return dict(zip(self.loop_names, values, strict=True))

    def text(self, i: int) -> str:
        """"warp 1 (threads 32-63: threadIdx.x 0-31, threadIdx.y 1), k=3" or the recorded name."""
        if self.recorded is not None:
            return self.recorded[i]
        w = self.warp(i)
        t = self.threads
        valid = t.valid[w]
        ids = t.linear[w][valid]
        parts = []
        for axis, extent in zip("xyz", t.block, strict=True):
            if extent > 1:
                values = getattr(t, axis)[w][valid]
                parts.append(f"threadIdx.{axis} {_span(values)}")
        text = f"warp {w} (threads {_span(ids)}: {', '.join(parts) or 'threadIdx.x 0'})"
        loops = ", ".join(f"{k}={v}" for k, v in self.loops(i).items())
        return f"{text}, {loops}" if loops else text


def _span(values: np.ndarray) -> str:
    low, high = int(values.min()), int(values.max())
    return str(low) if low == high else f"{low}-{high}"


@dataclass(frozen=True)
class _Evaluated:
    """Indices (each (N, 32)) and active lanes (N, 32) of every warp-instruction of an access."""

    indices: tuple[np.ndarray, ...]
    active: np.ndarray
    places: _Places


def _evaluate(access: Access, block: object, loops: Mapping[str, Iterable] | None) -> _Evaluated:
    """Run the access's index and mask functions for every warp and loop value, vectorized."""
    if access.recorded is not None:
        places = _Places(None, (), (), recorded=access.recorded.places)
        return _Evaluated(access.recorded.indices, access.recorded.active, places)
    if block is None:
        raise BankismError(f"{access.label}: give block= (the thread-block shape) to evaluate it")
    loops = {} if loops is None else dict(loops)
    t = threads(_block_dims(block))
    index_loops = _loop_parameters(access.index, loops, "index", access.label)
    mask_loops = _loop_parameters(access.mask, loops, "mask", access.label) if access.mask else []
    names = tuple(n for n in loops if n in index_loops or n in mask_loops)
    values = tuple(itertools.product(*(list(loops[n]) for n in names)))
    places = _Places(t, names, values)
    shape = (len(values), t.warps, LANES)
    raw = _call(access.index, t, names, values, index_loops, shape, access.label, "index")
    parts = raw if isinstance(raw, tuple) else (raw,)
    if len(parts) != access.array.ndim:
        raise BankismError(
            f"{access.label}: the index function returns {len(parts)} index(es) for the "
            f"{access.array.ndim}-D array {access.array}"
        )
    indices = tuple(_as_index(p, shape, access.label, k) for k, p in enumerate(parts))
    active = np.broadcast_to(t.valid, shape)
    if access.mask is not None:
        chosen = _call(access.mask, t, names, values, mask_loops, shape, access.label, "mask")
        active = active & np.broadcast_to(np.asarray(chosen, bool), shape)
    if access.op in MATRIX_OPS:
        active = active & (np.arange(LANES) < 8 * access.matrices)
    n = shape[0] * shape[1]
    indices = tuple(i.reshape(n, LANES) for i in indices)
    return _Evaluated(indices, np.ascontiguousarray(active).reshape(n, LANES), places)


def _call(function, t, names, values, used, shape, label, role):
    """Call ``function`` on all loop values at once; per value when it branches on them."""
    columns = {n: np.array([v[names.index(n)] for v in values]).reshape(-1, 1, 1) for n in used}
    try:
        return _broadcast_result(function(t, **columns), shape)
    except (ValueError, TypeError) as vectorized_error:
        per_value = []
        for combination in values:
            scalars = {n: combination[names.index(n)] for n in used}
            try:
                per_value.append(function(t, **scalars))
            except Exception as error:
                raise BankismError(
                    f"{label}: the {role} function failed for {scalars or 'the threads'}: {error}"
                ) from None
        if not per_value:
            raise BankismError(f"{label}: the {role} function failed: {vectorized_error}") from None
        return _stack_results(per_value, shape, label, role)
    except Exception as error:
        raise BankismError(f"{label}: the {role} function failed: {error}") from None


def _broadcast_result(result, shape):
    """Broadcast the function's result (an array or a tuple of arrays) to (loops, warps, 32)."""
    if isinstance(result, tuple | list):
        return tuple(np.broadcast_to(np.asarray(r), shape) for r in result)
    return np.broadcast_to(np.asarray(result), shape)


def _stack_results(per_value, shape, label, role):
    """Stack per-loop-value results (each broadcast to (warps, 32)) along the loop axis."""
    try:
        if isinstance(per_value[0], tuple | list):
            count = len(per_value[0])
            return tuple(
                np.stack([np.broadcast_to(np.asarray(r[k]), shape[1:]) for r in per_value])
                for k in range(count)
            )
        return np.stack([np.broadcast_to(np.asarray(r), shape[1:]) for r in per_value])
    except (ValueError, IndexError) as error:
        raise BankismError(f"{label}: the {role} function returns inconsistent shapes: {error}") from None


def _as_index(part: np.ndarray, shape: tuple[int, ...], label: str, k: int) -> np.ndarray:
    array = np.asarray(part)
    if array.dtype.kind not in "iu":
        raise BankismError(
            f"{label}: index {k} is {array.dtype}, not an integer (use // for integer division)"
        )
    return np.broadcast_to(array.astype(np.int64), shape)


def _check_bounds(access: Access, evaluated: _Evaluated) -> None:
    """Every active lane's indices must lie inside the array: a mapping bug otherwise."""
    shape = access.array.shape
    for k, index in enumerate(evaluated.indices):
        bad = np.argwhere(evaluated.active & ((index < 0) | (index >= shape[k])))
        if bad.size:
            i, lane = (int(v) for v in bad[0])
            where = "".join(f"[{int(ix[i, lane])}]" for ix in evaluated.indices)
            raise BankismError(
                f"{access.label}: {evaluated.places.text(i)}, lane {lane}: index {where} is outside "
                f"{access.array}"
            )


def _addresses(array: SharedArray, evaluated: _Evaluated) -> np.ndarray:
    """Byte addresses (N, 32) of the evaluated indices in ``array``'s layout; inactive lanes: 0."""
    safe = tuple(np.where(evaluated.active, index, 0) for index in evaluated.indices)
    return np.where(evaluated.active, array.byte_addresses(*safe), 0)


def _misaligned(addresses: np.ndarray, active: np.ndarray, width: int) -> np.ndarray:
    """(instruction, lane) pairs whose address is not a multiple of the access width."""
    return np.argwhere(active & (addresses % width != 0))


def _check_fits(array: SharedArray, arch: str) -> None:
    size = bankism.get_arch(arch).shared_bytes
    if array.base + array.nbytes > size:
        raise BankismError(
            f"{array}: {array.nbytes} bytes at base {array.base} do not fit in the {size}-byte "
            f"shared memory of {arch}"
        )


def _lane_masks(active: np.ndarray) -> np.ndarray:
    """Bool lanes (N, 32) as int64 bitmasks (N,)."""
    return (active.astype(np.int64) << np.arange(LANES, dtype=np.int64)).sum(axis=1)


def _simulate_access(access: Access, evaluated: _Evaluated, arch: str):
    """One engine call for all warp-instructions of the access."""
    _check_bounds(access, evaluated)
    _check_fits(access.array, arch)
    addresses = _addresses(access.array, evaluated)
    bad = _misaligned(addresses, evaluated.active, access.width)
    if bad.size:
        i, lane = (int(v) for v in bad[0])
        where = "".join(f"[{int(ix[i, lane])}]" for ix in evaluated.indices)
        raise BankismError(
            f"{access.label}: {evaluated.places.text(i)}, lane {lane}: element {where} at byte "
            f"{int(addresses[i, lane])} is not aligned to the {access.width}-byte access"
        )
    return bankism.simulate(
        addresses, width=access.width, op=access.op, active=_lane_masks(evaluated.active),
        matrices=access.matrices, arch=arch,
    )


# ---------------------------------------------------------------------------------------------
# Reports
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Collision:
    """One bank asked for several distinct words in one transaction: which words, which lanes."""

    transaction: int
    bank: int
    words: tuple[int, ...]
    lanes: tuple[int, ...]

    def __str__(self) -> str:
        shown = ", ".join(str(w) for w in self.words[:6]) + (", ..." if len(self.words) > 6 else "")
        return (
            f"transaction {self.transaction}, bank {self.bank}: {len(self.words)} distinct words "
            f"({shown}) <- lanes {lane_ranges(self.lanes)}"
        )


def lane_ranges(lanes: Iterable[int]) -> str:
    """Compact lane list: ``0-15,17,20-22``, or ``0,2,...,30`` for an evenly spaced list."""
    ordered = sorted(set(int(v) for v in lanes))
    steps = set(np.diff(ordered).tolist())
    if len(ordered) >= 4 and len(steps) == 1 and steps != {1}:
        return f"{ordered[0]},{ordered[1]},...,{ordered[-1]}"
    runs = []
    for _, group in itertools.groupby(enumerate(ordered), lambda p: p[1] - p[0]):
        run = [v for _, v in group]
        runs.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
    return ",".join(runs)


@dataclass(frozen=True)
class WarpInstruction:
    """One warp-instruction of a site: where it ran, what it cost, and the banks behind it."""

    site: Site = field(repr=False)
    index: int

    @property
    def where(self) -> str:
        """The warp (and its threads) and the loop values, or the recorded place."""
        return self.site.places.text(self.index)

    @property
    def warp(self) -> int | None:
        return self.site.places.warp(self.index)

    @property
    def loops(self) -> dict[str, object]:
        return self.site.places.loops(self.index)

    @property
    def wavefronts(self) -> int:
        return int(self.site.result.wavefronts[self.index])

    @property
    def ideal(self) -> int:
        return int(self.site.result.ideal[self.index])

    @property
    def conflicts(self) -> int:
        return int(self.site.result.conflicts[self.index])

    @property
    def addresses(self) -> np.ndarray:
        return self.site.result.addresses[self.index]

    def describe(self) -> str:
        """The engine's sentence: how the warp was split or merged, and what it costs."""
        return self.site.result.describe(self.index)

    @property
    def bank_map(self):
        """The engine's ``BankMap`` of this warp-instruction."""
        return self.site.result.bank_map(self.index)

    @property
    def collisions(self) -> list[Collision]:
        """Banks asked for more than one distinct word in a transaction, worst first."""
        found = []
        for t, per_bank in enumerate(self.bank_map.banks):
            for b, hits in enumerate(per_bank):
                words = tuple(dict.fromkeys(word for _, word in hits))
                if len(words) > 1:
                    found.append(Collision(t, b, words, tuple(sorted({lane for lane, _ in hits}))))
        return sorted(found, key=lambda c: (-len(c.words), c.transaction, c.bank))

    def summary(self) -> str:
        """Where it ran (threads included) and what it cost."""
        return f"{self.where}: {_count(self.wavefronts, 'wavefront')}, ideal {self.ideal}"

    def short(self) -> str:
        """Warp, loop values and cost, for table cells."""
        place = self.where if self.warp is None else ", ".join(
            [f"warp {self.warp}", *(f"{k}={v}" for k, v in self.loops.items())])
        return f"{place}: {self.wavefronts} (ideal {self.ideal})"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


@dataclass(frozen=True)
class Site:
    """The engine's counts for every warp-instruction of one access."""

    access: Access
    result: object = field(repr=False)
    places: _Places = field(repr=False)

    @property
    def label(self) -> str:
        return self.access.label

    @property
    def instructions(self) -> int:
        return len(self.result)

    @property
    def wavefronts(self) -> int:
        return self.result.total_wavefronts

    @property
    def ideal(self) -> int:
        return self.result.total_ideal

    @property
    def conflicts(self) -> int:
        return self.result.total_conflicts

    @property
    def cycles(self) -> float:
        return self.result.total_cycles

    @property
    def conflict_free(self) -> bool:
        return self.conflicts == 0

    @property
    def max_wavefronts(self) -> int:
        """The most wavefronts one warp-instruction of this access costs."""
        return int(self.result.wavefronts.max()) if self.instructions else 0

    def instruction(self, i: int) -> WarpInstruction:
        return WarpInstruction(self, i)

    @property
    def worst(self) -> WarpInstruction | None:
        """The warp-instruction with the most conflict wavefronts (then the most wavefronts)."""
        return self._first_max(self.result.conflicts, self.result.wavefronts)

    @property
    def peak(self) -> WarpInstruction | None:
        """The warp-instruction with the most wavefronts (then the most conflict wavefronts)."""
        return self._first_max(self.result.wavefronts, self.result.conflicts)

    def _first_max(self, primary: np.ndarray, secondary: np.ndarray) -> WarpInstruction | None:
        if not self.instructions:
            return None
        candidates = np.flatnonzero(primary == primary.max())
        return WarpInstruction(self, int(candidates[np.argmax(secondary[candidates])]))

    def count_like(self, instruction: WarpInstruction) -> int:
        """How many warp-instructions cost as much as ``instruction`` (wavefronts and ideal)."""
        r = self.result
        same = (r.wavefronts == instruction.wavefronts) & (r.ideal == instruction.ideal)
        return int(np.count_nonzero(same))


@dataclass(frozen=True)
class Report:
    """What ``check`` found: totals over every warp and loop value, per access, and the worst case."""

    sites: list[Site]
    arch: str = "sm_90"

    @property
    def instructions(self) -> int:
        return sum(s.instructions for s in self.sites)

    @property
    def wavefronts(self) -> int:
        return sum(s.wavefronts for s in self.sites)

    @property
    def ideal(self) -> int:
        return sum(s.ideal for s in self.sites)

    @property
    def conflicts(self) -> int:
        return sum(s.conflicts for s in self.sites)

    @property
    def cycles(self) -> float:
        return sum(s.cycles for s in self.sites)

    @property
    def conflict_free(self) -> bool:
        return self.conflicts == 0

    @property
    def worst(self) -> tuple[Site, WarpInstruction] | None:
        """The site and warp-instruction with the most conflict wavefronts (None if nothing ran)."""
        best = None
        for site in self.sites:
            w = site.worst
            if w is None:
                continue
            if best is None or (w.conflicts, w.wavefronts) > (best[1].conflicts, best[1].wavefronts):
                best = (site, w)
        return best

    @property
    def verdict(self) -> str:
        """One line: conflict-free, or how many excess wavefronts and where the worst are."""
        if self.conflict_free:
            return (f"conflict-free: {_count(self.wavefronts, 'wavefront')} over "
                    f"{_count(self.instructions, 'warp-instruction')}, all at their ideal")
        bad = [s for s in self.sites if not s.conflict_free]
        site, worst = self.worst
        return (
            f"bank conflicts: {self.conflicts} excess wavefront(s) ({self.wavefronts} where {self.ideal} "
            f"would do) in {len(bad)} of {len(self.sites)} access(es); worst: {site.label}, "
            f"{worst.summary()}"
        )

    def rows(self) -> list[dict[str, object]]:
        """One dict per access (and a total): the figures of the table."""
        rows = []
        for site in self.sites:
            worst = site.worst
            rows.append({
                "access": site.label, "op": site.access.op, "bytes": site.access.width,
                "instructions": site.instructions, "wavefronts": site.wavefronts, "ideal": site.ideal,
                "conflicts": site.conflicts, "cycles": site.cycles,
                "worst": worst.short() if worst else "",
            })
        return rows

    def to_dict(self) -> dict[str, object]:
        """JSON-ready: totals, the per-access rows and the verdict."""
        return {
            "arch": self.arch, "instructions": self.instructions, "wavefronts": self.wavefronts,
            "ideal": self.ideal, "conflicts": self.conflicts, "cycles": self.cycles,
            "conflict_free": self.conflict_free, "verdict": self.verdict, "sites": self.rows(),
        }

    def table(self) -> str:
        """The per-access figures as a fixed-width text table."""
        header = [
            "access", "op", "bytes", "instr", "wavefronts", "ideal", "conflicts", "worst warp-instruction",
        ]
        body = [[r["access"], r["op"], r["bytes"], r["instructions"], r["wavefronts"], r["ideal"],
                 r["conflicts"], r["worst"]] for r in self.rows()]
        body.append(["total", "", "", self.instructions, self.wavefronts, self.ideal, self.conflicts, ""])
        cells = [[str(c) for c in row] for row in [header, *body]]
        widths = [max(len(row[k]) for row in cells) for k in range(len(header))]
        lines = []
        for n, row in enumerate(cells):
            text = "  ".join(
                c.ljust(widths[k]) if k in (0, 1, 7) else c.rjust(widths[k]) for k, c in enumerate(row)
            )
            lines.append(text.rstrip())
            if n == 0:
                lines.append("-" * len(lines[0]))
        return "\n".join(lines)

    def __str__(self) -> str:
        parts = [self.table(), "", self.verdict]
        worst = self.worst
        if worst is not None and worst[1].conflicts:
            site, instruction = worst
            parts += ["", f"worst warp-instruction: {site.label}, {instruction.where}",
                      instruction.describe(), str(instruction.bank_map)]
        return "\n".join(parts)

    def __repr__(self) -> str:
        return (f"Report({len(self.sites)} access(es): {self.wavefronts} wavefronts, ideal {self.ideal}, "
                f"{self.conflicts} conflicts)")

    def _repr_html_(self) -> str:
        """Jupyter: the table, the verdict, and the bank map of the worst warp-instruction as a grid."""
        header = "".join(f"<th>{h}</th>" for h in
                         ("access", "op", "bytes", "instr", "wavefronts", "ideal", "conflicts", "worst"))
        rows = []
        for r in self.rows():
            style = ' style="background:#fdd"' if r["conflicts"] else ""
            cells = [r["access"], r["op"], r["bytes"], r["instructions"], r["wavefronts"], r["ideal"],
                     r["conflicts"], r["worst"]]
            rows.append(f"<tr{style}>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>")
        total = ["total", "", "", self.instructions, self.wavefronts, self.ideal, self.conflicts, ""]
        rows.append("<tr>" + "".join(f"<td><b>{c}</b></td>" for c in total) + "</tr>")
        parts = [f"<table><tr>{header}</tr>{''.join(rows)}</table>", f"<p>{html.escape(self.verdict)}</p>"]
        worst = self.worst
        if worst is not None:
            site, instruction = worst
            parts.append(
                f"<p>{'worst' if instruction.conflicts else 'costliest'} warp-instruction: "
                f"{html.escape(site.label)}, {html.escape(instruction.where)}<br>"
                f"{html.escape(instruction.describe())}</p>"
            )
            parts.append(_bank_grid_html(instruction.bank_map))
        return "\n".join(parts)


def _bank_grid_html(bank_map) -> str:
    """A 32-column grid per transaction: row r holds the lanes asking for each bank's r-th word."""
    tables = []
    for t, per_bank in enumerate(bank_map.banks):
        columns = []
        for hits in per_bank:
            by_word: dict[int, list[int]] = {}
            for lane, word in hits:
                by_word.setdefault(word, []).append(lane)
            columns.append(list(by_word.items()))
        depth = max((len(c) for c in columns), default=0)
        head = "".join(f"<th>{b}</th>" for b in range(len(columns)))
        body = []
        for r in range(depth):
            cells = []
            for column in columns:
                if r < len(column):
                    word, lanes = column[r]
                    color = "#f99" if r else "#dfd"
                    cells.append(
                        f'<td style="background:{color}" title="word {word}">{lane_ranges(lanes)}</td>'
                    )
                else:
                    cells.append("<td></td>")
            body.append(f"<tr><th>{r + 1}</th>{''.join(cells)}</tr>")
        lo, hi = bank_map.transactions[t]
        tables.append(
            f"<p>transaction {t} (lanes {lo}-{hi - 1}): "
            f"{bank_map.wavefronts_per_transaction[t]} wavefront(s); "
            f"cells: lanes asking for the bank's n-th distinct word</p>"
            f'<table style="font-size:80%"><tr><th>bank</th>{head}</tr>{"".join(body)}</table>'
        )
    return "\n".join(tables)


def _as_list(accesses: Access | Iterable[Access]) -> list[Access]:
    items = [accesses] if isinstance(accesses, Access) else list(accesses)
    for item in items:
        if not isinstance(item, Access):
            raise BankismError(f"expected Access objects; got {type(item).__name__}")
    if not items:
        raise BankismError("no accesses given")
    return items


def check(
    accesses: Access | Iterable[Access],
    block: object = None,
    loops: Mapping[str, Iterable] | None = None,
    arch: str = "sm_90",
) -> Report:
    """Count every warp-instruction of the accesses (all warps of ``block``, all loop values) with the engine.

    Each access runs once per combination of the loop variables its functions take, in
    one ``bankism.simulate`` call. ``block`` may be omitted when every access was recorded
    (``Access.from_addresses``).
    """
    sites = []
    for access in _as_list(accesses):
        evaluated = _evaluate(access, block, loops)
        sites.append(Site(access, _simulate_access(access, evaluated, arch), evaluated.places))
    return Report(sites, arch)


# ---------------------------------------------------------------------------------------------
# Fix advisor
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fix:
    """A layout proposed by ``advise``, with the report that proves what it costs."""

    array: SharedArray
    kind: str
    report: Report = field(repr=False)
    accesses: tuple[Access, ...] = field(repr=False)

    @property
    def extra_bytes(self) -> int:
        """Shared memory this layout spends beyond the unpadded array."""
        return self.array.extra_bytes

    @property
    def wavefronts(self) -> int:
        return self.report.wavefronts

    @property
    def ideal(self) -> int:
        return self.report.ideal

    @property
    def excess(self) -> int:
        """Wavefronts still above ideal over all given accesses (0: every access at its ideal)."""
        return self.report.conflicts

    @property
    def complete(self) -> bool:
        return self.excess == 0

    @property
    def change(self) -> str:
        """What to change, in words."""
        array = self.array
        if self.kind == "as given":
            return "keep the layout as given"
        if self.kind == "none":
            return "no padding, no swizzle"
        if self.kind == "pad":
            return (f"pad each row by {_count(array.pad, 'element')} "
                    f"({array.shape[-1]} -> {array.pitch} per row, +{self.extra_bytes} B)")
        return f"XOR-swizzle the element offsets with CuTe's {array.swizzle} (no extra memory)"

    @property
    def code(self) -> str:
        """How to write it in CUDA: the declaration, and for a swizzle the index expression."""
        if self.kind != "swizzle":
            return self.array.declaration
        return f"{self.array.declaration}  // {swizzle_expression(self.array)}"

    def __str__(self) -> str:
        verdict = (
            "all accesses at their ideal" if self.complete else f"{self.excess} excess wavefront(s) left"
        )
        return f"{self.change}: {self.wavefronts} wavefronts, ideal {self.ideal}, {verdict}\n  {self.code}"

    def __repr__(self) -> str:
        return f"Fix({self.array!r}, excess={self.excess}, extra_bytes={self.extra_bytes})"


def swizzle_expression(array: SharedArray) -> str:
    """A CUDA index expression for a swizzled array (2-D with power-of-two rows: on the column)."""
    swizzle = array.swizzle
    mask = (1 << swizzle.bits) - 1
    columns = array.shape[-1]
    row_bits = columns.bit_length() - 1
    two_d = (array.ndim == 2 and not array.pad and columns == 1 << row_bits and swizzle.shift >= 0
             and swizzle.base + swizzle.bits <= row_bits <= swizzle.base + swizzle.shift)
    if two_d:
        down = swizzle.base + swizzle.shift - row_bits
        row = f"(row >> {down})" if down else "row"
        moved = f"(({row} & {mask}) << {swizzle.base})" if swizzle.base else f"({row} & {mask})"
        return f"{array.name}[row][col ^ {moved}]"
    if swizzle.shift >= 0:
        return f"element offset o -> o ^ ((o >> {swizzle.shift}) & {swizzle.zzz_mask:#x})"
    return f"element offset o -> o ^ ((o & {swizzle.yyy_mask:#x}) << {-swizzle.shift})"


@dataclass(frozen=True)
class _Candidate:
    array: SharedArray
    kind: str
    rank: tuple


def _candidate_layouts(array: SharedArray, widest: int) -> list[_Candidate]:
    """The layouts ``advise`` tries: the one given, unpadded, each row padding, each XOR swizzle."""
    dense = array.with_layout()
    found = [_Candidate(array, "as given", (0,))]
    if dense != array:
        found.append(_Candidate(dense, "none", (0,)))
    if array.ndim >= 2:
        for pad in range(1, BANK_ROW_BYTES // array.itemsize):
            if (pad * array.itemsize) % widest == 0:
                found.append(_Candidate(array.with_layout(pad=pad), "pad", (1, pad)))
    log_item = array.itemsize.bit_length() - 1
    for base in range(0, 8):
        if (1 << base) * array.itemsize < widest:
            continue
        for bits in range(1, 6):
            if base + bits + log_item > BANK_ROW_BYTES.bit_length() - 1 or array.size % (1 << (base + bits)):
                continue
            for shift in range(bits, 16):
                if 1 << (base + shift) >= array.size:
                    break
                swizzle = Swizzle(bits, base, shift)
                layout = array.with_layout(swizzle=swizzle)
                found.append(_Candidate(layout, "swizzle", (2, bits, shift, base)))
    return found


def _screen(
    candidates: list[_Candidate], accesses: list[Access], evaluated: list[_Evaluated], arch: str
) -> list[tuple[_Candidate, int]]:
    """Excess wavefronts of every usable candidate over all accesses, through batched engine calls."""
    shared_bytes = bankism.get_arch(arch).shared_bytes
    usable = [c for c in candidates if c.array.base + c.array.nbytes <= shared_bytes]
    excess = np.zeros(len(usable), np.int64)
    aligned = np.ones(len(usable), bool)
    for access, ev in zip(accesses, evaluated, strict=True):
        masks = _lane_masks(ev.active)
        n = max(1, ev.active.shape[0])
        per_call = max(1, SCREEN_LANES_PER_CALL // (n * LANES))
        for start in range(0, len(usable), per_call):
            chunk = range(start, min(len(usable), start + per_call))
            rows = []
            for c in chunk:
                addresses = _addresses(usable[c].array, ev)
                if _misaligned(addresses, ev.active, access.width).size:
                    aligned[c] = False
                    addresses = np.zeros_like(addresses)
                rows.append(addresses)
            result = bankism.simulate(
                np.concatenate(rows), width=access.width, op=access.op,
                active=np.tile(masks, len(chunk)), matrices=access.matrices, arch=arch,
            )
            excess[list(chunk)] += result.conflicts.reshape(len(chunk), -1).sum(axis=1)
    return [(c, int(e)) for c, e, ok in zip(usable, excess, aligned, strict=True) if ok]


def _worth_listing(candidate: _Candidate, excess: int, given_excess: float, given_bytes: int) -> bool:
    """Improves on the layout as given or, when that is conflict-free already, takes less memory."""
    if given_excess > 0:
        return excess < given_excess
    return excess == 0 and (candidate.kind == "as given" or candidate.array.extra_bytes < given_bytes)


def _undominated(ranked: list[tuple[_Candidate, int]]) -> list[tuple[_Candidate, int]]:
    """Drop a candidate when an earlier one of its kind has no more excess and no more extra memory."""
    kept: list[tuple[_Candidate, int]] = []
    for candidate, excess in ranked:
        dominated = any(
            k.kind == candidate.kind and e <= excess and k.array.extra_bytes <= candidate.array.extra_bytes
            for k, e in kept
        )
        if not dominated:
            kept.append((candidate, excess))
    return kept


def advise(
    array: SharedArray,
    accesses: Access | Iterable[Access],
    block: object = None,
    loops: Mapping[str, Iterable] | None = None,
    arch: str = "sm_90",
    limit: int = 10,
) -> list[Fix]:
    """Layouts of ``array`` under which the given accesses (together) reach their ideal wavefronts.

    Tries the layout as given, no padding, every row padding up to one row of banks that
    keeps vector accesses aligned, and every CuTe ``Swizzle<B, M, S>`` (S > 0) whose flipped
    bits select banks and whose ``2**M``-element chunks keep vector accesses whole. Ranks
    them by remaining excess wavefronts, then extra shared memory, then simplicity; keeps
    those that improve on the layout as given (when it is conflict-free already: itself and
    the conflict-free layouts that take less memory), drops a candidate when a cheaper one
    of its kind does as well, and proves each by re-running ``check``. An empty list means
    no layout in the search space does better than the one given.
    """
    own = [a for a in _as_list(accesses) if a.array == array]
    if not own:
        raise BankismError(f"none of the given accesses reads or writes {array}")
    evaluated = []
    for access in own:
        ev = _evaluate(access, block, loops)
        _check_bounds(access, ev)
        evaluated.append(ev)
    candidates = _candidate_layouts(array, max(a.width for a in own))
    scored = _screen(candidates, own, evaluated, arch)
    given = dict((c.kind, e) for c, e in scored).get("as given")
    if given is None:
        check(own, block, loops, arch)
        given = math.inf
    ranked = sorted(
        ((c, e) for c, e in scored if _worth_listing(c, e, given, array.extra_bytes)),
        key=lambda ce: (ce[1], ce[0].array.extra_bytes, ce[0].rank),
    )
    fixes = []
    for candidate, excess in _undominated(ranked)[:limit]:
        moved = tuple(a.on(candidate.array) for a in own)
        report = check(list(moved), block, loops, arch)
        if report.conflicts != excess:
            raise RuntimeError(
                f"advise: screening counted {excess} excess wavefronts for {candidate.array}, check counted "
                f"{report.conflicts}"
            )
        fixes.append(Fix(candidate.array, candidate.kind, report, moved))
    return fixes
