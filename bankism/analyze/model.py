"""The analysis's data: the per-site sums, the worst warp-instruction and the per-line view.

``batching`` fills these; ``report`` gathers them per launch; ``verdict`` judges them against ncu.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bankism.arch import NCU_CLASSES, NCU_COUNTER_OF_OP, NCU_OPTIONAL_CLASSES
from bankism.trace.views import TraceSite

REPORT_FORMAT = "bankism-analysis"
REPORT_VERSION = 1

#: Deprecated: ``arch.NCU_COUNTER_OF_OP``, which ncu counter family counts each op (kept for scripts).
OP_CLASS = NCU_COUNTER_OF_OP

#: The ops whose executions ``smsp__sass_inst_executed_op_shared_<class>`` counts. Measured on the H100
#: (traces/probes): an ldmatrix counts under op_ld for wavefronts and conflicts but its instruction only
#: in smsp__sass_inst_executed_op_ldsm; a stmatrix counts under op_st for wavefronts and conflicts and
#: its instruction in no per-op metric.
COUNTED_AS_INSTRUCTIONS = frozenset({"load", "store", "atomic", "ldgsts"})
#: The ops whose wavefronts ncu's SASS-instrumented ``smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_
#: <class>`` counts (a launch's measured ``addressed``): every op but the matrix ones, which it leaves out
#: (the WMMA HGEMMs of traces/surplus/sm_90_kernels.json: 0 instrumented ld wavefronts for their LDSM).
COUNTED_AS_ADDRESSED = frozenset({"load", "store", "atomic"})
#: The matrix ops, counted by ``..._op_ldsm`` / ``..._op_stsm`` (a launch's measured ``addressed_matrix``):
#: with ``addressed`` they add up to the hardware count's address-level part (traces/surplus/sm_90_matrix_
#: addressed.json: exact on 5 ldmatrix/stmatrix launches).
COUNTED_AS_ADDRESSED_MATRIX = frozenset({"ldmatrix", "stmatrix"})
CLASSES = NCU_CLASSES
#: Counter classes a launch has only when a site or its counters use them: cp.async's ``ldgsts``.
OPTIONAL_CLASSES = NCU_OPTIONAL_CLASSES

#: The counters set against ncu's, per class.
METRICS = ("instructions", "wavefronts", "conflicts")



@dataclass(frozen=True)
class Counters(Mapping[str, float]):
    """The counts of one ncu counter class in one launch: recorded, predicted or measured.

    Also a read-only mapping from the metric names (``METRICS``) to the counts, as ncu's tables name
    them: ``counters["wavefronts"]``, for readers that take any such mapping (``bankism.timing``).
    ``addressed``: the wavefronts the addresses alone need: ncu's SASS-instrumented count when measured
    (None when the trace lacks it), the rule's count of the sites ncu instruments when predicted;
    ``addressed_matrix``: the same for LDSM/STSM, which ncu counts apart (None when not measured, or
    predicted without matrix sites).
    """

    instructions: float = 0
    wavefronts: float = 0
    conflicts: float = 0
    addressed: float | None = None
    addressed_matrix: float | None = None

    def __getitem__(self, metric: str) -> float:
        if metric not in METRICS:
            raise KeyError(metric)
        return getattr(self, metric)

    def __iter__(self) -> Iterator[str]:
        return iter(METRICS)

    def __len__(self) -> int:
        return len(METRICS)

    def scaled(self, factor: float) -> Counters:
        """Every count times ``factor`` (recorded blocks to the whole launch)."""
        addressed, matrix = (None if value is None else value * factor
                             for value in (self.addressed, self.addressed_matrix))
        return Counters(*(value * factor for value in self.values()), addressed=addressed,
                        addressed_matrix=matrix)

    def _optional(self) -> dict[str, float]:
        pairs = (("addressed", self.addressed), ("addressed_matrix", self.addressed_matrix))
        return {name: value for name, value in pairs if value is not None}

    def rounded(self) -> dict[str, int]:
        """The JSON of a prediction: whole counts."""
        out = {metric: round(value) for metric, value in self.items()}
        return {**out, **{name: round(value) for name, value in self._optional().items()}}

    def to_json(self) -> dict[str, float]:
        return {**dict(self.items()), **self._optional()}


def address_level(measured: Counters, predicted: Counters) -> tuple[float, float] | None:
    """ncu's address-level wavefronts of a class and the rules' count of the same sites, or None when ncu's
    was not measured: with ``addressed_matrix`` measured, LDSM/STSM are in both, otherwise in neither."""
    if measured.addressed is None or predicted.addressed is None:
        return None
    if measured.addressed_matrix is None:
        return measured.addressed, predicted.addressed
    return (measured.addressed + measured.addressed_matrix,
            predicted.addressed + (predicted.addressed_matrix or 0.0))


#: Per ncu class (ld, st, atom, ldgsts): its counts.
Counts = dict[str, Counters]



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

    site: TraceSite
    executions: int = 0
    wavefronts: int = 0
    ideal: int = 0
    conflicts: int = 0
    cycles: float | None = 0.0
    worst: WorstInstruction | None = None
    #: Active lanes summed over the recorded executions (``lanes / executions``: the mean per warp).
    lanes: int = 0
    #: Why the engine cannot simulate this site (then only ``executions`` is counted), else None.
    unmodelled: str | None = None
    #: Executions by how many units of the bank row their active lanes touched (index: units), counted in a
    #: launch with traffic counters for the surplus's bank coverage: 32-byte sector groups, 16-byte units.
    fill_units: list[int] = field(default_factory=lambda: [0] * 5)
    store_units: list[int] = field(default_factory=lambda: [0] * 9)

    @property
    def id(self) -> int:
        return self.site.id

    @property
    def op_class(self) -> str:
        return self.site.ncu_class

    @property
    def atomic_op(self) -> str | None:
        return self.site.atomic_op

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


def atomic_op_of(site: TraceSite | Mapping[str, Any]) -> str | None:
    """The engine atomic_op of an atomic site, from its SASS opcode (``isa.ATOMIC_SASS``); None otherwise."""
    return (site if isinstance(site, TraceSite) else TraceSite.of(site)).atomic_op

