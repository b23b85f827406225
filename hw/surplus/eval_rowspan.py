#!/usr/bin/env python3
"""The surplus model as shipped against the rowspan probe (runs 28-32, traces/surplus/sm_90_rowspan.json).

usage: python hw/surplus/eval_rowspan.py      (from the repository root)

Each launch is one load site and one store site whose address-level wavefronts are the SASS-instrumented
counts; every access touches a whole bank row (coverage 1) and every store is ``fed`` (it stores the value
its warp just loaded from global memory). Prints, per launch group, the measured and expected surplus
shares and the error in points of measured wavefronts, then per class how many launches the model puts
within ±3 points. None of these launches was used to fit the model.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from bankism.analyze.surplus import SiteLoad, SurplusEstimate, estimate

ROOT = Path(__file__).resolve().parents[2]
SMS = 132


def estimate_of(launch: dict, op_class: str) -> SurplusEstimate:
    """The shipped estimate of one launch's ``op_class`` surplus: one site, its SASS-instrumented count."""
    m = launch["metrics"]
    executions, addressed = m[f"{op_class}_instructions"], m[f"{op_class}_addressed_wavefronts"]
    site = SiteLoad(executions, addressed, 32.0, "fed" if op_class == "st" else None)
    traffic = {name: m[name] for name in ("l1_fill_sectors", "global_store_sectors", "sm_cycles",
                                          "warps_active_percent")}
    return estimate(op_class, [site], {**traffic, "sm_count": SMS}, launch["blocks"], "sm_90",
                    launch["threads"], shared_per_block=launch["shared_bytes"])


def expected_share(launch: dict, op_class: str) -> tuple[float, float]:
    """(measured %, expected %) of one launch's ``op_class`` surplus, as shares of measured wavefronts."""
    m = launch["metrics"]
    addressed, found = m[f"{op_class}_addressed_wavefronts"], estimate_of(launch, op_class)
    measured = m[f"{op_class}_wavefronts"]
    return 100 * (measured - addressed) / measured, 100 * found.expected / measured


def main() -> None:
    document = json.loads((ROOT / "traces" / "surplus" / "sm_90_rowspan.json").read_text())
    within: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    worst: dict[str, float] = defaultdict(float)
    for launch in document["launches"]:
        cells = []
        for c in ("ld", "st"):
            measured, expected = expected_share(launch, c)
            error = expected - measured
            within[c][0] += abs(error) <= 3
            within[c][1] += 1
            worst[c] = max(worst[c], abs(error))
            cells.append(f"{c} measured {measured:5.2f}% expected {expected:5.2f}% error {error:+6.2f}")
        print(f"{launch['run']} {launch['name']:26s} " + " | ".join(cells))
    for c, (good, total) in within.items():
        print(f"{c}: within ±3 points {good}/{total}, largest error {worst[c]:.2f} points")


if __name__ == "__main__":
    main()
