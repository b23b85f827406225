"""From a trace to a report: wavefronts, conflicts and cycles per instruction site, and ncu agreement.

Pure computation, no printing: ``analyze(trace)`` streams each launch's records in chunks, runs
``bankism.simulate`` once per site and chunk on an (N, 32) batch, and sums per site. Launches that
recorded a subset of their blocks are scaled by blocks_total / blocks recorded to predict the whole
launch, which is what the measured ncu counters cover. ``docs/analyze.md`` documents the output.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bankism.arch import MATRIX_OPS, NCU_CLASSES, NCU_COUNTER_OF_OP, NCU_OPTIONAL_CLASSES, get_arch
from bankism.engine import AddressError, Kind, KindTotals, engine_threads, simulate_many
from bankism.errors import BankismError
from bankism.isa import (  # noqa: F401 (ATOMIC_SASS, DEFAULT_ATOMIC_OP, atomic_op_of_sass re-exported)
    ATOMIC_SASS,
    DEFAULT_ATOMIC_OP,
    atomic_op_of_sass,
    is_bypass_ldgsts,
    unmodelled_reason,
)
from bankism.trace import RecordChunk, Trace, blocks_recorded_count, window_end
from bankism.trace.validate import address_error, site_slots
from bankism.trace.views import Launch, Site
from bankism.version import __version__

REPORT_FORMAT = "bankism-analysis"
REPORT_VERSION = 1

#: Records read and simulated per chunk, so memory stays flat whatever the trace size. Measured on a
#: 2-million-record npz trace: peak RSS 243 MB at 1 << 16 (140 MB once the engine is loaded), against
#: 495 MB at 1 << 18 for a few percent less time.
ANALYZE_CHUNK = 1 << 16

#: Which ncu counter family (op_ld, op_st, op_atom) counts the wavefronts and conflicts of each op.
OP_CLASS = NCU_COUNTER_OF_OP

#: The ops whose executions ``smsp__sass_inst_executed_op_shared_<class>`` counts. Measured on the H100
#: (traces/probes): an ldmatrix counts under op_ld for wavefronts and conflicts but its instruction only
#: in smsp__sass_inst_executed_op_ldsm; a stmatrix counts under op_st for wavefronts and conflicts and
#: its instruction in no per-op metric.
COUNTED_AS_INSTRUCTIONS = frozenset({"load", "store", "atomic", "ldgsts"})
CLASSES = NCU_CLASSES
#: Counter classes a launch has only when a site or its counters use them: cp.async's ``ldgsts``.
OPTIONAL_CLASSES = NCU_OPTIONAL_CLASSES

#: The engine's atomic instruction for each ATOMS opcode is ``isa.ATOMIC_SASS`` (every entry measured on
#: the H100). A site the engine cannot model (unknown opcode, no rule for its kind) is not simulated:
#: ``LaunchReport.unmodelled`` lists it with its recorded count and the reason.
METRICS = ("instructions", "wavefronts", "conflicts")


@dataclass(frozen=True)
class Allowance:
    """How far a measured counter may sit from the prediction, as fractions of the measured value.

    ``surplus``: measured may exceed predicted by up to this fraction of measured.
    ``deficit``: measured may fall short of predicted by up to this fraction of measured.
    """

    surplus: float
    deficit: float = 0.0

    def admits(self, measured: float, predicted: float) -> bool:
        """Whether ``measured`` agrees with ``predicted`` under this allowance."""
        slack = 1e-9 * max(1.0, abs(measured))
        difference = measured - predicted
        return -self.deficit * measured - slack <= difference <= self.surplus * measured + slack


#: The one agreement table used by the report and by tests/test_analyze_corpus.py, set from the H100
#: measurements in traces/surplus (docs/rules.md, "Whole kernels"): instruction counts must match
#: exactly; measured wavefronts may exceed the prediction, never fall short, by at most 15% of
#: measured (the largest whole-kernel surplus measured is 12.1%, from L1 contention with global
#: loads). Conflicts are judged by ``conflicts_agree``: the surplus wavefronts are surplus conflicts.
TOLERANCE: dict[str, Allowance] = {
    "instructions": Allowance(surplus=0.0),
    "wavefronts": Allowance(surplus=0.15),
}

CONFLICTS_RULE = "measured - predicted conflicts = measured - predicted wavefronts"


def conflicts_agree(conflict_surplus: float, wavefront_surplus: float, slack: float = 0.5) -> bool:
    """Measured on the H100 (docs/rules.md): ncu counts every whole-kernel surplus wavefront as a conflict."""
    return abs(conflict_surplus - wavefront_surplus) <= slack


@dataclass(frozen=True)
class WorstInstruction:
    """The warp-instruction of a site with the most excess wavefronts (then the most wavefronts)."""

    record: int
    block: tuple[int, int, int]
    warp: int
    wavefronts: int
    ideal: int
    active: int
    addresses: np.ndarray = field(repr=False)

    @property
    def excess(self) -> int:
        return self.wavefronts - self.ideal

    def to_json(self) -> dict[str, Any]:
        return {"record": self.record, "block": list(self.block), "warp": self.warp,
                "wavefronts": self.wavefronts, "ideal": self.ideal, "excess": self.excess}


@dataclass
class SiteStats:
    """Sums over the recorded executions of one instruction site."""

    site: Site
    executions: int = 0
    wavefronts: int = 0
    ideal: int = 0
    conflicts: int = 0
    cycles: float | None = 0.0
    worst: WorstInstruction | None = None
    #: Why the engine cannot simulate this site (then only ``executions`` is counted), else None.
    unmodelled: str | None = None

    @property
    def id(self) -> int:
        return self.site.id

    @property
    def op_class(self) -> str:
        return self.site.ncu_class

    @property
    def atomic_op(self) -> str | None:
        return atomic_op_of(self.site)

    @property
    def excess(self) -> int:
        return self.wavefronts - self.ideal

    def to_json(self) -> dict[str, Any]:
        site = self.site
        return {
            "id": self.id, "pc": site.pc, "sass": site.sass, "file": site.file,
            "line": site.line, "op": site.op, "width": site.width,
            "matrices": site.matrices, "atomic_op": self.atomic_op, "class": self.op_class,
            "executions": self.executions,
            "wavefronts": self.wavefronts, "ideal": self.ideal, "excess": self.excess,
            "conflicts": self.conflicts, "cycles": self.cycles,
            "worst": self.worst.to_json() if self.worst else None,
        }


@dataclass(frozen=True)
class Comparison:
    """Measured against predicted for one counter (class and metric) of one launch."""

    op_class: str
    metric: str
    measured: int
    predicted: float
    within_tolerance: bool | None
    explanation: str

    @property
    def difference(self) -> float:
        return self.measured - self.predicted

    def to_json(self) -> dict[str, Any]:
        return {"class": self.op_class, "metric": self.metric, "measured": self.measured,
                "predicted": round(self.predicted), "predicted_exact": self.predicted,
                "difference": self.difference, "within_tolerance": self.within_tolerance,
                "explanation": self.explanation}


Counts = dict[str, dict[str, float]]


@dataclass
class LaunchReport:
    """Everything ``bankism analyze`` says about one kernel launch."""

    launch: Launch
    records: int
    blocks_recorded: int
    sites: list[SiteStats]
    measured: Counts | None
    #: Sites recorded but not simulated (``SiteStats.unmodelled`` says why): only their count is known.
    unmodelled: list[SiteStats] = field(default_factory=list)

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

    @property
    def recorded(self) -> Counts:
        """Per ncu class, the sums over the recorded records (no scaling), counted the way ncu counts."""
        sums: Counts = {c: {m: 0 for m in METRICS} for c in self.classes}
        for stats in self.sites:
            totals = sums[stats.op_class]
            if stats.site.op in COUNTED_AS_INSTRUCTIONS:
                totals["instructions"] += stats.executions
            totals["wavefronts"] += stats.wavefronts
            totals["conflicts"] += stats.conflicts
        return sums

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
            measured = self.measured[op_class]["instructions"]
            predicted = self.predicted[op_class]["instructions"]
            if measured - predicted >= 0.5 and not self.unmodelled_records(op_class):
                rows.append({"class": op_class, "measured_instructions": measured,
                             "predicted_instructions": predicted, "missing": measured - predicted})
        return rows

    @property
    def predicted(self) -> Counts:
        """Per ncu class, the recorded sums scaled to the whole launch (exact, possibly fractional)."""
        return {c: {m: v * self.scale for m, v in metrics.items()} for c, metrics in self.recorded.items()}

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
        if self.measured is None:
            return []
        rows = []
        predicted = self.predicted
        for op_class in self.classes:
            if op_class not in self.measured:
                continue
            measured = self.measured[op_class]
            if not any(measured.values()) and not any(predicted[op_class].values()):
                continue
            for metric in METRICS:
                allowance = TOLERANCE.get(metric)
                value, guess = int(measured[metric]), predicted[op_class][metric]
                ok = allowance.admits(value, guess) if allowance and self.traced else None
                missing = self.unmodelled_records(op_class)
                if missing:
                    sites = ", ".join(str(s.id) for s in self.unmodelled if s.op_class == op_class)
                    rows.append(Comparison(op_class, metric, value, guess, None, (
                        f"not judged: {missing} recorded warp-instruction(s) at site(s) {sites} could not be "
                        f"simulated, so the prediction lacks their {metric} (see coverage)")))
                    continue
                if metric == "conflicts" and self.traced:
                    wavefronts = measured["wavefronts"]
                    slack = TOLERANCE["wavefronts"].surplus * wavefronts if self.scaled else 0.5
                    ok = conflicts_agree(value - guess, wavefronts - predicted[op_class]["wavefronts"], slack)
                why = (self._explain(op_class, metric, value, guess) if self.traced
                       else "profiled only: the trace holds no sites or records for this launch")
                caveat = ldgsts_caveat(self.sites, metric) if op_class == "ldgsts" and self.traced else None
                if caveat:
                    ok, why = None, f"{why}; not judged: {caveat}"
                rows.append(Comparison(op_class, metric, value, guess, ok, why))
        return rows

    # --- source-line view and measured conflicts (for `bankism analyze`'s default table and headline) ---

    def lines(self) -> list[LineStats]:
        """The sites grouped by source line and op, in order of first appearance (``group_by_line``)."""
        return group_by_line(self.sites)

    @property
    def measured_conflicts(self) -> dict[str, int] | None:
        """ncu's bank conflicts per class (ld, st, atom; ldgsts when measured), or None without counters."""
        if self.measured is None:
            return None
        return {c: int(self.measured[c]["conflicts"]) for c in self.classes if c in self.measured}

    def conflicts_explained(self) -> bool | None:
        """Whether every measured conflict is accounted for by the model (predicted conflicts plus the
        L1-contention surplus the conflict rule admits); None without counters. A launch that was only
        profiled has nothing to explain its conflicts with."""
        measured = self.measured_conflicts
        if measured is None:
            return None
        if not self.traced:
            return not any(measured.values())
        judged = {c.op_class: c.within_tolerance for c in self.comparisons() if c.metric == "conflicts"}
        return all(judged.get(c, True) is not False for c in measured if measured[c])

    def agrees(self) -> bool | None:
        """Whether every judged counter is within TOLERANCE; None without counters or without sites."""
        if self.measured is None or not self.traced:
            return None
        return all(c.within_tolerance for c in self.comparisons() if c.within_tolerance is not None)

    def scaling_note(self) -> str:
        """How the prediction covers the whole launch."""
        if not self.scaled:
            return f"all {self.blocks_total} blocks recorded: no scaling"
        return (f"{self.blocks_recorded} of {self.blocks_total} blocks recorded: predictions scaled "
                f"by {self.blocks_total}/{self.blocks_recorded} = {self.scale:.4g}")

    def _explain(self, op_class: str, metric: str, measured: int, predicted: float) -> str:
        scaled = f" (scaled x{self.scale:.4g} from {self.blocks_recorded} of {self.blocks_total} blocks)" \
            if self.scaled else ""
        difference = measured - predicted
        if abs(difference) < 0.5:
            return f"match{scaled}"
        share = f"{abs(difference) / measured:.2%} of measured" if measured else "none measured"
        if metric == "instructions":
            if difference > 0:
                return (f"ncu counted {difference:.0f} more {op_class} instructions than the trace predicts"
                        f"{scaled}: warp-instructions the trace lacks ("
                        + ("unrecorded blocks doing more than the recorded ones, or " if self.scaled else "")
                        + "accesses the tracer did not see, or ops ncu files under a different class)")
            return (f"the trace predicts {-difference:.0f} more {op_class} instructions than ncu counted"
                    f"{scaled}: "
                    + ("the recorded blocks do more than the average block, or " if self.scaled else "")
                    + "ncu files some of these ops under a different class")
        instructions_match = abs(self.measured[op_class]["instructions"]
                                 - self.predicted[op_class]["instructions"]) < 0.5
        cause = "" if instructions_match else "; instruction counts differ too, see above"
        if metric == "conflicts" and difference > 0:
            wavefront_surplus = self.measured[op_class]["wavefronts"] - self.predicted[op_class]["wavefronts"]
            if conflicts_agree(difference, wavefront_surplus):
                return (f"the {difference:.0f} surplus wavefronts, all counted as bank conflicts: L1 "
                        f"contention with global-load traffic (docs/rules.md, whole kernels){scaled}{cause}")
        if difference > 0:
            return (f"measured whole-kernel surplus of {difference:.0f} {metric} ({share}) over the "
                    f"prediction{scaled}{cause}")
        return f"prediction exceeds the measurement by {-difference:.0f} {metric} ({share}){scaled}{cause}"

    def to_json(self) -> dict[str, Any]:
        launch = self.launch
        predicted = self.predicted
        return {
            "index": self.index, "kernel": self.kernel, "mangled": launch.mangled,
            "grid": list(launch.grid), "block": list(launch.block),
            "shared_bytes": {"static": launch.shared_static, "dynamic": launch.shared_dynamic},
            "blocks_total": self.blocks_total,
            "blocks_recorded": self.blocks_recorded, "scale": self.scale, "records": self.records,
            "recorded": self.recorded,
            "predicted": {c: {m: round(v) for m, v in predicted[c].items()} for c in self.classes},
            "measured": self.measured,
            "comparison": [c.to_json() for c in self.comparisons()],
            "agrees": self.agrees(),
            "has_conflicts": self.has_conflicts,
            "totals": self.totals(),
            "sites": [s.to_json() for s in self.sites],
            "lines": [line.to_json() for line in self.lines()],
            "measured_conflicts_explained": self.conflicts_explained(),
            "unrecorded_shared": None if launch.unrecorded_shared is None else list(launch.unrecorded_shared),
            "coverage": self.coverage(),
            "async": launch.async_events,
            "async_notes": async_notes(self.launch.async_events),
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


#: The first name of ``TraceReport``, kept for scripts (review's ``Report`` is another thing).
Report = TraceReport


def ldgsts_caveat(sites: list[SiteStats], metric: str) -> str | None:
    """Why ncu's cp.async wavefronts or conflicts cannot be set against the prediction, or None.

    Measured on the H100 (docs/rules.md, "cp.async"): LDGSTS.BYPASS (cp.async.cg) writes never show in
    the LSU shared-memory counters (0 hardware wavefronts and conflicts whatever the banks), and ncu's
    smsp__sass_ wavefront figure for them does not follow the shared addresses. For LDGSTS (.ca) the rule
    is exact only when each store group reads one global 128-byte line, each lane its own bytes.
    """
    if metric == "instructions":
        return None
    ldgsts = [s for s in sites if s.site.op == "ldgsts"]
    if any(is_bypass_ldgsts(s.site.sass) for s in ldgsts):
        return ("cp.async.cg (LDGSTS.BYPASS) writes bypass the LSU data pipe: the H100 counts no shared "
                "wavefronts or bank conflicts for them, yet they cost time (docs/rules.md, cp.async)")
    scattered = [s.id for s in ldgsts if s.site.source_lines > 1 or s.site.source_repeats]
    if scattered:
        return (f"site(s) {', '.join(map(str, scattered))} read more than one global line per store "
                "group, or the same bytes twice: the prediction is a lower bound there "
                "(docs/rules.md, cp.async)")
    return None


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


# ---------------------------------------------------------------------------------------------
# The source-line view: sites folded by (file, line, op), as Nsight Compute's source view shows them
# ---------------------------------------------------------------------------------------------


@dataclass
class LineStats:
    """The sums of the sites one source line executes with one op (every SASS site folded in)."""

    file: str | None
    line: int | None
    op: str
    sites: list[SiteStats]

    def _sum(self, name: str) -> int:
        return sum(getattr(s, name) for s in self.sites)

    @property
    def executions(self) -> int:
        return self._sum("executions")

    @property
    def wavefronts(self) -> int:
        return self._sum("wavefronts")

    @property
    def ideal(self) -> int:
        return self._sum("ideal")

    @property
    def excess(self) -> int:
        return self._sum("excess")

    @property
    def conflicts(self) -> int:
        return self._sum("conflicts")

    @property
    def cycles(self) -> float | None:
        cycles = [s.cycles for s in self.sites]
        return None if None in cycles else float(sum(cycles))

    @property
    def worst_site(self) -> SiteStats | None:
        """The site holding the line's worst warp-instruction (most excess, then most wavefronts)."""
        ran = [s for s in self.sites if s.worst is not None]
        return max(ran, key=lambda s: (s.worst.excess, s.worst.wavefronts), default=None)

    def to_json(self) -> dict[str, Any]:
        worst = self.worst_site
        return {
            "file": self.file, "line": self.line, "op": self.op, "sites": [s.id for s in self.sites],
            "sass": sorted({s.site.sass or "" for s in self.sites} - {""}),
            "executions": self.executions, "wavefronts": self.wavefronts, "ideal": self.ideal,
            "excess": self.excess, "conflicts": self.conflicts, "cycles": self.cycles,
            "worst": {"site": worst.id, **worst.worst.to_json()} if worst else None,
        }


def group_by_line(sites: list[SiteStats]) -> list[LineStats]:
    """Sites folded by (file, line, op) in order of first appearance; a site without a source line
    stays a row of its own."""
    groups: dict[tuple, LineStats] = {}
    for stats in sites:
        site = stats.site
        file, line = site.file, site.line
        key = (file, line, site.op) if file and line else ("site", stats.id)
        if key not in groups:
            groups[key] = LineStats(file, line, site.op, [])
        groups[key].sites.append(stats)
    return list(groups.values())


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


def atomic_op_of(site: Site | Mapping[str, Any]) -> str | None:
    """The engine atomic_op of an atomic site, from its SASS opcode (``isa.ATOMIC_SASS``); None otherwise."""
    return (site if isinstance(site, Site) else Site.of(site)).atomic_op


def site_kind(site: Site) -> Kind:
    """The engine's instruction kind of a site."""
    return Kind(site.op, site.width, site.matrices, site.atomic_op or DEFAULT_ATOMIC_OP)


def site_unmodelled_reason(site: Site, arch: str) -> str | None:
    """Why the engine cannot simulate ``site`` (unknown opcode, no rule for its kind on ``arch``), or None."""
    reason = unmodelled_reason(site.sass)
    if reason:
        return reason
    width = 16 if site.op in MATRIX_OPS else site.width
    try:
        get_arch(arch).rule(site.op, width, site.atomic_op or DEFAULT_ATOMIC_OP)
    except BankismError as error:
        return str(error)
    return None


class _Batcher:
    """Per launch: the engine kind of each modelled site id, so that one engine call covers a chunk."""

    def __init__(self, stats: dict[int, SiteStats], launch: dict[str, Any], arch: str, label: str) -> None:
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
        self.limit = window_end(launch, arch)

    def add(self, chunk: RecordChunk) -> None:
        """Add one chunk of records to the per-site sums: one engine call for all its modelled sites.

        A site marked ``unmodelled`` only has its executions counted.
        """
        if len(chunk) == 0:
            return
        slot = site_slots(self.sorted_ids, chunk.site)
        counted = np.bincount(slot[slot >= 0], minlength=len(self.ids))
        for k in np.flatnonzero(counted):
            entry = self.stats[self.ids[k]]
            if entry.unmodelled:
                entry.executions += int(counted[k])
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
            raise address_error(self.launch, self.arch, self.label, chunk.start + row, error.lane,
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
               launch: dict[str, Any]) -> None:
    """Add one chunk of records to the per-site sums (one engine call for all modelled sites present)."""
    _Batcher(stats, launch, arch, label).add(chunk)


def _measured(launch: Launch) -> Counts | None:
    counters = launch.counters
    if counters is None:
        return None
    return {c: {m: int(counters[c][m]) for m in METRICS} for c in CLASSES + OPTIONAL_CLASSES if c in counters}


def analyze_launch(
    trace: Trace, launch: dict[str, Any], chunk: int = ANALYZE_CHUNK,
    on_records: Callable[[int], None] | None = None, sites: Iterable[int] | None = None,
) -> LaunchReport:
    """Simulate every recorded warp-instruction of one launch (or of the given sites only) and sum."""
    wanted = None if sites is None else set(sites)
    view = Launch.of(launch)
    stats = {s.id: SiteStats(s, unmodelled=site_unmodelled_reason(s, trace.arch))
             for s in view.sites if wanted is None or s.id in wanted}
    batcher = _Batcher(stats, launch, trace.arch, trace.label(launch))
    count = 0
    for part in trace.chunks(launch, chunk, check_addresses=False):
        batcher.add(part)
        count += len(part)
        if on_records:
            on_records(len(part))
    ordered = sorted(stats.values(), key=lambda s: s.id)
    modelled = [s for s in ordered if not s.unmodelled]
    unmodelled = [s for s in ordered if s.unmodelled]
    return LaunchReport(view, count, blocks_recorded_count(launch), modelled, _measured(view), unmodelled)


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
