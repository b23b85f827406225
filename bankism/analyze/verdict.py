"""The verdict: measured ncu counters against the prediction, with the tolerance and the explanations.

The agreement table (``TOLERANCE``) and the conflict rule were set from the H100 measurements in
traces/surplus (docs/rules.md, "Whole kernels"); ``comparisons`` judges one launch's counters with them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from bankism.analyze.model import METRICS, Counts, SiteStats, address_level
from bankism.analyze.sampling import within_range
from bankism.analyze.surplus import SurplusEstimate
from bankism.isa import is_bypass_ldgsts
from bankism.trace.views import Launch


class JudgedLaunch(Protocol):
    """What the verdict reads of one launch's report (``report.LaunchReport`` has it all)."""

    sites: list[SiteStats]
    unmodelled: list[SiteStats]
    measured: Counts | None
    blocks_recorded: int
    launch: Launch

    @property
    def blocks_total(self) -> int: ...
    @property
    def scale(self) -> float: ...
    @property
    def scaled(self) -> bool: ...
    @property
    def classes(self) -> tuple[str, ...]: ...
    @property
    def predicted(self) -> Counts: ...
    @property
    def traced(self) -> bool: ...
    @property
    def measured_conflicts(self) -> dict[str, int] | None: ...
    @property
    def scaling_broken(self) -> bool: ...
    def unmodelled_records(self, op_class: str | None = None) -> int: ...
    def instruction_range(self, op_class: str) -> tuple[float, float] | None: ...
    def surplus_estimates(self) -> dict[str, SurplusEstimate | None]: ...
    def sampling_advice(self) -> str | None: ...


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
#: measured (the largest whole-kernel surplus of the first experiment was 12.1%). A launch with traffic
#: counters is judged instead against its expected surplus and band (``analyze.surplus``). Conflicts
#: are judged by ``conflicts_agree``: the surplus wavefronts are surplus conflicts.
TOLERANCE: dict[str, Allowance] = {
    "instructions": Allowance(surplus=0.0),
    "wavefronts": Allowance(surplus=0.15),
}

CONFLICTS_RULE = "measured - predicted conflicts = measured - predicted wavefronts"
#: What a class's surplus is when ncu's own address-level count equals the prediction.
BEYOND_ADDRESSES = "beyond the addresses (ncu's own address-level count equals the prediction)"
#: What shared atomic wavefronts with no instruction, address or bank conflict behind them come from, as
#: measured (traces/surplus/sm_90_printf_atom.json).
PRINTF_CAUSE = ("not bank conflicts: device-side printf, which ncu counts as 4-5 shared atomic wavefronts "
                "per warp and call, with no instruction and no conflict (hw/surplus/printf_atom.cu)")
#: The other measured source of such wavefronts: atomics in another block's shared memory of a thread-block
#: cluster (distributed shared memory; hw/cluster/dsmem.cu, device run 13: 1,056 remote atomic
#: warp-instructions, 1,056 atom wavefronts, no instruction, address or conflict).
CLUSTER_CAUSE = ("atomics in another block's shared memory (distributed shared memory of a thread-block "
                 "cluster), which ncu counts as one shared atomic wavefront per warp-instruction, with no "
                 "instruction, address or conflict (hw/cluster/dsmem.cu)")
#: The ncu metric family behind a class's measured ``addressed`` count (capture.ncu.ADDRESSED_METRICS).
ADDRESSED_NAME = "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_<class>"
#: The same with the matrix ops' count added (``addressed_matrix``: op_ldsm for ld, op_stsm for st).
ADDRESSED_MATRIX_NAME = f"{ADDRESSED_NAME} plus its op_ldsm/op_stsm twin"


def conflicts_agree(conflict_surplus: float, wavefront_surplus: float, slack: float = 0.5) -> bool:
    """Measured on the H100 (docs/rules.md): ncu counts every whole-kernel surplus wavefront as a conflict."""
    return abs(conflict_surplus - wavefront_surplus) <= slack


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


def comparisons(report: JudgedLaunch) -> list[Comparison]:
    """Measured against predicted for every class either side counts, with explanations."""
    if report.measured is None:
        return []
    rows = []
    predicted = report.predicted
    estimates = report.surplus_estimates() if report.traced else {}
    for op_class in report.classes:
        if op_class not in report.measured:
            continue
        measured = report.measured[op_class]
        if not any(measured.values()) and not any(predicted[op_class].values()):
            continue
        for metric in METRICS:
            allowance = TOLERANCE.get(metric)
            value, guess = int(measured[metric]), predicted[op_class][metric]
            ok = allowance.admits(value, guess) if allowance and report.traced else None
            missing = report.unmodelled_records(op_class)
            if missing:
                sites = ", ".join(str(s.id) for s in report.unmodelled if s.op_class == op_class)
                rows.append(Comparison(op_class, metric, value, guess, None, (
                    f"not judged: {missing} recorded warp-instruction(s) at site(s) {sites} could not be "
                    f"simulated, so the prediction lacks their {metric} (see coverage)")))
                continue
            span = sampled_span(report, op_class, guess)
            if span is not None and metric == "instructions":
                ok = within_range(report, op_class, value)
            elif span is not None and metric == "wavefronts" and allowance is not None:
                ok = allowance.admits(value, min(max(value, span[0]), span[1]))
            found = estimates.get(op_class)
            if metric == "wavefronts" and found is not None:
                nearest = guess if span is None else min(max(value - found.expected, span[0]), span[1])
                ok = None if report.scaling_broken else found.admits(value, nearest)
            if metric == "wavefronts" and addressed_matches(report, op_class) and value >= guess - 0.5:
                ok = True  # ncu's own address-level count confirms the rules: what is left is the surplus
            if metric == "conflicts" and report.traced:
                wavefronts = measured.wavefronts
                slack = TOLERANCE["wavefronts"].surplus * wavefronts if report.scaled else 0.5
                ok = conflicts_agree(value - guess, wavefronts - predicted[op_class].wavefronts, slack)
                ok = ok or uncounted_atomic_surplus(report, op_class)
            why = (explain_difference(report, op_class, metric, value, guess) if report.traced
                   else "profiled only: the trace holds no sites or records for this launch")
            caveat = ldgsts_caveat(report.sites, metric) if op_class == "ldgsts" and report.traced else None
            if caveat:
                ok, why = None, f"{why}; not judged: {caveat}"
            rows.append(Comparison(op_class, metric, value, guess, ok, why))
        addressed = addressed_comparison(report, op_class)
        if addressed is not None:
            rows.append(addressed)
    return rows


def sampled_span(report: JudgedLaunch, op_class: str, guess: float) -> tuple[float, float] | None:
    """For a block-sampled launch: the range a scaled count ``guess`` of a class may take if every
    unrecorded block works like the least or the most busy recorded one (``instruction_range``, the same
    wavefronts per instruction); None where the launch is not sampled or the blocks were not tallied."""
    span = report.instruction_range(op_class)
    instructions = report.predicted[op_class].instructions
    if span is None or instructions <= 0:
        return None
    return guess * span[0] / instructions, guess * span[1] / instructions


def measured_surplus(report: JudgedLaunch, op_class: str) -> float:
    """Measured minus predicted wavefronts of a class."""
    return report.measured[op_class].wavefronts - report.predicted[op_class].wavefronts  # type: ignore[index]


def uncounted_atomic_cause(report: JudgedLaunch) -> str | None:
    """What the kernel's SASS allows as the cause of atomic wavefronts with no instruction, address or
    conflict: device printf (a runtime call), distributed shared memory (a cluster barrier), either one
    when the SASS is unknown (``unrecorded_shared`` None); None when its SASS has neither."""
    listed = report.launch.unrecorded_shared
    if listed is None:
        return f"{PRINTF_CAUSE}; or {CLUSTER_CAUSE}"
    opcodes = [str(entry.get("sass") or "") for entry in listed]
    printf = any(op.startswith("CALL.ABS") for op in opcodes)
    cluster = any(op.startswith("UCGABAR") for op in opcodes)
    if printf and cluster:
        return f"{PRINTF_CAUSE}; or {CLUSTER_CAUSE}"
    return PRINTF_CAUSE if printf else f"not bank conflicts: {CLUSTER_CAUSE}" if cluster else None


def uncounted_atomic_surplus(report: JudgedLaunch, op_class: str) -> bool:
    """Atomic wavefronts beyond the addresses that ncu counts as no bank conflict, in a kernel whose SASS
    allows a measured cause (``uncounted_atomic_cause``: device printf, distributed shared memory). The
    rules are confirmed (the address-level count and the conflicts equal)."""
    if op_class != "atom" or report.measured is None or not addressed_matches(report, op_class):
        return False
    if uncounted_atomic_cause(report) is None:
        return False
    measured, predicted = report.measured[op_class], report.predicted[op_class]
    conflicts_equal = abs(measured.conflicts - predicted.conflicts) < 0.5
    return conflicts_equal and measured.wavefronts - predicted.wavefronts >= 0.5


def addressed_matches(report: JudgedLaunch, op_class: str) -> bool:
    """Whether ncu's SASS-instrumented address-level wavefronts of a class equal the prediction's."""
    if report.measured is None or op_class not in report.measured or report.unmodelled_records(op_class):
        return False
    pair = address_level(report.measured[op_class], report.predicted[op_class])
    return pair is not None and abs(pair[0] - pair[1]) < 0.5


def addressed_comparison(report: JudgedLaunch, op_class: str) -> Comparison | None:
    """ncu's own address-level count of a class (``addressed``) against the rules', exact; None without it.

    It leaves out what the whole kernel adds on top (the surplus), so a rule or tracer fault shows here
    even when the hardware counter's surplus would hide it.
    """
    pair = None if report.measured is None or op_class not in report.measured else \
        address_level(report.measured[op_class], report.predicted[op_class])
    if pair is None or not report.traced:
        return None
    value, guess = int(pair[0]), pair[1]
    name = ADDRESSED_NAME if report.measured[op_class].addressed_matrix is None else ADDRESSED_MATRIX_NAME
    scaled = f" (scaled x{report.scale:.4g} from {report.blocks_recorded} of {report.blocks_total} blocks)" \
        if report.scaled else ""
    missing = report.unmodelled_records(op_class)
    if missing:
        return Comparison(op_class, "addressed", value, guess, None, (
            f"not judged: {missing} recorded warp-instruction(s) could not be simulated (see coverage)"))
    if addressed_matches(report, op_class):
        return Comparison(op_class, "addressed", value, guess, True, (
            f"match{scaled}: ncu's own count of the wavefronts the addresses need (SASS-instrumented, "
            f"{name}) equals the rules'"))
    if report.scaled:
        advice = report.sampling_advice()
        return Comparison(op_class, "addressed", value, guess, None, advice or (
            f"not judged{scaled}: blocks whose addresses depend on data need different wavefronts; "
            "record every block (`bankism record --blocks all`) for an exact check"))
    return Comparison(op_class, "addressed", value, guess, False, (
        f"the rules' wavefronts differ from ncu's own address-level count by {value - guess:+.0f}: a rule "
        "or the trace is wrong here (no whole-kernel surplus enters this count), or the program's data "
        "differed between the traced run and the profiled one (`record` runs it under the tracer, then "
        "under ncu: input drawn from the clock, as `srand(time(NULL))` does, changes data-dependent "
        "addresses such as a histogram's)"))


def explain_difference(report: JudgedLaunch, op_class: str, metric: str, measured: int,
                       predicted: float) -> str:
    """Why one counter of one launch differs from the prediction (or "match"), in one phrase."""
    scaled = f" (scaled x{report.scale:.4g} from {report.blocks_recorded} of {report.blocks_total} blocks)" \
        if report.scaled else ""
    difference = measured - predicted
    if abs(difference) < 0.5 and metric == "conflicts" and uncounted_atomic_surplus(report, op_class):
        surplus = measured_surplus(report, op_class)
        return f"match{scaled}; the {surplus:.0f} surplus wavefronts are {uncounted_atomic_cause(report)}"
    if abs(difference) < 0.5:
        return f"match{scaled}"
    share = f"{abs(difference) / measured:.2%} of measured" if measured else "none measured"
    if metric == "instructions":
        advice = report.sampling_advice()
        if advice:
            return advice
        if within_range(report, op_class, measured):
            span = report.instruction_range(op_class)
            return (f"within what blocks like the recorded ones may issue{scaled}: {span[0]:,.0f} to "
                    f"{span[1]:,.0f}, the unrecorded blocks issuing as many as the least to the most busy "
                    "recorded block; the recorded blocks do unequal work (e.g. a grid-stride loop's last "
                    "lap)")
        if difference > 0:
            return (f"ncu counted {difference:.0f} more {op_class} instructions than the trace predicts"
                    f"{scaled}: warp-instructions the trace lacks ("
                    + ("unrecorded blocks doing more than the recorded ones, or " if report.scaled else "")
                    + "accesses the tracer did not see, or ops ncu files under a different class)")
        return (f"the trace predicts {-difference:.0f} more {op_class} instructions than ncu counted"
                f"{scaled}: "
                + ("the recorded blocks do more than the average block, or " if report.scaled else "")
                + "ncu files some of these ops under a different class")
    counted = report.measured[op_class].instructions
    instructions_match = (abs(counted - report.predicted[op_class].instructions) < 0.5
                          or within_range(report, op_class, counted))
    cause = "" if instructions_match else "; instruction counts differ too, see above"
    found = report.surplus_estimates().get(op_class)
    beyond = f"{BEYOND_ADDRESSES}: " if addressed_matches(report, op_class) and difference > 0 else ""
    if metric == "wavefronts" and uncounted_atomic_surplus(report, op_class):
        why = uncounted_atomic_cause(report)
        return f"{beyond}surplus {difference:.0f} wavefronts ({share}), {why}{scaled}{cause}"
    if metric == "wavefronts" and found is not None:
        verdict = "" if found.admits(measured, predicted) else (
            "; outside the band: the launch's traffic does not account for it (not explained)")
        return f"{beyond}{found.describe(measured, predicted)}{verdict}{scaled}{cause}"
    if metric == "conflicts" and difference > 0:
        wavefronts = report.measured[op_class].wavefronts, report.predicted[op_class].wavefronts
        if conflicts_agree(difference, wavefronts[0] - wavefronts[1]):
            explained = found is None or found.admits(*wavefronts)
            why = surplus_cause(op_class, found, report.sites, explained)
            if found is not None and explained and not found.within_band(*wavefronts):
                why = found.ceiling_cause  # above the band, under what the probes measured for such blocks
            return (f"the {difference:.0f} surplus wavefronts, all counted as bank conflicts: {beyond}"
                    f"{why}{scaled}{cause}")
    if difference > 0:
        return (f"{beyond}measured whole-kernel surplus of {difference:.0f} {metric} ({share}) over the "
                f"prediction{scaled}{cause}")
    return f"prediction exceeds the measurement by {-difference:.0f} {metric} ({share}){scaled}{cause}"


def surplus_cause(op_class: str, found: SurplusEstimate | None, sites: list[SiteStats],
                  explained: bool = True) -> str:
    """What a class's surplus conflicts come from, as far as it was measured (docs/rules.md)."""
    if not explained:
        return "not explained (outside the band of the surplus the launch's traffic leads to expect)"
    if found is not None:
        return found.cause if found.expected > 0 else "not explained (the traffic leaves no room for a cause)"
    if any(s.atomic_op == "cas_spin" for s in sites if s.op_class == op_class):
        return "not explained (a CAS retry loop's ATOMS.CAST.SPIN; no cause was measured for it)"
    return ("contention with other L1 traffic, measured for loads, stores and native atomics (docs/rules.md, "
            "whole kernels); no traffic counters in the trace to estimate it (re-profile: bankism profile)")


def conflicts_explained(report: JudgedLaunch) -> bool | None:
    """Whether every measured conflict is accounted for by the model (predicted conflicts plus the
    L1-contention surplus the conflict rule admits); None without counters. A launch that was only
    profiled has nothing to explain its conflicts with."""
    measured = report.measured_conflicts
    if measured is None:
        return None
    if not report.traced:
        return not any(measured.values())
    judged: dict[str, bool] = {}
    for row in report.comparisons():
        if row.metric in ("conflicts", "wavefronts") and row.within_tolerance is False:
            judged[row.op_class] = False
    return all(judged.get(c, True) for c in measured if measured[c])


def unexplained_surplus(report: JudgedLaunch) -> list[str]:
    """The classes whose measured surplus the launch's traffic does not account for (outside the band of
    its estimate, or a class without a measured cause), in class order."""
    if report.measured is None or not report.traced:
        return []
    out = []
    estimates = report.surplus_estimates()
    for op_class in report.classes:
        if op_class not in report.measured:
            continue
        surplus = report.measured[op_class].wavefronts - report.predicted[op_class].wavefronts
        if surplus < 0.5:
            continue
        found = estimates.get(op_class)
        measured = report.measured[op_class].wavefronts
        if uncounted_atomic_surplus(report, op_class):
            outside = False  # device printf's or distributed shared memory's (uncounted_atomic_cause)
        elif found is None:
            spin = any(s.atomic_op == "cas_spin" for s in report.sites if s.op_class == op_class)
            outside = spin  # a CAS loop's surplus has no measured cause
        else:
            outside = not found.admits(measured, report.predicted[op_class].wavefronts)
        if outside:
            out.append(op_class)
    return out


def agrees(report: JudgedLaunch) -> bool | None:
    """Whether every judged counter is within TOLERANCE; None without counters or without sites."""
    if report.measured is None or not report.traced:
        return None
    return all(c.within_tolerance for c in report.comparisons() if c.within_tolerance is not None)


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

