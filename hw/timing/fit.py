"""Fit and check the time model (bankism/timing/model.py) on the kernel pairs of traces/timing.

For each pair: the measured saving at ncu's locked clocks (the conflicting trace's time block against the
fixed kernel's, traces/timing/fixed.json) and at the GPU's own clocks (cudaEvent medians,
traces/timing/timing.csv); bankism's prediction from the conflicting trace alone; ncu's rule estimate from
the same counters. The model's two parameters are fitted by grid search (root mean square of the errors at
both clocks), on all pairs and with each pair held out in turn.

    python hw/timing/fit.py [--write]     (--write: traces/timing/pairs.json)

Prints the table of docs/time.md.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bankism.analyze import analyze  # noqa: E402
from bankism.timing import PARAMETERS, Parameters, launch_fix  # noqa: E402
from bankism.timing.fix import SiteExcess  # noqa: E402
from bankism.trace import load, open_trace  # noqa: E402
from bankism.trace.timeblock import LaunchTime, launch_time  # noqa: E402

PAIRS = ("col32", "quad_fma", "lds64", "lds128", "sts2", "transpose", "transpose64", "mma_ldsm", "wmma",
         "hist", "cpasync", "chase")
TRACES = ROOT / "traces" / "timing"
NORMS = (1.5, 2.0, 2.5, 3.0, 4.0, 6.0, 12.0)
EFFICIENCIES = tuple(round(0.80 + 0.01 * i, 2) for i in range(16))


@dataclass
class Pair:
    name: str
    time: LaunchTime
    sites: list[SiteExcess]
    counters: dict
    measured_locked: float  # 1 - fixed / conflicting, ncu durations at locked clocks
    measured_event: float  # 1 - fixed / conflicting, cudaEvent medians
    fixed_ns: float
    event_us: tuple[float, float]


def event_medians(path: Path) -> dict[str, float]:
    """kernel -> cudaEvent median (µs) from `pairs time`'s CSV."""
    rows = [line for line in path.read_text().splitlines() if line.count(",") == 6]
    return {row["kernel"]: float(row["median_us"]) for row in csv.DictReader(rows)}


def load_pairs() -> list[Pair]:
    fixed = {launch["kernel"].split("(")[0]: launch for launch in load(TRACES / "fixed.json")["launches"]}
    events = event_medians(TRACES / "timing.csv")
    pairs = []
    for name in PAIRS:
        trace = open_trace(TRACES / f"{name}_conflict.json")
        report = analyze(trace, threads=1).launches[0]
        time, _ = launch_time(trace.launches[0])
        fixed_time, _ = launch_time(fixed[f"{name}_fixed"])
        sites = [SiteExcess(s.id, s.site.file, s.site.line, s.excess * report.scale) for s in report.sites]
        conflicting, fixed_us = events[f"{name}_conflict"], events[f"{name}_fixed"]
        pairs.append(Pair(name, time, sites, report.measured, 1 - fixed_time.duration_ns / time.duration_ns,
                          1 - fixed_us / conflicting, fixed_time.duration_ns, (conflicting, fixed_us)))
    return pairs


def errors(pairs: list[Pair], parameters: Parameters) -> list[float]:
    out = []
    for pair in pairs:
        fix = launch_fix(pair.time, pair.sites, pair.counters, parameters)
        out += [fix.saved_fraction - pair.measured_locked,
                fix.prediction.application.saved_fraction - pair.measured_event]
    return out


def fit(pairs: list[Pair]) -> Parameters:
    """The grid point with the least root mean square error over both clocks."""
    def score(parameters: Parameters) -> float:
        found = errors(pairs, parameters)
        return math.sqrt(sum(e * e for e in found) / len(found))
    grid = [Parameters(n, e) for n, e in itertools.product(NORMS, EFFICIENCIES)]
    return min(grid, key=score)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write traces/timing/pairs.json")
    args = parser.parse_args()
    pairs = load_pairs()
    fitted = fit(pairs)
    print(f"fitted on all pairs: norm {fitted.norm}, memory efficiency {fitted.memory_efficiency} "
          f"(shipped: norm {PARAMETERS.norm}, memory efficiency {PARAMETERS.memory_efficiency})")
    rows = []
    print("| pair | conflicting (locked) | fixed (locked) | measured, locked | bankism | held out | "
          "cudaEvent conflicting / fixed | measured, own clocks | bankism | ncu's rule | bound |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for i, pair in enumerate(pairs):
        fix = launch_fix(pair.time, pair.sites, pair.counters)
        held = fit(pairs[:i] + pairs[i + 1:])
        held_fix = launch_fix(pair.time, pair.sites, pair.counters, held)
        application = fix.prediction.application
        ncu = "none" if not fix.ncu_rule else f"{fix.ncu_estimate:.0%}"
        print(f"| {pair.name} | {pair.time.duration_ns / 1e3:.1f} µs | {pair.fixed_ns / 1e3:.1f} µs | "
              f"{pair.measured_locked:.1%} | {fix.saved_fraction:.1%} | {held_fix.saved_fraction:.1%} | "
              f"{pair.event_us[0]:.1f} / {pair.event_us[1]:.1f} µs | {pair.measured_event:.1%} | "
              f"{application.saved_fraction:.1%} | {ncu} | {fix.prediction.bound} |")
        rows.append({
            "pair": pair.name, "clock_hz": pair.time.sm_clock_hz, "conflicting_ns": pair.time.duration_ns,
            "fixed_ns": pair.fixed_ns, "measured_locked": pair.measured_locked,
            "predicted_locked": fix.saved_fraction, "predicted_locked_held_out": held_fix.saved_fraction,
            "held_out_parameters": {"norm": held.norm, "memory_efficiency": held.memory_efficiency},
            "event_conflicting_us": pair.event_us[0], "event_fixed_us": pair.event_us[1],
            "measured_event": pair.measured_event, "predicted_application": application.saved_fraction,
            "predicted_application_held_out": held_fix.prediction.application.saved_fraction,
            "application_clock_hz": application.clock_hz, "ncu_estimate": fix.ncu_estimate,
            "ncu_rule": fix.ncu_rule, "bound": fix.prediction.bound,
        })
    worst = max(max(abs(r["predicted_locked"] - r["measured_locked"]),
                    abs(r["predicted_application"] - r["measured_event"])) for r in rows)
    worst_held = max(max(abs(r["predicted_locked_held_out"] - r["measured_locked"]),
                         abs(r["predicted_application_held_out"] - r["measured_event"])) for r in rows)
    print(f"largest error: {worst:.1%} (shipped parameters), {worst_held:.1%} (each pair held out)")
    if args.write:
        out = {"parameters": {"norm": PARAMETERS.norm, "memory_efficiency": PARAMETERS.memory_efficiency},
               "fitted": {"norm": fitted.norm, "memory_efficiency": fitted.memory_efficiency}, "pairs": rows}
        (TRACES / "pairs.json").write_text(json.dumps(out, indent=1) + "\n")
        print(f"wrote {TRACES / 'pairs.json'}")


if __name__ == "__main__":
    main()
