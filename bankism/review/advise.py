"""The fix advisor: row paddings and XOR swizzles under which every access reaches its ideal.

Each proposal is proved with ``check``; no hardware rule lives here.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from bankism.arch import (
    DEFAULT_ARCH,
    LANES,
    get_arch,
)
from bankism.engine import simulate
from bankism.errors import BankismError
from bankism.review.access import Access
from bankism.review.evaluate import (
    Evaluated,
    addresses_of,
    check_bounds,
    evaluate_access,
    lane_masks,
    misaligned,
)
from bankism.review.layout import SharedArray, Swizzle
from bankism.review.report import Report, as_list, check, counted

#: Upper bound on lanes handed to one ``simulate`` call while screening candidate layouts (memory, not speed).
SCREEN_LANES_PER_CALL = 1 << 23


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
            return (f"pad each row by {counted(array.pad, 'element')} "
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


def _candidate_layouts(array: SharedArray, widest: int, bank_row_bytes: int) -> list[_Candidate]:
    """The layouts ``advise`` tries: the one given, unpadded, each row padding, each XOR swizzle."""
    dense = array.with_layout()
    found = [_Candidate(array, "as given", (0,))]
    if dense != array:
        found.append(_Candidate(dense, "none", (0,)))
    if array.ndim >= 2:
        for pad in range(1, bank_row_bytes // array.itemsize):
            if (pad * array.itemsize) % widest == 0:
                found.append(_Candidate(array.with_layout(pad=pad), "pad", (1, pad)))
    log_item = array.itemsize.bit_length() - 1
    for base in range(0, 8):
        if (1 << base) * array.itemsize < widest:
            continue
        for bits in range(1, 6):
            if base + bits + log_item > bank_row_bytes.bit_length() - 1 or array.size % (1 << (base + bits)):
                continue
            for shift in range(bits, 16):
                if 1 << (base + shift) >= array.size:
                    break
                swizzle = Swizzle(bits, base, shift)
                layout = array.with_layout(swizzle=swizzle)
                found.append(_Candidate(layout, "swizzle", (2, bits, shift, base)))
    return found


def _screen(
    candidates: list[_Candidate], accesses: list[Access], evaluated: list[Evaluated], arch: str
) -> list[tuple[_Candidate, int]]:
    """Excess wavefronts of every usable candidate over all accesses, through batched engine calls."""
    shared_bytes = get_arch(arch).shared_bytes
    usable = [c for c in candidates if c.array.base + c.array.nbytes <= shared_bytes]
    excess = np.zeros(len(usable), np.int64)
    aligned = np.ones(len(usable), bool)
    for access, ev in zip(accesses, evaluated, strict=True):
        masks = lane_masks(ev.active)
        n = max(1, ev.active.shape[0])
        per_call = max(1, SCREEN_LANES_PER_CALL // (n * LANES))
        for start in range(0, len(usable), per_call):
            chunk = range(start, min(len(usable), start + per_call))
            rows = []
            for c in chunk:
                addresses = addresses_of(usable[c].array, ev)
                if misaligned(addresses, ev.active, access.width).size:
                    aligned[c] = False
                    addresses = np.zeros_like(addresses)
                rows.append(addresses)
            result = simulate(
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
    arch: str = DEFAULT_ARCH,
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
    if isinstance(limit, bool) or not isinstance(limit, int | np.integer) or limit < 1:
        raise BankismError(f"limit={limit!r}: ask for at least 1 fix (an integer >= 1)")
    if not isinstance(array, SharedArray):
        raise BankismError(f"array must be a SharedArray; got {type(array).__name__}")
    own = [a for a in as_list(accesses) if a.array == array]
    if not own:
        raise BankismError(f"none of the given accesses reads or writes {array}")
    evaluated = []
    for access in own:
        ev = evaluate_access(access, block, loops)
        check_bounds(access, ev)
        evaluated.append(ev)
    candidates = _candidate_layouts(array, max(a.width for a in own), get_arch(arch).bank_row_bytes)
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
