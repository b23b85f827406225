"""One launch's answer to "how much faster without the conflicts?": the prediction, ncu's estimate beside
it, and the saving attributed to instruction sites and source lines.

``launch_fix`` takes the per-site excess wavefronts the engine counted (scaled to the whole launch), the
launch's time block and its ncu counters. The saving is shared among the sites in proportion to their
excess wavefronts: every excess wavefront costs the shared pipe the same cycle (docs/rules.md), and the
model (``timing.model``) decides how many of those cycles the launch's duration actually loses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bankism.timing.model import PARAMETERS, Parameters, TimePrediction, predict
from bankism.timing.ncu_rule import rule_estimate, rule_estimates
from bankism.trace.timeblock import LaunchTime


@dataclass(frozen=True)
class SiteExcess:
    """A site's excess wavefronts over the whole launch (recorded excess x the launch's block scale)."""

    id: int
    file: str | None
    line: int | None
    excess: float


@dataclass(frozen=True)
class SiteSaving:
    """The share of the predicted saving that falls to one site (or one source line)."""

    file: str | None
    line: int | None
    excess: float
    saved_ns: float
    sites: tuple[int, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"sites": list(self.sites), "file": self.file, "line": self.line,
                "excess_wavefronts": self.excess, "saved_ns": self.saved_ns}


@dataclass(frozen=True)
class LaunchFix:
    """What removing one launch's bank conflicts saves, measured against predicted, and ncu's estimate."""

    prediction: TimePrediction
    excess_wavefronts: float
    ncu_estimate: float | None
    ncu_rule: Mapping[str, float]
    sites: tuple[SiteSaving, ...]
    parameters: Parameters = field(default=PARAMETERS)

    @property
    def measured_ns(self) -> float:
        return self.prediction.measured_ns

    @property
    def predicted_ns(self) -> float:
        return self.prediction.predicted_ns

    @property
    def saved_fraction(self) -> float:
        return self.prediction.saved_fraction

    @property
    def saved_ns(self) -> float:
        return self.measured_ns - self.predicted_ns

    def lines(self) -> list[SiteSaving]:
        """The saving per source line (sites without a line stay on their own), largest first."""
        grouped: dict[tuple, list[SiteSaving]] = {}
        for site in self.sites:
            key = (site.file, site.line) if site.file and site.line else ("site", site.sites)
            grouped.setdefault(key, []).append(site)
        lines = [SiteSaving(group[0].file, group[0].line, sum(s.excess for s in group),
                            sum(s.saved_ns for s in group), tuple(i for s in group for i in s.sites))
                 for group in grouped.values()]
        return sorted(lines, key=lambda line: -line.saved_ns)

    def to_json(self) -> dict[str, Any]:
        prediction = self.prediction
        application = prediction.application
        caps = prediction.caps
        return {
            "measured_ns": self.measured_ns,
            "predicted_ns": self.predicted_ns,
            "saved_ns": self.saved_ns,
            "saved_fraction": self.saved_fraction,
            "clock_hz": prediction.profiled.clock_hz,
            "clock_control": prediction.clock_control,
            "application": None if application is None else {
                "clock_hz": application.clock_hz, "conflicting_ns": application.conflicting_ns,
                "fixed_ns": application.fixed_ns, "saved_fraction": application.saved_fraction,
            },
            "ncu_estimate": self.ncu_estimate,
            "ncu_rule": dict(self.ncu_rule),
            "bound": prediction.bound,
            "excess_wavefronts": self.excess_wavefronts,
            "caps": {"excess_cycles": caps.excess_cycles, "waiting_cycles": caps.waiting_cycles,
                     "floor_cycles": caps.floor_cycles, "elapsed_cycles": caps.elapsed_cycles,
                     "saved_cycles": caps.saved_cycles, "limit": caps.limit},
            "memory_ns": prediction.memory_ns,
            "l2_hot_slice": None if prediction.hot_slice is None else {
                "busy_pct": prediction.hot_slice.busy_pct, "mean_pct": prediction.hot_slice.mean_pct,
                "saved_fraction_at_most": prediction.hot_slice.saved_fraction_at_most},
            "sites": [{"id": s.sites[0], "file": s.file, "line": s.line, "excess_wavefronts": s.excess,
                       "saved_ns": s.saved_ns} for s in self.sites],
            "lines": [line.to_json() for line in self.lines()],
            "parameters": {"norm": self.parameters.norm,
                           "memory_efficiency": self.parameters.memory_efficiency,
                           "wait_exponent": self.parameters.wait_exponent},
        }


def launch_fix(
    time: LaunchTime, sites: Sequence[SiteExcess], counters: Mapping[str, Mapping[str, float]] | None,
    parameters: Parameters = PARAMETERS,
) -> LaunchFix:
    """The launch's predicted time without its conflicts, attributed to its sites, with ncu's estimate."""
    excess = sum(max(0.0, s.excess) for s in sites)
    prediction = predict(time, excess, parameters)
    saved = prediction.measured_ns - prediction.predicted_ns
    shares = tuple(
        SiteSaving(s.file, s.line, s.excess, saved * s.excess / excess if excess else 0.0, (s.id,))
        for s in sites if s.excess > 0
    )
    known = counters is not None and time.l1_pct is not None
    estimates = rule_estimates(counters, time.l1_pct) if known else {}
    return LaunchFix(prediction, excess, rule_estimate(counters, time.l1_pct), estimates, shares, parameters)
