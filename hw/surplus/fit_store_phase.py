#!/usr/bin/env python3
"""The store-phase rules of the surplus model (arch.SurplusRule: fed_store_rate, l1_free_bytes) from the
probes.

usage: python hw/surplus/fit_store_phase.py      (from the repository root)

- fed_store_rate: surplus wavefronts per fed shared store (a store of a value its warp just loaded from global
  memory), by the warps of a block and the wavefronts of one store, the median over the tile-phase probe's fed
  configurations (traces/surplus/sm_90_tile_phase.json, runs 6-7; the second phase's global stores left out:
  a transpose's measured stores do not show their halving).
- the L1 allocation threshold: run 14 (traces/surplus/sm_90_l1_capacity.json) swept the bytes one SM fills; a
  tiled kernel's store surplus is 0 up to 128 KiB and rises as sqrt((F - 128 KiB) / F) of its steady value.
"""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def fed_store_rates() -> dict[int, dict[int, float]]:
    """{wavefronts per store: {warps per block: median surplus per store}} of the probe's fed launches."""
    document = json.loads((ROOT / "traces" / "surplus" / "sm_90_tile_phase.json").read_text())
    found: dict[int, dict[int, list[float]]] = {}
    for launch in document["launches"]:
        if not launch.get("fed") or launch.get("gstores") or launch["run"] != "run6":
            continue
        m = launch["metrics"]
        per_store = (m["st_wavefronts"] - m["st_addressed"]) / m["st_instructions"]
        wavefronts = round(m["st_addressed"] / m["st_instructions"])
        found.setdefault(wavefronts, {}).setdefault(launch["threads"] // 32, []).append(per_store)
    return {
        wf: {w: round(statistics.median(v), 3) for w, v in sorted(by_warps.items())}
        for wf, by_warps in sorted(found.items())
    }


def capacity_rows() -> list[tuple[str, float, float, float]]:
    """(name, fill + global-store KiB per SM, measured store surplus share, steady share) of run 14's
    probes."""
    document = json.loads((ROOT / "traces" / "surplus" / "sm_90_l1_capacity.json").read_text())
    series: dict[str, list] = {}
    for launch in document["launches"]:
        if not launch["name"].startswith("cap:") or "fed0" in launch["name"]:
            continue
        series.setdefault(launch["name"].rsplit("_i", 1)[0], []).append(launch)
    out = []
    for runs in series.values():
        steady = max(runs, key=lambda r: r["kib_per_sm"])["st_surplus_share"]
        out += [(r["name"], r["kib_per_sm"], r["st_surplus_share"], steady) for r in runs]
    return out


def evict_share(kib: float, free_kib: float = 128.0) -> float:
    """The share of the steady surplus at ``kib`` allocated per SM (arch.SurplusRule.l1_free_bytes)."""
    return math.sqrt(max(0.0, kib - free_kib) / kib) if kib > 0 else 0.0


def main() -> None:
    print("fed_store_rate:", fed_store_rates())
    for name, kib, share, steady in capacity_rows():
        print(
            f"{name:28s} {kib:7.0f} KiB/SM  measured {100 * share:6.2f}%  "
            f"threshold model {100 * steady * evict_share(kib):6.2f}%"
        )


if __name__ == "__main__":
    main()
