"""The reports: everything ``bankism analyze`` says about one launch (``LaunchReport``) and a whole
trace (``TraceReport``), and their JSON (docs/analyze.md).

Launches that recorded a subset of their blocks are scaled by blocks_total / blocks recorded to predict
the whole launch, which is what the measured ncu counters cover.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bankism.analyze.model import (
    CLASSES,
    COUNTED_AS_ADDRESSED,
    COUNTED_AS_ADDRESSED_MATRIX,
    COUNTED_AS_INSTRUCTIONS,
    OPTIONAL_CLASSES,
    REPORT_FORMAT,
    REPORT_VERSION,
    Counters,
    Counts,
    LineStats,
    SiteStats,
    group_by_line,
)
from bankism.analyze.sampling import sampling_advice
from bankism.analyze.surplus import SiteLoad, SurplusEstimate, estimate, site_coverage
from bankism.analyze.verdict import (
    CONFLICTS_RULE,
    TOLERANCE,
    Comparison,
    agrees,
    comparisons,
    conflicts_explained,
    unexplained_surplus,
)
from bankism.arch import DEFAULT_ARCH, LANES, SECTOR_BYTES
from bankism.timing import LaunchFix, SiteExcess, launch_fix
from bankism.trace.timeblock import launch_time
from bankism.trace.views import Launch
from bankism.version import __version__


@dataclass
class LaunchReport:
    """Everything ``bankism analyze`` says about one kernel launch.

    Built once the per-site sums are final: the recorded and predicted counters, the comparisons with
    ncu and their verdicts are computed once, here, and every reader (JSON, tables, headline) reads them.
    """

    launch: Launch
    records: int
    blocks_recorded: int
    sites: list[SiteStats]
    measured: Counts | None
    #: Sites recorded but not simulated (``SiteStats.unmodelled`` says why): only their count is known.
    unmodelled: list[SiteStats] = field(default_factory=list)
    #: The architecture whose rules (and surplus model) apply.
    arch: str = DEFAULT_ARCH
    #: Per ncu class, the fewest and most warp-instructions one recorded block issued (``instruction_range``
    #: turns it into what a block-sampled launch may hold); empty where not tallied.
    block_range: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: Per ncu class, the sums over the recorded records (no scaling), counted the way ncu counts.
    recorded: Counts = field(init=False)
    #: Per ncu class, the recorded sums scaled to the whole launch (exact, possibly fractional).
    predicted: Counts = field(init=False)
    _surplus: dict[str, SurplusEstimate | None] = field(init=False, repr=False)
    _comparisons: list[Comparison] = field(init=False, repr=False)
    _agrees: bool | None = field(init=False, repr=False)
    _conflicts_explained: bool | None = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.recorded = _recorded_counts(self.sites, self.classes)
        self.predicted = {c: counts.scaled(self.scale) for c, counts in self.recorded.items()}
        self._surplus = self._estimate_surplus()
        self._comparisons = comparisons(self)
        self._agrees = agrees(self)
        self._conflicts_explained = conflicts_explained(self)

    @property
    def index(self) -> int:
        return self.launch.index

    @property
    def kernel(self) -> str:
        return self.launch.kernel

    @property
    def blocks_total(self) -> int:
        return self.launch.blocks_total

    @property
    def scale(self) -> float:
        """Factor from the recorded blocks to the whole launch."""
        return self.blocks_total / self.blocks_recorded

    @property
    def scaled(self) -> bool:
        return self.blocks_recorded != self.blocks_total

    @property
    def classes(self) -> tuple[str, ...]:
        """ld, st, atom, and ldgsts when a site or the counters of this launch have it."""
        used = {s.op_class for s in self.sites} | set(self.measured or {})
        return CLASSES + tuple(c for c in OPTIONAL_CLASSES if c in used)

    def instruction_range(self, op_class: str) -> tuple[float, float] | None:
        """The warp-instructions of a class the whole launch may hold if every unrecorded block issues
        between the fewest and the most a recorded block did; None where the launch is not block-sampled
        or the blocks were not tallied. A measured count outside it means the recorded blocks are not
        representative; inside it, a scaled count that misses by a few instructions is sampling."""
        if not self.scaled or op_class not in self.block_range:
            return None
        low, high = self.block_range[op_class]
        recorded = self.recorded[op_class].instructions
        unrecorded = self.blocks_total - self.blocks_recorded
        return recorded + unrecorded * low, recorded + unrecorded * high

    def unmodelled_records(self, op_class: str | None = None) -> int:
        """Recorded warp-instructions that could not be simulated (of one ncu class, or all)."""
        return sum(s.executions for s in self.unmodelled if op_class is None or s.op_class == op_class)

    def coverage(self) -> dict[str, Any]:
        """Which recorded shared-memory traffic was simulated and which was not, and why."""
        return {
            "records": self.records,
            "simulated_records": self.records - self.unmodelled_records(),
            "unmodelled_records": self.unmodelled_records(),
            "unmodelled": [
                {"id": s.id, "pc": s.site.pc, "sass": s.site.sass, "file": s.site.file,
                 "line": s.site.line, "op": s.site.op, "width": s.site.width,
                 "class": s.op_class, "records": s.executions, "instructions": s.executions * self.scale,
                 "reason": s.unmodelled}
                for s in self.unmodelled
            ],
            "unrecorded": self.unrecorded(),
        }

    def unrecorded(self) -> list[dict[str, Any]]:
        """Per ncu class, instructions ncu counted beyond what the trace predicts (traffic the tracer
        did not record, e.g. an instruction class it does not see); empty without counters."""
        if self.measured is None or not self.traced:
            return []
        rows = []
        for op_class in CLASSES:
            measured = self.measured[op_class].instructions
            predicted = self.predicted[op_class].instructions
            if measured - predicted >= 0.5 and not self.unmodelled_records(op_class):
                rows.append({"class": op_class, "measured_instructions": measured,
                             "predicted_instructions": predicted, "missing": measured - predicted})
        return rows

    @property
    def has_conflicts(self) -> bool:
        return any(stats.excess > 0 for stats in self.sites)

    @property
    def traced(self) -> bool:
        """False for a launch that was only profiled: counters but no sites to predict from."""
        return bool(self.sites or self.unmodelled)

    def totals(self) -> dict[str, float | None]:
        """Sums over all sites of the recorded records; cycles are None when a site has no cycle model."""
        cycles = [s.cycles for s in self.sites]
        return {
            "executions": sum(s.executions for s in self.sites),
            "wavefronts": sum(s.wavefronts for s in self.sites),
            "ideal": sum(s.ideal for s in self.sites),
            "excess": sum(s.excess for s in self.sites),
            "conflicts": sum(s.conflicts for s in self.sites),
            "cycles": None if None in cycles else sum(cycles),
        }

    def comparisons(self) -> list[Comparison]:
        """Measured against predicted for every class either side counts, with explanations."""
        return self._comparisons

    # --- source-line view and measured conflicts (for `bankism analyze`'s default table and headline) ---

    def lines(self) -> list[LineStats]:
        """The sites grouped by source line and op, in order of first appearance (``group_by_line``)."""
        return group_by_line(self.sites)

    @property
    def measured_conflicts(self) -> dict[str, int] | None:
        """ncu's bank conflicts per class (ld, st, atom; ldgsts when measured), or None without counters."""
        if self.measured is None:
            return None
        return {c: int(self.measured[c].conflicts) for c in self.classes if c in self.measured}

    def conflicts_explained(self) -> bool | None:
        """Whether every measured conflict is accounted for by the model (``verdict.conflicts_explained``)."""
        return self._conflicts_explained

    def unexplained_surplus(self) -> list[str]:
        """The classes whose measured surplus the launch's traffic does not account for
        (``verdict.unexplained_surplus``)."""
        return unexplained_surplus(self)

    def agrees(self) -> bool | None:
        """Whether every judged counter is within TOLERANCE; None without counters or without sites."""
        return self._agrees

    def surplus_estimates(self) -> dict[str, SurplusEstimate | None]:
        """Per ncu class, the expected whole-kernel surplus from the launch's traffic counters
        (``analyze.surplus``), or None where it cannot be estimated (no traffic counters; a CAS loop)."""
        return self._surplus

    def _estimate_surplus(self) -> dict[str, SurplusEstimate | None]:
        out: dict[str, SurplusEstimate | None] = {}
        # cp.async's global reads (sectors of 32 bytes, as its lanes' bytes): L1 fills that cause no surplus
        cp_async = self.scale * sum(s.lanes * s.site.width / SECTOR_BYTES
                                    for s in self.sites if s.site.op == "ldgsts")
        warps = -(-self.launch.threads_per_block // LANES)  # a site run by fewer per block is partial
        for op_class in self.classes:
            sites = [s for s in self.sites if s.op_class == op_class]
            if any(s.atomic_op == "cas_spin" for s in sites):
                out[op_class] = None
                continue
            loads = [SiteLoad(s.executions * self.scale, s.wavefronts * self.scale,
                              s.lanes / s.executions if s.executions else 0.0, s.site.phase,
                              *site_coverage(s.fill_units, s.store_units, s.wavefronts, s.executions,
                                             self.arch),
                              s.executions / (warps * self.blocks_recorded) if self.blocks_recorded else 0.0)
                     for s in sites]
            out[op_class] = estimate(op_class, loads, self.launch.traffic, self.blocks_total, self.arch,
                                     self.launch.threads_per_block, cp_async, self.launch.shared_bytes)
        return out

    def sampling_advice(self) -> str | None:
        """How to record a block-sampled launch whose instruction counts miss ncu's (``analyze.sampling``)."""
        return sampling_advice(self)

    @property
    def scaling_broken(self) -> bool:
        """A block-sampled launch whose scaled instruction counts miss ncu's: no scaled count is judged."""
        return self.sampling_advice() is not None

    def scaling_note(self) -> str:
        """How the prediction covers the whole launch."""
        if not self.scaled:
            return f"all {self.blocks_total} blocks recorded: no scaling"
        return (f"{self.blocks_recorded} of {self.blocks_total} blocks recorded: predictions scaled "
                f"by {self.blocks_total}/{self.blocks_recorded} = {self.scale:.4g}")

    def fix(self) -> tuple[LaunchFix | None, str | None]:
        """What removing the launch's conflicts saves in time (``bankism.timing``, docs/time.md), or (None,
        why it cannot be said: no time block, nothing traced)."""
        if not self.traced:
            return None, "profiled only: the trace holds no sites to predict from"
        time, why = launch_time(self.launch.json)
        if time is None:
            return None, why
        sites = [SiteExcess(s.id, s.site.file, s.site.line, s.excess * self.scale) for s in self.sites]
        return launch_fix(time, sites, self.measured), None

    def to_json(self) -> dict[str, Any]:
        launch = self.launch
        fix, fix_missing = self.fix()
        return {
            "index": self.index, "kernel": self.kernel, "mangled": launch.mangled,
            "grid": list(launch.grid), "block": list(launch.block),
            "shared_bytes": {"static": launch.shared_static, "dynamic": launch.shared_dynamic},
            "blocks_total": self.blocks_total,
            "blocks_recorded": self.blocks_recorded, "scale": self.scale, "records": self.records,
            "recorded": {c: counts.to_json() for c, counts in self.recorded.items()},
            "predicted": {c: self.predicted[c].rounded() for c in self.classes},
            "measured": None if self.measured is None else {c: v.to_json() for c, v in self.measured.items()},
            "comparison": [c.to_json() for c in self.comparisons()],
            "agrees": self.agrees(),
            "has_conflicts": self.has_conflicts,
            "totals": self.totals(),
            "sites": [s.to_json() for s in self.sites],
            "lines": [line.to_json() for line in self.lines()],
            "measured_conflicts_explained": self.conflicts_explained(),
            "sampling": self.sampling_advice(),
            "surplus": {c: None if e is None else {"expected": e.expected, "band": e.band, "quiet": e.quiet,
                                                  "cause": e.cause, "tile_ceiling": e.ceiling,
                                                  "ceiling_cause": e.ceiling_cause if e.ceiling else None}
                        for c, e in self.surplus_estimates().items()},
            "unrecorded_shared": None if launch.unrecorded_shared is None else list(launch.unrecorded_shared),
            "coverage": self.coverage(),
            "async": launch.async_events,
            "async_notes": async_notes(self.launch.async_events),
            "distributed_shared": list(launch.distributed_shared),
            "distributed_notes": distributed_notes(launch.distributed_shared),
            "fix": None if fix is None else fix.to_json(),
            "fix_missing": fix_missing,
        }


@dataclass
class TraceReport:
    """The analysis of a whole trace."""

    trace: str
    arch: str
    environment: dict[str, Any]
    launches: list[LaunchReport]

    @property
    def has_conflicts(self) -> bool:
        return any(launch.has_conflicts for launch in self.launches)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": REPORT_FORMAT, "version": REPORT_VERSION, "bankism": __version__,
            "trace": self.trace, "arch": self.arch, "environment": self.environment,
            "tolerance": {**{m: {"surplus": a.surplus, "deficit": a.deficit} for m, a in TOLERANCE.items()},
                          "conflicts": CONFLICTS_RULE},
            "has_conflicts": self.has_conflicts,
            "launches": [launch.to_json() for launch in self.launches],
        }


def _recorded_counts(sites: list[SiteStats], classes: tuple[str, ...]) -> Counts:
    """Per ncu class, the sums of the sites' recorded counts, instructions counted the way ncu counts them."""
    sums = {c: [0, 0, 0, 0, 0] for c in classes}
    for stats in sites:
        totals = sums[stats.op_class]
        if stats.site.op in COUNTED_AS_INSTRUCTIONS:
            totals[0] += stats.executions
        totals[1] += stats.wavefronts
        totals[2] += stats.conflicts
        if stats.site.op in COUNTED_AS_ADDRESSED:
            totals[3] += stats.wavefronts
        if stats.site.op in COUNTED_AS_ADDRESSED_MATRIX:
            totals[4] += stats.wavefronts
    return {c: Counters(*values[:3], addressed=values[3] if c in CLASSES else None,
                        addressed_matrix=values[4] or None)
            for c, values in sums.items()}


#: Deprecated: ``TraceReport``'s first name, kept for scripts (``bankism.Report`` is review's, another thing).
Report = TraceReport


def distributed_notes(entries: Sequence[Mapping[str, Any]]) -> list[str]:
    """What a launch did in other blocks' shared memory (a cluster's distributed shared memory): each such
    instruction is served by the other block's SM, not by this one's banks, so it is not simulated."""
    return [f"{entry['op']} at pc {entry['pc']} ({entry.get('sass')}"
            f"{', line ' + str(entry['line']) if entry.get('line') else ''}): {entry['executions']:,} "
            f"warp-instruction(s), {entry['lanes']:,} lanes, in another block's shared memory "
            "(distributed shared memory of a thread-block cluster), not simulated"
            for entry in entries]


def async_notes(block: Mapping[str, Any] | None) -> list[str]:
    """What a launch's ``async`` block says the tracer saw but bankism did not simulate.

    Bulk copies and wgmma operand reads are recorded as events, without per-lane addresses, so their
    wavefronts are not predicted. (Instructions the tracer cannot record at all, such as TMA tensor copies,
    are in the launch's ``unrecorded_shared``.)
    """
    block = block or {}
    notes = []
    for copy in block.get("bulk_copies", []):
        notes.append(f"cp.async.bulk at pc {copy['pc']} ({copy.get('sass')}): {copy['executions']} "
                     f"execution(s), {copy['bytes']:,} bytes into shared memory, not simulated "
                     "(no per-lane addresses)")
    for mma in block.get("wgmma", []):
        notes.append(f"wgmma at pc {mma['pc']} ({mma.get('sass')}): {mma['executions']} execution(s) reading "
                     f"{mma['a_bytes'] + mma['b_bytes']:,} operand bytes from shared memory, not simulated "
                     "(counted by ncu under op_gmma)")
    return notes

