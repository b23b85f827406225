#!/usr/bin/env python3
"""Fit the surplus model (bankism.arch SurplusRule) on the sweep and test it on the traced launches.

usage: python hw/surplus/fit_surplus.py      (from the repository root)

Fit: least squares without intercept over the 181 launches of traces/surplus/sm_90_sweep.json (the CAS-loop
configurations left out, and those at or below SurplusRule.min_warps_per_sm), per ncu class: measured minus
address-level wavefronts (the SASS-instrumented count) against exposure x L1 fill sectors and exposure x
global store sectors per SM-cycle, each exposure times the L1 threshold's share and, for one-word
one-wavefront accesses, the bank coverage (runs 14, 19-20). Held out: every traced launch with traffic
counters in traces/surplus/kernels and traces/python/surplus, predicted with bankism.analyze; prints each
one's error in points of measured wavefronts, and per class the largest error (the busy band).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from bankism.analyze import analyze
from bankism.analyze.surplus import evict_share
from bankism.arch import SECTOR_BYTES, get_arch
from bankism.trace.read import open_trace

ROOT = Path(__file__).resolve().parents[2]
CLASSES = ("ld", "st", "atom")
USES = {"ld": (False, True), "st": (True, False), "atom": (True, True)}  # (fills, global stores)


def sweep_rows(rule) -> dict[str, list[tuple[float, float, float, float, str]]]:
    """Per class: (fill exposure, store exposure, surplus, measured, name) of every fitted sweep launch."""
    document = json.loads((ROOT / "traces" / "surplus" / "sm_90_sweep.json").read_text())
    rows: dict[str, list] = {c: [] for c in CLASSES}
    for launch in document["launches"]:
        m = launch["metrics"]
        warps = m["warps_active_percent"] / 100 * rule.max_warps_per_sm
        if launch["kernel"].startswith("fadd") or warps <= rule.min_warps_per_sm:
            continue
        sms = min(132, launch["blocks"])
        cycles = m["sm_cycles"] * sms
        # the L1 threshold (runs 14, 19-20), the bank coverage (runs 19-20): DEG 0 puts every lane on one word
        share = evict_share((m["l1_fill_sectors"] + m["global_store_sectors"]) * SECTOR_BYTES / sms, "sm_90")
        for c in CLASSES:
            executions, addressed = m[f"{c}_instructions"], m[f"{c}_addressed_wavefronts"]
            if not executions or executions < 1000:
                continue
            one_word = launch["deg"] == 0 and addressed == executions
            fill_cover = rule.fill_coverage[1] if one_word else 1.0
            store_cover = rule.store_coverage[1] if one_word else 1.0
            exposure = share * executions * math.sqrt(addressed / executions) / cycles
            rows[c].append(
                (
                    exposure * fill_cover * m["l1_fill_sectors"],
                    exposure * store_cover * m["global_store_sectors"],
                    m[f"{c}_wavefronts"] - addressed,
                    m[f"{c}_wavefronts"],
                    launch["name"],
                )
            )
    return rows


def fit(rows) -> dict[str, tuple[float, float]]:
    out = {}
    for c, data in rows.items():
        fills, stores = USES[c]
        x = np.array([[r[0] if fills else 0.0, r[1] if stores else 0.0] for r in data])
        y = np.array([r[2] for r in data])
        k, *_ = np.linalg.lstsq(x, y, rcond=None)
        out[c] = (float(k[0]), float(k[1]))
    return out


def held_out() -> list[tuple[str, str, float, float, float, bool]]:
    """(trace, class, measured %, expected %, error in points, quiet) of every traced launch with traffic."""
    out = []
    for path in sorted((ROOT / "traces" / "surplus" / "kernels").glob("*.json")) + sorted(
        (ROOT / "traces" / "python" / "surplus").glob("*.json")
    ):
        report = analyze(open_trace(path), threads=1)
        for launch in report.launches:
            if launch.launch.traffic is None or launch.measured is None or launch.scaling_broken:
                continue
            for c, found in launch.surplus_estimates().items():
                measured = launch.measured[c]["wavefronts"]
                if found is None or measured < 100:
                    continue
                surplus = measured - launch.predicted[c]["wavefronts"]
                out.append(
                    (
                        path.stem,
                        c,
                        100 * surplus / measured,
                        100 * found.expected / measured,
                        100 * (found.expected - surplus) / measured,
                        found.quiet,
                    )
                )
    return out


def main() -> None:
    rule = get_arch("sm_90").surplus
    for c, (k_fill, k_store) in fit(sweep_rows(rule)).items():
        print(
            f"{c}: per_fill_sector {k_fill:.3f} per_store_sector {k_store:.3f} "
            f"(arch.py: {rule.per_fill_sector[c]}, {rule.per_store_sector[c]})"
        )
    worst: dict[tuple[str, bool], float] = {}
    within = {c: [0, 0] for c in CLASSES}
    for name, c, measured, expected, error, quiet in held_out():
        print(
            f"{name:24s} {c:4s} measured {measured:6.2f}%  expected {expected:6.2f}%  error {error:+6.2f} "
            f"{'quiet' if quiet else 'busy'}"
        )
        worst[(c, quiet)] = max(worst.get((c, quiet), 0.0), abs(error))
        within[c][0] += abs(error) <= 3
        within[c][1] += 1
    for (c, quiet), e in sorted(worst.items()):
        print(f"largest error {c} {'quiet' if quiet else 'busy'}: {e:.2f} points")
    print("within ±3 points:", {c: f"{a}/{b}" for c, (a, b) in within.items()})


if __name__ == "__main__":
    main()
