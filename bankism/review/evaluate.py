"""Evaluation of an access: the shared addresses of every warp-instruction, handed to the engine."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from bankism.arch import (
    LANES,
    LANES_PER_MATRIX,
    MATRIX_OPS,
    get_arch,
)
from bankism.engine import simulate
from bankism.errors import BankismError
from bankism.inputs import limit, over_limit
from bankism.review.access import Access, Threads, block_dims, loop_parameters, threads
from bankism.review.layout import SharedArray

#: Warp-instructions evaluated and simulated per engine call by ``check``: a check with more streams
#: them in chunks of this size, so memory stays flat whatever the loop sizes.
CHECK_CHUNK = 1 << 16


@dataclass(frozen=True)
class Places:
    """Names the warp-instructions of an evaluated access: loop-major, then warp.

    The loop values of instruction ``i`` are computed from the loop lists on demand (in
    ``itertools.product`` order), so a million loop values take no memory of their own.
    """

    threads: Threads | None
    loop_names: tuple[str, ...]
    loop_lists: tuple[Sequence, ...]
    recorded: Sequence[str] | None = None

    @property
    def combinations(self) -> int:
        """How many combinations of loop values there are (1 without loops)."""
        return math.prod(len(values) for values in self.loop_lists)

    def combination(self, j: int) -> tuple:
        """The ``j``-th combination of loop values, as ``itertools.product`` orders them."""
        values = []
        for items in reversed(self.loop_lists):
            j, k = divmod(j, len(items))
            values.append(items[k])
        return tuple(reversed(values))

    @property
    def loop_values(self) -> tuple[tuple, ...]:
        """Every combination of loop values (materialised: for small checks only)."""
        return tuple(self.combination(j) for j in range(self.combinations))

    def __len__(self) -> int:
        if self.recorded is not None:
            return len(self.recorded)
        return self.combinations * self.threads.warps

    def warp(self, i: int) -> int | None:
        return None if self.recorded is not None else i % self.threads.warps

    def loops(self, i: int) -> dict[str, object]:
        if self.recorded is not None:
            return {}
        values = self.combination(i // self.threads.warps)
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
class Evaluated:
    """Indices (each (N, 32)) and active lanes (N, 32) of every warp-instruction of an access."""

    indices: tuple[np.ndarray, ...]
    active: np.ndarray
    places: Places


def _places(access: Access, block: object, loops: Mapping[str, Iterable] | None) -> tuple[Places, list, list]:
    """The places of an access's warp-instructions and the loop names its index and mask take."""
    if block is None:
        raise BankismError(f"{access.label}: give block= (the thread-block shape) to evaluate it")
    if loops is not None and not isinstance(loops, Mapping):
        raise BankismError(
            f"{access.label}: loops= must map loop names to values; got {type(loops).__name__}")
    loops = {} if loops is None else dict(loops)
    t = threads(block_dims(block))
    index_loops = loop_parameters(access.index, loops, "index", access.label)
    mask_loops = loop_parameters(access.mask, loops, "mask", access.label) if access.mask else []
    names = tuple(n for n in loops if n in index_loops or n in mask_loops)
    lists = []
    for name in names:
        values = loops[name]
        if isinstance(values, str) or not isinstance(values, Sequence):
            try:  # an iterator: at most the instructions budget of values (it may be endless)
                values = list(itertools.islice(values, limit("instructions") + 1))
            except TypeError:
                raise BankismError(f"{access.label}: loops[{name!r}] must be a sequence of values; got "
                                   f"{type(values).__name__}") from None
        lists.append(values)
    return Places(t, names, tuple(lists)), index_loops, mask_loops


def evaluate_access(
    access: Access, block: object, loops: Mapping[str, Iterable] | None, combinations: range | None = None,
) -> Evaluated:
    """Run the access's index and mask functions for every warp and loop value, vectorized.

    ``combinations`` evaluates only those combinations of loop values (``check`` streams them).
    """
    if access.recorded is not None:
        places = Places(None, (), (), recorded=access.recorded.places)
        return Evaluated(access.recorded.indices, access.recorded.active, places)
    places, index_loops, mask_loops = _places(access, block, loops)
    t, names = places.threads, places.loop_names
    chosen = range(places.combinations) if combinations is None else combinations
    values = tuple(places.combination(j) for j in chosen)
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
        chosen_mask = _call(access.mask, t, names, values, mask_loops, shape, access.label, "mask")
        active = active & np.broadcast_to(np.asarray(chosen_mask, bool), shape)
    if access.op in MATRIX_OPS:
        active = active & (np.arange(LANES) < LANES_PER_MATRIX * access.matrices)
    n = shape[0] * shape[1]
    indices = tuple(i.reshape(n, LANES) for i in indices)
    return Evaluated(indices, np.ascontiguousarray(active).reshape(n, LANES), places)


def evaluation_chunks(
    access: Access, block: object, loops: Mapping[str, Iterable] | None, chunk: int = CHECK_CHUNK,
) -> tuple[Places, Iterator[Evaluated]]:
    """The access's places and its evaluation in pieces of at most ``chunk`` warp-instructions
    (whole loop-value combinations; at least one combination per piece)."""
    if access.recorded is not None:
        whole = evaluate_access(access, block, loops)
        return whole.places, iter([whole])
    places, _, _ = _places(access, block, loops)
    per_piece = max(1, chunk // places.threads.warps)
    total = places.combinations
    lists = zip(places.loop_names, places.loop_lists, strict=True)
    empty = [name for name, values in lists if not len(values)]
    if empty:
        raise BankismError(f"{access.label}: loops[{empty[0]!r}] has no values, so the access never runs")
    if total * places.threads.warps > limit("instructions"):
        raise over_limit("instructions", total * places.threads.warps,
                         f"{access.label}: {total:,} loop value(s) x {places.threads.warps} warp(s)")

    # the loop values as read once: an iterator given as a loop's values would be empty the second time
    read_once = {**dict(loops or {}), **dict(zip(places.loop_names, places.loop_lists, strict=True))}

    def pieces() -> Iterator[Evaluated]:
        for start in range(0, total, per_piece):
            yield evaluate_access(access, block, read_once, range(start, min(total, start + per_piece)))

    return places, pieces()


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


def check_bounds(access: Access, evaluated: Evaluated) -> None:
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


def addresses_of(array: SharedArray, evaluated: Evaluated) -> np.ndarray:
    """Byte addresses (N, 32) of the evaluated indices in ``array``'s layout; inactive lanes: 0."""
    safe = tuple(np.where(evaluated.active, index, 0) for index in evaluated.indices)
    return np.where(evaluated.active, array.byte_addresses(*safe), 0)


def misaligned(addresses: np.ndarray, active: np.ndarray, width: int) -> np.ndarray:
    """(instruction, lane) pairs whose address is not a multiple of the access width."""
    return np.argwhere(active & (addresses % width != 0))


def _check_fits(array: SharedArray, arch: str) -> None:
    size = get_arch(arch).shared_bytes
    if array.base + array.nbytes > size:
        raise BankismError(
            f"{array}: {array.nbytes} bytes at base {array.base} do not fit in the {size}-byte "
            f"shared memory of {arch}"
        )


def lane_masks(active: np.ndarray) -> np.ndarray:
    """Bool lanes (N, 32) as int64 bitmasks (N,)."""
    return (active.astype(np.int64) << np.arange(LANES, dtype=np.int64)).sum(axis=1)


def simulate_access(access: Access, evaluated: Evaluated, arch: str):
    """One engine call for all warp-instructions of the access."""
    check_bounds(access, evaluated)
    _check_fits(access.array, arch)
    addresses = addresses_of(access.array, evaluated)
    bad = misaligned(addresses, evaluated.active, access.width)
    if bad.size:
        i, lane = (int(v) for v in bad[0])
        where = "".join(f"[{int(ix[i, lane])}]" for ix in evaluated.indices)
        raise BankismError(
            f"{access.label}: {evaluated.places.text(i)}, lane {lane}: element {where} at byte "
            f"{int(addresses[i, lane])} is not aligned to the {access.width}-byte access"
        )
    return simulate(
        addresses, width=access.width, op=access.op, active=lane_masks(evaluated.active),
        matrices=access.matrices, arch=arch,
    )


