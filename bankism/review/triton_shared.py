"""Triton shared-memory encodings, the accesses Triton lowers onto them, and the encoding that fixes them.

An encoding is read from TTGIR text (``#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8,
order = [1, 0]}>``, the older ``#triton_gpu.shared<{...}>``, ``#ttg.nvmma_shared<{swizzlingByteWidth =
128, transposed = false, elementBitWidth = 16}>``) or given as numbers. Where an element lives follows
Triton's ``swizzledSharedToLinearLayout`` and ``nvmmaSharedToLinearLayout``
(lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp): with ``order[0]`` the contiguous dimension,
row ``r`` and column ``c`` of the two fastest dimensions sit at element
``r * cols + (c ^ ((vec * ((r / perPhase) % maxPhase)) % cols))``; an NVMMA encoding has vec = 16
bytes, perPhase = 128 / swizzle bytes, maxPhase = swizzle bytes / 16 and stores the tile in column
blocks of ``swizzle bytes`` (each block all rows deep), as its ``getCoreMatrixLinearLayout`` tiles do.

The accesses are a model of Triton's lowering, stated here and in docs/layouts.md, not read from a
compiled kernel: a dot operand is read by ``ldmatrix.x4`` (each matrix 8 consecutive rows of one
16-byte chunk; one instruction per 16-row x 32-byte block, every block), and a layout conversion
writes (``local_store``) or reads (``local_load``) the tile from a ``#blocked`` layout, each
instruction moving the register run that is contiguous in both layouts (at most 16 bytes).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from bankism.arch import DEFAULT_ARCH, LANES
from bankism.engine import simulate
from bankism.errors import BankismError
from bankism.review.access import Access
from bankism.review.evaluate import lane_masks
from bankism.review.layout import (
    MAX_ELEMENTS,
    SharedArray,
    check_itemsize,
    positive_shape,
)
from bankism.review.report import Report, check
from bankism.review.triton_encoding import Blocked, SharedEncoding, encodings_in, parse_encoding  # noqa: F401

# ---------------------------------------------------------------------------------------------
# Accesses Triton lowers
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TritonAccess:
    """An access of the model: what it is, and the element coordinates of every lane."""

    label: str
    op: str
    coords: tuple[np.ndarray, ...] = field(repr=False)  # each (instructions, 32)
    width_elements: int  # elements per lane
    matrices: int | None = None
    block: int = LANES

    @property
    def instructions(self) -> int:
        return int(self.coords[0].shape[0])


def tile_shape(shape: object, encoding: SharedEncoding) -> tuple[int, ...]:
    """``shape`` as positive integers, one per dimension of ``encoding``, at most MAX_ELEMENTS elements in
    all; else one line naming what is wrong (checked before any work is laid out)."""
    dims = positive_shape(shape, "tile shape")
    if len(dims) != len(encoding.order):
        raise BankismError(f"tile shape {list(dims)}: {len(dims)} dimension(s) for {encoding}, whose order "
                           f"has {len(encoding.order)}")
    return dims


def dot_operand_reads(shape: tuple[int, ...], encoding: SharedEncoding, itemsize: int) -> TritonAccess:
    """``ldmatrix.x4`` over every 16-row x 32-byte block of the tile (rows and columns in the encoding's
    order: ``.trans`` when the operand's K is not the contiguous dimension; the addresses are the same)."""
    shape = tile_shape(shape, encoding)
    check_itemsize(itemsize)
    column_dim, row_dim = encoding.order[0], encoding.order[1]
    rows, columns = shape[row_dim], shape[column_dim]
    chunk = 16 // itemsize
    if rows % 16 or columns % (2 * chunk):
        raise BankismError(f"dot operand {list(shape)}: ldmatrix.x4 reads 16 rows x {2 * chunk} columns; "
                           "the tile is not a multiple")
    lane = np.arange(LANES)
    starts = [(r0, c0) for c0 in range(0, columns, 2 * chunk) for r0 in range(0, rows, 16)]
    row = np.array([[r0 + lane % 16 for r0, _ in starts]])[0]
    col = np.array([[c0 + (lane // 16) * chunk for _, c0 in starts]])[0]
    coords = [np.zeros_like(row) for _ in shape]
    coords[row_dim], coords[column_dim] = row, col
    return TritonAccess(f"ldmatrix.x4 (dot operand) of {list(shape)}", "ldmatrix", tuple(coords), chunk, 4)


def blocked_accesses(shape: tuple[int, ...], blocked: Blocked, encoding: SharedEncoding, itemsize: int,
                     op: str = "store") -> TritonAccess:
    """``local_store`` (or ``local_load``) of a tile held in ``blocked``: each thread moves its registers
    in runs contiguous in both layouts, at most 16 bytes; one warp-instruction per run and warp."""
    shape = tile_shape(shape, encoding)
    check_itemsize(itemsize)
    rank = len(shape)
    if len(blocked.order) != rank:
        raise BankismError(f"{blocked}: rank {len(blocked.order)} for a rank-{rank} tile")
    inner = blocked.order[0]
    run = blocked.size_per_thread[inner] if encoding.order[0] == inner else 1
    if encoding.order[0] == inner and encoding.max_phase > 1:
        run = min(run, encoding.vec)
    run = max(1, min(run, 16 // itemsize))
    while run > 1 and blocked.size_per_thread[inner] % run:
        run //= 2
    cta = [s * t * w for s, t, w in zip(blocked.size_per_thread, blocked.threads_per_warp,
                                        blocked.warps_per_cta, strict=True)]
    repeats = [max(1, -(-n // c)) for n, c in zip(shape, cta, strict=True)]
    covered = math.prod(r * c for r, c in zip(repeats, cta, strict=True))
    if covered > MAX_ELEMENTS:  # each element a thread holds, repeats included: checked before the loops
        raise BankismError(f"{blocked}: its threads hold {covered:,} elements of the {list(shape)} tile "
                           f"(sizePerThread x threadsPerWarp x warpsPerCTA, repeated over the tile); bankism "
                           f"models at most {MAX_ELEMENTS:,}")
    lane, warp = np.arange(LANES), np.arange(blocked.warps)
    lane_coord = _unravel(lane, blocked.threads_per_warp, blocked.order)
    warp_coord = _unravel(warp, blocked.warps_per_cta, blocked.order)
    rows = []
    for rep in np.ndindex(*repeats):
        for reg in np.ndindex(*blocked.size_per_thread):
            if reg[inner] % run:
                continue
            for w in range(blocked.warps):
                point = []
                for d in range(rank):
                    base = (rep[d] * cta[d] + (warp_coord[d][w] * blocked.threads_per_warp[d] + lane_coord[d])
                            * blocked.size_per_thread[d] + reg[d])
                    point.append(base % shape[d])
                rows.append(point)
    coords = tuple(np.array([p[d] for p in rows]) for d in range(rank))
    verb = "st.shared" if op == "store" else "ld.shared"
    label = f"{verb} {run * itemsize} B from {blocked} ({'local_store' if op == 'store' else 'local_load'})"
    return TritonAccess(label, op, coords, run, None, LANES * blocked.warps)


def _unravel(index: np.ndarray, extents: Sequence[int], order: Sequence[int]) -> list[np.ndarray]:
    """Coordinates of a linear thread (or warp) id over ``extents``, ``order[0]`` fastest."""
    coords = [np.zeros_like(index) for _ in extents]
    rest = index
    for d in order:
        coords[d] = rest % extents[d]
        rest = rest // extents[d]
    return coords


# ---------------------------------------------------------------------------------------------
# Check and advise
# ---------------------------------------------------------------------------------------------


def encoding_array(
    shape: tuple[int, ...], dtype: str, encoding: SharedEncoding, name: str = "smem",
) -> SharedArray:
    """The tile as a ``SharedArray`` whose layout function is the encoding."""
    shape = tile_shape(shape, encoding)
    probe = SharedArray(dtype, shape, name=name)
    itemsize = probe.itemsize

    def layout(*indices):
        return encoding.offsets(shape, itemsize, *indices)

    layout.__name__ = str(encoding)
    return SharedArray(dtype, shape, swizzle=layout, name=name)


def as_review_access(array: SharedArray, access: TritonAccess) -> Access:
    """The modelled access as a review ``Access`` (one loop value per warp-instruction)."""
    coords = access.coords

    def index(t, i):
        return tuple(c[i, t.lane] for c in coords)

    vector = None if access.op == "ldmatrix" else access.width_elements
    return Access(array, index, op=access.op, vector=vector, matrices=access.matrices, name=access.label)


@dataclass(frozen=True)
class EncodingCheck:
    """``check_encoding``'s answer: the tile, its encoding, the accesses and the engine's report."""

    shape: tuple[int, ...]
    dtype: str
    encoding: SharedEncoding
    accesses: tuple[TritonAccess, ...]
    report: Report
    arch: str = DEFAULT_ARCH

    def fixes(self, limit: int = 5) -> list[EncodingFix]:
        return encoding_fixes(self, limit)

    def to_dict(self) -> dict[str, object]:
        data = self.report.to_dict()
        data["encoding"] = str(self.encoding)
        data["shape"] = list(self.shape)
        data["dtype"] = self.dtype
        return data


@dataclass(frozen=True)
class EncodingFix:
    """vec/perPhase/maxPhase (same order) and what they cost, proved by ``check``."""

    encoding: SharedEncoding
    report: Report = field(repr=False)
    per_access: tuple[int, ...] = ()

    @property
    def excess(self) -> int:
        return self.report.conflicts

    def __str__(self) -> str:
        if not self.excess:
            return f"{self.encoding}: every access at its ideal"
        parts = ", ".join(f"{s.access.op} {s.conflicts}" for s in self.report.sites)
        return f"{self.encoding}: {self.excess} excess wavefront(s) left ({parts})"


def check_encoding(
    shape: Sequence[int], dtype: str, encoding: SharedEncoding,
    accesses: Sequence[TritonAccess] | None = None, blocked: Blocked | None = None,
    arch: str = DEFAULT_ARCH, name: str = "smem",
) -> EncodingCheck:
    """Count the modelled accesses to a tile in ``encoding``: by default the dot-operand ldmatrix reads,
    plus the stores from ``blocked`` when given."""
    if not isinstance(encoding, SharedEncoding):
        raise BankismError(f"check_encoding: expected a SharedEncoding, got {type(encoding).__name__}")
    shape = tile_shape(shape, encoding)
    array = encoding_array(shape, dtype, encoding, name)
    if accesses is None:
        accesses = []
        if blocked is not None:
            accesses.append(blocked_accesses(shape, blocked, encoding, array.itemsize))
        accesses.append(dot_operand_reads(shape, encoding, array.itemsize))
    sites = []
    for access in accesses:
        review = as_review_access(array, access)
        sites.append(check(review, (LANES,), {"i": range(access.instructions)}, arch).sites[0])
    return EncodingCheck(shape, array.dtype, encoding, tuple(accesses), Report(sites, arch), arch)


def encoding_fixes(result: EncodingCheck, limit: int = 5) -> list[EncodingFix]:
    """Every vec/perPhase/maxPhase (powers of two, vec at most 16 bytes, same order), ranked by excess
    wavefronts over all accesses, then by how far they are from the given encoding's parameters."""
    itemsize = SharedArray(result.dtype, (1,)).itemsize
    given = result.encoding
    scored, seen = [], set()
    grid = np.indices(result.shape).reshape(len(result.shape), -1)
    for vec in (v for v in (1, 2, 4, 8, 16) if v * itemsize <= 16):
        for per_phase in (1, 2, 4, 8, 16):
            for max_phase in (1, 2, 4, 8, 16):
                if max_phase == 1 and (vec, per_phase) != (1, 1):
                    continue
                candidate = SharedEncoding(vec, per_phase, max_phase, given.order)
                placement = candidate.offsets(result.shape, itemsize, *grid).tobytes()
                if placement in seen:  # the same layout as a simpler one (e.g. a phase past the row)
                    continue
                seen.add(placement)
                excess = _screen_encoding(result, candidate, itemsize)
                if excess is None:
                    continue
                distance = sum(a != b for a, b in ((vec, given.vec), (per_phase, given.per_phase),
                                                   (max_phase, given.max_phase)))
                scored.append((sum(excess), distance, max_phase, per_phase, vec, candidate))
    scored.sort(key=lambda s: s[:5])
    current = result.report.conflicts
    fixes = []
    for total, _, _, _, _, candidate in scored:
        if candidate == given or total >= current and current:
            continue
        if not current and total:
            continue
        proof = _recheck(result, candidate)
        fixes.append(EncodingFix(candidate, proof))
        if len(fixes) == limit:
            break
    return fixes


def _recheck(result: EncodingCheck, candidate: SharedEncoding) -> Report:
    shape, accesses = result.shape, []
    itemsize = SharedArray(result.dtype, (1,)).itemsize
    for access in result.accesses:
        if access.op == "ldmatrix":
            accesses.append(dot_operand_reads(shape, candidate, itemsize))
        else:
            accesses.append(access)
    return check_encoding(shape, result.dtype, candidate, accesses, None, result.arch).report


def _screen_encoding(result: EncodingCheck, candidate: SharedEncoding, itemsize: int) -> list[int] | None:
    """Excess wavefronts of each access under ``candidate``; None when a vector would be split."""
    found = []
    for access in result.accesses:
        coords = access.coords
        offsets = candidate.offsets(result.shape, itemsize, *coords)
        if access.width_elements > 1:
            last = list(coords)
            inner = candidate.order[0]
            last[inner] = last[inner] + access.width_elements - 1
            if not np.array_equal(candidate.offsets(result.shape, itemsize, *last) - offsets,
                                  np.full_like(offsets, access.width_elements - 1)):
                return None
        width = access.width_elements * itemsize
        if access.op == "ldmatrix":
            width = 16
        active = np.ones(offsets.shape, bool)
        if access.matrices:
            active &= np.arange(LANES) < 8 * access.matrices
        outcome = simulate(offsets * itemsize, width=width, op=access.op, active=lane_masks(active),
                           matrices=access.matrices, arch=result.arch)
        found.append(outcome.total_conflicts)
    return found
