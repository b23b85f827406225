"""Batching: a launch's records, chunk by chunk, through one engine call per chunk, summed per site.

``analyze(trace)`` streams each launch's records in chunks, runs ``simulate_many`` once per chunk on
an (N, 32) batch covering every modelled site, and sums per site into ``SiteStats``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from bankism.analyze.model import (
    CLASSES,
    COUNTED_AS_INSTRUCTIONS,
    METRICS,
    OPTIONAL_CLASSES,
    Counters,
    Counts,
    SiteStats,
    WorstInstruction,
)
from bankism.analyze.report import LaunchReport, TraceReport
from bankism.analyze.surplus import units_touched
from bankism.arch import LANES, MATRIX_OPS, MATRIX_ROW_BYTES, get_arch
from bankism.engine import AddressError, Kind, KindTotals, engine_threads, simulate_many
from bankism.errors import BankismError
from bankism.isa import DEFAULT_ATOMIC_OP, GENERIC_SASS, unmodelled_reason
from bankism.trace import RecordChunk, Trace, blocks_recorded_count, window_end
from bankism.trace.validate import address_error, linear_blocks, site_slots
from bankism.trace.views import Launch, TraceSite

#: Records read and simulated per chunk, so memory stays flat whatever the trace size. Measured on a
#: 2-million-record npz trace: peak RSS 243 MB at 1 << 16 (140 MB once the engine is loaded), against
#: 495 MB at 1 << 18 for a few percent less time.
ANALYZE_CHUNK = 1 << 16


def _worst_record(totals: KindTotals, chunk: RecordChunk, rows: np.ndarray | None) -> WorstInstruction | None:
    """The worst instruction the engine found in this chunk (``rows`` maps batch rows to chunk rows)."""
    if totals.worst < 0:
        return None
    row = int(totals.worst if rows is None else rows[totals.worst])
    block = chunk.block[row]
    return WorstInstruction(
        record=chunk.start + row, block=(int(block[0]), int(block[1]), int(block[2])),
        warp=int(chunk.warp[row]), wavefronts=totals.worst_wavefronts, ideal=totals.worst_ideal,
        active=int(chunk.active[row]), addresses=chunk.addresses[row].copy(),
    )


def _worse(candidate: WorstInstruction | None, current: WorstInstruction | None) -> bool:
    if candidate is None:
        return False
    if current is None:
        return True
    return (candidate.excess, candidate.wavefronts) > (current.excess, current.wavefronts)


def active_lanes(active: np.ndarray) -> np.ndarray:
    """The number of set bits of each 32-bit lane mask (NumPy's popcount where it has one, 2.0 on)."""
    masks = np.ascontiguousarray(active, dtype="<u4")
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(masks)
    return np.unpackbits(masks.view(np.uint8)).reshape(-1, LANES).sum(axis=1, dtype=np.int64)


def site_kind(site: TraceSite) -> Kind:
    """The engine's instruction kind of a site."""
    return Kind(site.op, site.width, site.matrices, site.atomic_op or DEFAULT_ATOMIC_OP)


#: The engine's atomic instruction for each ATOMS opcode is ``isa.ATOMIC_SASS`` (every entry measured on
#: the H100). A site the engine cannot model (unknown opcode, no rule for its kind) is not simulated:
#: ``LaunchReport.unmodelled`` lists it with its recorded count and the reason.
def site_unmodelled_reason(site: TraceSite, arch: str) -> str | None:
    """Why the engine cannot simulate ``site`` (unknown opcode, no rule for its kind on ``arch``), or None."""
    reason = unmodelled_reason(site.sass)
    if reason:
        return reason
    family = site.sass.split(".")[0].upper() if site.sass else None
    if family in GENERIC_SASS and site.op != GENERIC_SASS[family]:
        return (f"generic {site.sass} recorded as a shared {site.op}: only generic loads and stores were "
                "measured")
    width = MATRIX_ROW_BYTES if site.op in MATRIX_OPS else site.width
    try:
        get_arch(arch).rule(site.op, width, site.atomic_op or DEFAULT_ATOMIC_OP)
    except BankismError as error:
        return str(error)
    return None


#: Records of a chunk whose bank coverage is counted (evenly spaced): enough for a per-site mean.
COVERAGE_SAMPLE = 1 << 12


class _Batcher:
    """Per launch: the engine kind of each modelled site id, so that one engine call covers a chunk."""

    def __init__(self, stats: dict[int, SiteStats], launch: Launch, arch: str, label: str) -> None:
        self.stats = stats
        self.launch = launch
        self.arch = arch
        self.label = label
        self.ids = sorted(stats)
        self.sorted_ids = np.asarray(self.ids, np.int64)
        self.modelled = [k for k, site_id in enumerate(self.ids) if not stats[site_id].unmodelled]
        self.kinds = [site_kind(stats[self.ids[k]].site) for k in self.modelled]
        self.kind_of_slot = np.full(len(self.ids) + 1, -1, np.int32)  # slot -1 (no site) reads the last
        self.kind_of_slot[self.modelled] = np.arange(len(self.modelled), dtype=np.int32)
        self.limit = window_end(launch.json, arch)
        #: Per ncu class, recorded warp-instructions per recorded block (linear index): how unequal the
        #: blocks' work is, which bounds what a block-sampled launch may scale to (``block_range``).
        self.per_block: dict[str, dict[int, int]] = {}
        #: Counted the way ``LaunchReport.recorded`` counts instructions: modelled sites of ops ncu counts.
        self.class_of_slot = [None if stats[i].unmodelled or stats[i].site.op not in COUNTED_AS_INSTRUCTIONS
                              else stats[i].op_class for i in self.ids]

    def _tally_blocks(self, chunk: RecordChunk, slot: np.ndarray) -> None:
        """Count the chunk's warp-instructions per class and block."""
        keys = linear_blocks(chunk.block, self.launch.grid)
        for k in np.unique(slot[slot >= 0]):
            if self.class_of_slot[k] is None:
                continue
            counts = self.per_block.setdefault(self.class_of_slot[k], {})
            blocks, n = np.unique(keys[slot == k], return_counts=True)
            for block, count in zip(blocks.tolist(), n.tolist(), strict=True):
                counts[block] = counts.get(block, 0) + count

    def block_range(self, blocks_recorded: int) -> dict[str, tuple[int, int]]:
        """Per class, the fewest and most warp-instructions one recorded block issued (0 where some
        recorded block issued none)."""
        out = {}
        for op_class, counts in self.per_block.items():
            values = list(counts.values())
            low = min(values) if len(values) >= blocks_recorded else 0
            out[op_class] = (low, max(values))
        return out

    def _tally_coverage(self, chunk: RecordChunk, slot: np.ndarray) -> None:
        """Count each site's executions by the sector groups and 16-byte units their lanes touch (the
        surplus's bank coverage, ``analyze.surplus.coverage``), on at most COVERAGE_SAMPLE evenly spaced
        records of the chunk: the factor is a mean, and the full count would double analyze's time."""
        known = np.flatnonzero(slot >= 0)
        if known.size > COVERAGE_SAMPLE:
            known = known[:: -(-known.size // COVERAGE_SAMPLE)]
        row = get_arch(self.arch).bank_row_bytes
        fill, store = units_touched(chunk.addresses[known], chunk.active[known], row)
        for touched, attribute in ((fill, "fill_units"), (store, "store_units")):
            pairs = np.bincount(slot[known] * 16 + touched, minlength=16 * len(self.ids)).reshape(-1, 16)
            for k in np.flatnonzero(pairs.sum(axis=1)):
                histogram = getattr(self.stats[self.ids[k]], attribute)
                for n in np.flatnonzero(pairs[k]):
                    histogram[n] += int(pairs[k, n])

    def add(self, chunk: RecordChunk) -> None:
        """Add one chunk of records to the per-site sums: one engine call for all its modelled sites.

        A site marked ``unmodelled`` only has its executions counted.
        """
        if len(chunk) == 0:
            return
        slot = site_slots(self.sorted_ids, chunk.site)
        self._tally_blocks(chunk, slot)
        counted = np.bincount(slot[slot >= 0], minlength=len(self.ids))
        lanes = np.bincount(slot[slot >= 0], weights=active_lanes(chunk.active)[slot >= 0],
                            minlength=len(self.ids))
        for k in np.flatnonzero(counted):
            entry = self.stats[self.ids[k]]
            entry.lanes += int(lanes[k])
            if entry.unmodelled:
                entry.executions += int(counted[k])
        if self.launch.traffic is not None:
            self._tally_coverage(chunk, slot)
        kind_of = self.kind_of_slot[slot]
        rows = None
        if (kind_of < 0).any():
            rows = np.flatnonzero(kind_of >= 0)
            kind_of = kind_of[rows]
        if kind_of.size == 0:
            return
        addresses = chunk.addresses if rows is None else chunk.addresses[rows]
        active = chunk.active if rows is None else chunk.active[rows]
        try:
            totals = simulate_many(addresses, active, kind_of, self.kinds, self.arch, self.limit)
        except AddressError as error:
            row = error.instruction if rows is None else int(rows[error.instruction])
            site_id = int(chunk.site[row])
            raise address_error(self.launch.json, self.arch, self.label, chunk.start + row, error.lane,
                                chunk.addresses[row], self.stats[site_id].site.width, site_id,
                                error.reason) from None
        for k, part in enumerate(totals):
            if part.executions == 0:
                continue
            entry = self.stats[self.ids[self.modelled[k]]]
            entry.executions += part.executions
            entry.wavefronts += part.wavefronts
            entry.ideal += part.ideal
            entry.conflicts += part.conflicts
            cycles = part.cycles
            entry.cycles = None if entry.cycles is None or np.isnan(cycles) else entry.cycles + cycles
            worst = _worst_record(part, chunk, rows)
            if _worse(worst, entry.worst):
                entry.worst = worst


def accumulate(stats: dict[int, SiteStats], chunk: RecordChunk, arch: str, label: str,
               launch: Launch | dict[str, Any]) -> None:
    """Add one chunk of records to the per-site sums (one engine call for all modelled sites present)."""
    _Batcher(stats, launch if isinstance(launch, Launch) else Launch.of(launch), arch, label).add(chunk)


def _measured(launch: Launch) -> Counts | None:
    counters = launch.counters
    if counters is None:
        return None
    return {c: Counters(*(int(counters[c][m]) for m in METRICS), addressed=counters[c].get("addressed"),
                        addressed_matrix=counters[c].get("addressed_matrix"))
            for c in CLASSES + OPTIONAL_CLASSES if c in counters}


def analyze_launch(
    trace: Trace, launch: Launch | dict[str, Any], chunk: int = ANALYZE_CHUNK,
    on_records: Callable[[int], None] | None = None, sites: Iterable[int] | None = None,
    blocks: Iterable[tuple[int, int, int]] | None = None,
) -> LaunchReport:
    """Simulate every recorded warp-instruction of one launch (or of the given sites, or of the
    given recorded blocks only: the launch is then scaled from those blocks) and sum."""
    wanted = None if sites is None else set(sites)
    view = launch if isinstance(launch, Launch) else Launch.of(launch)
    stats = {s.id: SiteStats(s, unmodelled=site_unmodelled_reason(s, trace.arch))
             for s in view.sites if wanted is None or s.id in wanted}
    batcher = _Batcher(stats, view, trace.arch, trace.label(view))
    chosen = None if blocks is None else block_keys(list(blocks), view.grid)
    count = 0
    for part in trace.chunks(view, chunk, check_addresses=False):
        if chosen is not None:
            part = records_in_blocks(part, chosen, view.grid)
        batcher.add(part)
        count += len(part)
        if on_records:
            on_records(len(part))
    ordered = sorted(stats.values(), key=lambda s: s.id)
    modelled = [s for s in ordered if not s.unmodelled]
    unmodelled = [s for s in ordered if s.unmodelled]
    recorded = blocks_recorded_count(view.json) if chosen is None else len(chosen)
    return LaunchReport(view, count, recorded, modelled, _measured(view), unmodelled, trace.arch,
                        batcher.block_range(recorded))


def block_keys(blocks: Sequence[tuple[int, int, int]], grid: Sequence[int]) -> np.ndarray:
    """The linear indices in ``grid`` of a set of blocks, sorted and unique (see ``records_in_blocks``)."""
    return np.unique(linear_blocks(np.asarray(blocks, np.int64), grid))


def records_in_blocks(part: RecordChunk, keys: np.ndarray, grid: Sequence[int]) -> RecordChunk:
    """The records of ``part`` made by one of the blocks ``keys`` (see ``block_keys``)."""
    keep = np.isin(linear_blocks(part.block, grid), keys) if len(part) else np.zeros(0, bool)
    if keep.all():
        return part
    return RecordChunk(part.start, part.block[keep], part.warp[keep], part.site[keep], part.active[keep],
                       part.addresses[keep])


def analyze(
    trace: Trace, launch_indices: Iterable[int] | None = None, chunk: int = ANALYZE_CHUNK,
    on_records: Callable[[int], None] | None = None, threads: int | None = None,
) -> TraceReport:
    """The report for the chosen launches (their ``index`` fields; all when None), the engine running
    on ``threads`` threads (None: one per CPU)."""
    chosen = trace.launches if launch_indices is None else [trace.launch(i) for i in launch_indices]
    with engine_threads(threads):
        reports = [analyze_launch(trace, launch, chunk, on_records) for launch in chosen]
    return TraceReport(str(trace.path), trace.arch, dict(trace.doc["environment"]), reports)
