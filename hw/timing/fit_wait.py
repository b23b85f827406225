"""Fit the time model's wait exponent a (with p and the DRAM efficiency) and show what it changes.

Fit set, as for p and the efficiency (docs/time.md, "Fitting"): the twelve in-house pairs of traces/timing and
the five public pairs whose fix keeps the instructions and the occupancy. Held out: the three other public
pairs and the twelve of traces/timing/public/heldout_pairs.json. Run from the repository root (20 s):

    python hw/timing/fit_wait.py
"""

from __future__ import annotations

import csv
import itertools
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bankism.analyze import analyze  # noqa: E402
from bankism.timing import Parameters, predict  # noqa: E402
from bankism.trace import load, open_trace  # noqa: E402
from bankism.trace.timeblock import LaunchTime  # noqa: E402

TIMING = ROOT / "traces" / "timing"
IN_HOUSE = ("col32", "quad_fma", "lds64", "lds128", "sts2", "transpose", "transpose64", "mma_ldsm", "wmma",
            "hist", "cpasync", "chase")
PUBLIC_FIT = ("nvblog_transpose", "procuda_transpose", "freshman_transpose", "procuda_square", "bruce_wmma")
GRID = list(itertools.product((0, 0.25, 0.5, 0.75, 1.0), (1.5, 2, 2.5, 3, 4, 6, 12),
                              (0.80, 0.82, 0.84, 0.86, 0.88, 0.90, 0.92, 0.95)))


def pairs() -> list[dict]:
    """Every pair: its conflicting time block, excess wavefronts and measured savings (locked, own clocks)."""
    out = []
    fixed = {launch["kernel"].split("(")[0]: launch["time"]["duration_ns"]
             for launch in load(TIMING / "fixed.json")["launches"]}
    rows = [line for line in (TIMING / "timing.csv").read_text().splitlines() if line.count(",") == 6]
    events = {row["kernel"]: float(row["median_us"]) for row in csv.DictReader(rows)}
    for name in IN_HOUSE:
        fix, _ = analyze(open_trace(TIMING / f"{name}_conflict.json"), threads=1).launches[0].fix()
        time = load(TIMING / f"{name}_conflict.json")["launches"][0]["time"]
        out.append({"pair": name, "fit": True, "time": time, "excess": fix.excess_wavefronts,
                    "locked": 1 - fixed[f"{name}_fixed"] / fix.measured_ns,
                    "own": 1 - events[f"{name}_fixed"] / events[f"{name}_conflict"]})
    documents = [json.loads(p.read_text()) for p in sorted((TIMING / "public").glob("*.json"))
                 if p.name not in ("hunt6_pairs.json", "heldout_pairs.json")]
    documents += json.loads((TIMING / "public" / "heldout_pairs.json").read_text())["pairs"]
    for d in documents:
        m = d["measured"]
        out.append({"pair": d["pair"], "fit": d["pair"] in PUBLIC_FIT, "time": d["time"],
                    "excess": d["excess_wavefronts"],
                    "locked": 1 - m["locked_fixed_ns"] / m["locked_conflicting_ns"],
                    "own": 1 - m["event_fixed_us"] / m["event_conflicting_us"]})
    return out


def errors(pair: dict, parameters: Parameters) -> tuple[float, float]:
    prediction = predict(LaunchTime.of(pair["time"]), pair["excess"], parameters)
    return prediction.saved_fraction - pair["locked"], prediction.application.saved_fraction - pair["own"]


def rms(selected: list[dict], parameters: Parameters) -> float:
    values = [e for p in selected for e in errors(p, parameters)]
    return math.sqrt(sum(v * v for v in values) / len(values))


def main() -> None:
    every = pairs()
    fit = [p for p in every if p["fit"]]
    held = [p for p in every if not p["fit"]]
    ranked = sorted(GRID, key=lambda g: rms(fit, Parameters(g[1], g[2], g[0])))
    for a, norm, efficiency in ranked[:5]:
        parameters = Parameters(norm, efficiency, a)
        print(f"a={a} p={norm} efficiency={efficiency}: fit rms {100 * rms(fit, parameters):.2f} points, "
              f"held out rms {100 * rms(held, parameters):.2f}")
    for a in (0, 0.25, 0.5, 0.75, 1.0):
        parameters = Parameters(3.0, 0.86, a)
        print(f"a={a} (p=3, 0.86): fit rms {100 * rms(fit, parameters):.2f}, held out rms "
              f"{100 * rms(held, parameters):.2f}")
    for pair in fit:  # one pair held out of the fit at a time
        others = [p for p in fit if p is not pair]
        a, norm, efficiency = min(GRID, key=lambda g: rms(others, Parameters(g[1], g[2], g[0])))
        locked, own = errors(pair, Parameters(norm, efficiency, a))
        print(f"held out {pair['pair']}: a={a} p={norm} {efficiency}: {100 * locked:+.1f} / {100 * own:+.1f}")


if __name__ == "__main__":
    main()
