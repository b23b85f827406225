"""Check a CuTe shared-memory layout against the tiled copies that touch it, and find its fix.

``check_layout(layout, dtype, copies)`` turns each tiled copy into an ``Access`` of a ``SharedArray``
whose layout function is the CuTe layout, and hands them to ``check``: the same per-instruction
wavefronts, ideal, conflicts and bank maps as any review. ``layout_fixes`` tries the swizzles
``Sw<B,M,S> o layout`` and the row paddings (CuTe strides widened past a row) that keep every
vector whole, ranks them by excess wavefronts then memory, and proves each with ``check``.
No hardware rule lives here: every count comes from the engine.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from bankism.arch import DEFAULT_ARCH, LANES, get_arch
from bankism.engine import simulate
from bankism.errors import BankismError
from bankism.review.access import Access
from bankism.review.cute import CuteLayout, as_layout, flatten
from bankism.review.cute_copy import TiledCopy
from bankism.review.evaluate import evaluate_access, lane_masks
from bankism.review.layout import MAX_ELEMENTS, SharedArray, Swizzle
from bankism.review.report import Report, check


@dataclass(frozen=True)
class CopyUse:
    """A tiled copy as it touches the layout: the access, its block and its loops."""

    copy: TiledCopy
    access: Access
    block: tuple[int, ...]
    loops: dict[str, range]
    values: tuple[np.ndarray, ...] = field(repr=False)  # coordinates (tiles, atoms, threads, values)


def layout_extents(layout: CuteLayout) -> tuple[int, ...]:
    """The extents of the layout's top-level modes (its tile), refused past MAX_ELEMENTS elements before
    anything is laid out."""
    extents = layout.mode_sizes
    if math.prod(extents) > MAX_ELEMENTS:
        raise BankismError(f"layout {layout}: {math.prod(extents):,} elements; bankism lays out at most "
                           f"{MAX_ELEMENTS:,}")
    return extents


def layout_array(layout: CuteLayout, dtype: str, name: str = "smem") -> SharedArray:
    """A ``SharedArray`` indexed by the layout's top-level modes, stored where the layout says."""
    return SharedArray(dtype, layout.mode_sizes, swizzle=_LayoutFunction(layout), name=name)


@dataclass(frozen=True)
class _LayoutFunction:
    """A CuTe layout as a SharedArray layout function (named by its notation in messages)."""

    layout: CuteLayout

    def __call__(self, *indices):
        return self.layout(*indices)

    @property
    def __name__(self) -> str:
        return str(self.layout)


def copy_use(array: SharedArray, layout: CuteLayout, copy: TiledCopy) -> CopyUse:
    """The access a tiled copy makes to ``array`` (laid out by ``layout``): one warp-instruction per
    tile of the tensor and per atom each thread issues in that tile."""
    extents = layout.mode_sizes
    if len(copy.tiler) != len(extents):
        raise BankismError(f"{copy}: a rank-{len(copy.tiler)} tile for the rank-{len(extents)} layout "
                           f"{layout}")
    if any(e % t for e, t in zip(extents, copy.tiler, strict=True)):
        raise BankismError(f"{copy}: the layout's extents {extents} are not multiples of the tile "
                           f"{copy.tiler}")
    repeats = tuple(e // t for e, t in zip(extents, copy.tiler, strict=True))
    if math.prod(repeats) * copy.tv.size > MAX_ELEMENTS:  # the (tile, thread, value) tables built below
        raise BankismError(f"{copy}: {math.prod(repeats):,} tiles of {copy.tv.size:,} (thread, value) pairs "
                           f"over {layout}; bankism lays out at most {MAX_ELEMENTS:,}")
    coords, per_instruction = copy.smem_coordinates(array.itemsize * 8)
    within = np.unravel_index(coords, copy.tiler, order="F")  # each (threads, atoms, values)
    tiles = math.prod(repeats)
    tile_index = np.unravel_index(np.arange(tiles), repeats, order="F")
    # (tiles, threads, atoms, values)
    full = [w[None] + (r * t)[:, None, None, None]
            for w, r, t in zip(within, tile_index, copy.tiler, strict=True)]
    offsets = layout(*full)
    if per_instruction > 1 and not (np.diff(offsets, axis=-1) == 1).all():
        bad = np.argwhere(np.diff(offsets, axis=-1) != 1)[0]
        raise BankismError(
            f"{copy}: thread {int(bad[1])}'s {per_instruction} values of one {copy.atom.instruction} are not "
            f"contiguous in {layout} (offsets {offsets[tuple(bad[:3])].tolist()}); the copy cannot be one "
            "vector instruction per atom")
    first = [np.ascontiguousarray(np.moveaxis(f[..., 0], 1, -1)) for f in full]  # (tiles, atoms, threads)
    kind = copy.atom
    vector = None if kind.op in ("ldmatrix", "stmatrix") else per_instruction

    def index(t, tile, atom):
        return tuple(part[tile, atom, t.linear] for part in first)

    name = f"{kind.instruction} ({kind.name}) {'of' if kind.smem == 'src' else 'into'} {array.name}"
    access = Access(array, index, op=kind.op, vector=vector, matrices=kind.matrices, name=name)
    loops = {"tile": range(tiles), "atom": range(first[0].shape[1])}
    values = tuple(np.ascontiguousarray(np.moveaxis(f, 1, 2)) for f in full)
    return CopyUse(copy, access, (copy.threads,), loops, values)


@dataclass(frozen=True)
class LayoutFix:
    """A layout proposed for the copies, in CuTe notation, with the report that proves it."""

    layout: CuteLayout
    kind: str  # "as given", "swizzle" or "pad"
    extra_bytes: int
    report: Report = field(repr=False)

    @property
    def excess(self) -> int:
        return self.report.conflicts

    def __str__(self) -> str:
        cost = "no extra memory" if self.extra_bytes <= 0 else f"+{self.extra_bytes} B of shared memory"
        verdict = "every copy at its ideal" if not self.excess else f"{self.excess} excess wavefront(s) left"
        return f"{self.layout}  ({self.kind}, {cost}): {verdict}"


@dataclass(frozen=True)
class LayoutCheck:
    """``check_layout``'s answer: the layout, its copies and the engine's report."""

    layout: CuteLayout
    dtype: str
    uses: tuple[CopyUse, ...]
    report: Report
    arch: str = DEFAULT_ARCH

    @property
    def array(self) -> SharedArray:
        return self.uses[0].access.array

    def fixes(self, limit: int = 5) -> list[LayoutFix]:
        """The cheapest layouts that bring every copy to its ideal (or closest to it)."""
        return layout_fixes(self, limit)

    def to_dict(self) -> dict[str, object]:
        data = self.report.to_dict()
        data["layout"] = str(self.layout)
        data["dtype"] = self.dtype
        data["cosize_bytes"] = self.layout.cosize() * self.array.itemsize
        data["copies"] = [str(use.copy) for use in self.uses]
        return data


def check_layout(
    layout: object, dtype: str, copies: TiledCopy | Sequence[TiledCopy], name: str = "smem",
    arch: str = DEFAULT_ARCH,
) -> LayoutCheck:
    """Count every warp-instruction of the tiled copies on the CuTe ``layout`` (notation or pycute)."""
    layout = as_layout(layout)
    copies = [copies] if isinstance(copies, TiledCopy) else list(copies)
    if not copies:
        raise BankismError("check_layout: give at least one tiled copy")
    array = layout_array(layout, dtype, name)
    uses = tuple(copy_use(array, layout, c) for c in copies)
    sites = [check(u.access, u.block, u.loops, arch).sites[0] for u in uses]
    return LayoutCheck(layout, array.dtype, uses, Report(sites, arch), arch)


def _swizzles(layout: CuteLayout, itemsize: int, widest: int, bank_row_bytes: int) -> list[CuteLayout]:
    """``Sw<B,M,S>`` (S >= B) whose flipped bits pick banks and whose 2^M-element chunks hold a vector."""
    found = []
    span = layout.unswizzled.cosize()
    log_item = itemsize.bit_length() - 1
    for base in range(8):
        if (1 << base) * itemsize < widest:
            continue
        for bits in range(1, 6):
            if base + bits + log_item > bank_row_bytes.bit_length() - 1:
                continue
            for shift in range(bits, 16):
                if 1 << (base + shift) >= span:
                    break
                swizzle = Swizzle(bits, base, shift)
                found.append(CuteLayout(layout.shape, layout.stride, swizzle, layout.offset))
    return found


def _paddings(layout: CuteLayout, itemsize: int, widest: int, bank_row_bytes: int) -> list[CuteLayout]:
    """Row paddings: every stride >= a row of R elements widened by p elements per row, where the
    strides below R stay inside one row (so the padded layout is still a CuTe layout)."""
    leaves = list(zip(flatten(layout.shape), flatten(layout.stride), strict=True))
    rows = {d for _, d in leaves if d > 1} | {1 << k for k in range(1, 16)}
    found, seen = [], set()
    for row in sorted(rows):
        small = [(s, d) for s, d in leaves if d < row]
        large = [(s, d) for s, d in leaves if d >= row and s > 1]
        if not large or any(d % row for _, d in large) or sum((s - 1) * d for s, d in small) >= row:
            continue
        for pad in range(1, bank_row_bytes // itemsize):
            if (pad * itemsize) % widest:
                continue
            strides = _map_leaves(layout.stride, lambda d, r=row, p=pad: d + (d // r) * p if d >= r else d)
            candidate = CuteLayout(layout.shape, strides, None, layout.offset)
            if candidate.stride not in seen:
                seen.add(candidate.stride)
                found.append(candidate)
    return found


def _map_leaves(value, function):
    if isinstance(value, tuple):
        return tuple(_map_leaves(v, function) for v in value)
    return function(value)


def layout_fixes(result: LayoutCheck, limit: int = 5) -> list[LayoutFix]:
    """Swizzles and paddings of ``result.layout`` ranked by excess wavefronts, then memory, then
    simplicity; those that improve on the layout as given (or, if it is conflict-free, take less memory)."""
    layout, array = result.layout, result.array
    itemsize = array.itemsize
    widest = max(u.access.width for u in result.uses)
    bank_row = get_arch(result.arch).bank_row_bytes
    base_span = layout.cosize()
    candidates = [("swizzle", c) for c in _swizzles(layout.unswizzled, itemsize, widest, bank_row)]
    candidates += [("pad", c) for c in _paddings(layout.unswizzled, itemsize, widest, bank_row)]
    if layout.swizzle is not None:
        candidates.append(("none", layout.unswizzled))
    evaluated = [evaluate_access(u.access, u.block, u.loops) for u in result.uses]
    scored = []
    for kind, candidate in candidates:
        excess = _screen(candidate, result, evaluated)
        if excess is not None:
            extra = (candidate.cosize() - base_span) * itemsize
            simplicity = (candidate.swizzle.bits, candidate.swizzle.shift) if candidate.swizzle else (0, 0)
            scored.append((excess, extra, kind != "swizzle", simplicity, kind, candidate))
    given = result.report.conflicts
    better = [s for s in scored if s[0] < given or (given == 0 and s[0] == 0 and s[1] < 0)]
    better.sort(key=lambda s: s[:4])
    fixes, kept = [], []
    for excess, extra, _, _, kind, candidate in better:
        if any(k == kind and e <= excess and x <= extra for k, e, x in kept):
            continue
        kept.append((kind, excess, extra))
        proof = check_layout(candidate, result.dtype, [u.copy for u in result.uses], array.name, result.arch)
        if proof.report.conflicts != excess:
            raise RuntimeError(f"layout_fixes: screening counted {excess} excess wavefronts for {candidate}, "
                               f"check counted {proof.report.conflicts}")
        fixes.append(LayoutFix(candidate, kind, extra, proof.report))
        if len(fixes) == limit:
            break
    return fixes


def _screen(candidate: CuteLayout, result: LayoutCheck, evaluated) -> int | None:
    """Excess wavefronts of all copies on ``candidate``; None when it splits a vector or misaligns one."""
    itemsize = result.array.itemsize
    total = 0
    for use, ev in zip(result.uses, evaluated, strict=True):
        access = use.access
        offsets = candidate(*use.values)  # (tiles, atoms, threads, values)
        if offsets.shape[-1] > 1 and not (np.diff(offsets, axis=-1) == 1).all():
            return None
        first = offsets[..., 0]
        warps = -(-first.shape[-1] // LANES)
        padded = np.zeros(first.shape[:-1] + (warps * LANES,), np.int64)
        padded[..., : first.shape[-1]] = first
        addresses = np.where(ev.active, padded.reshape(-1, LANES) * itemsize, 0)
        if (addresses % access.width).any():
            return None
        outcome = simulate(addresses, width=access.width, op=access.op, active=lane_masks(ev.active),
                           matrices=access.matrices, arch=result.arch)
        total += outcome.total_conflicts
    return total
