#!/usr/bin/env python3
"""The bank-coverage tables of arch.SurplusRule from runs 19 and 20 (traces/surplus/sm_90_cover.json).

usage: python hw/surplus/fit_cover.py      (from the repository root)

A one-wavefront shared access whose lanes touch K words meets the other L1 traffic only where their banks
overlap. Per pattern, the surplus share over that of the 32-bank pattern of the same op, run and shared layout
(ROW 128): stores and atomics against fills by the 32-byte sector groups touched (1, 2, 4 of 4), loads and
atomics against global stores by the 16-byte units touched (1, 2, 4, 8 of 8). The tables are the means per
count, rounded to 2 places. And the one-shot atomic rates from run 22
(traces/surplus/sm_90_oneshot_atomic.json): per warps per block, the surplus wavefronts per instruction of
the histogram whose every thread adds one loaded element to 32 consecutive bins (16 Mi elements), the mean
of its launches, rounded to 3 places.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from statistics import mean

ROOT = Path(__file__).resolve().parents[2]


def touched(k: int, s: int, off: int, unit_bytes: int) -> int:
    """Distinct ``unit_bytes`` units of a 128-byte bank row that words OFF + i * S (i < K) fall in."""
    return len({(off + i * s) * 4 // unit_bytes % (128 // unit_bytes) for i in range(k)})


def coverage_rows(launches: list[dict]) -> dict[str, list[tuple[int, float, str]]]:
    """Per side ('fill': st and atom with loads, 'store': ld and atom with global stores only): (units
    touched, surplus share over the 32-bank reference's, name) of each one-wavefront pattern launch."""
    single = [x for x in launches
              if x["name"].startswith("cov:") and x["row"] == 128 and x["op"] != "atomadd"]
    out: dict[str, list] = {"fill": [], "store": []}
    for x in single:
        side = "fill" if x["gl"] else "store"
        reference = next(r for r in single if (r["op"], r["gl"], r["run"]) == (x["op"], x["gl"], x["run"])
                         and (r["k"], r["s"], r["off"]) == (32, 1, 0))
        unit = 32 if side == "fill" else 16
        out[side].append((touched(x["k"], x["s"], x["off"], unit),
                          x["surplus_share"] / reference["surplus_share"], x["name"]))
    return out


def tables(launches: list[dict]) -> dict[str, dict[int, float]]:
    """The coverage tables: per side, per units touched, the mean share ratio."""
    out = {}
    for side, data in coverage_rows(launches).items():
        counts = sorted({n for n, _, _ in data})
        out[side] = {n: round(mean(r for m, r, _ in data if m == n), 2) for n in counts}
    return out


def one_shot_rates(launches: list[dict]) -> dict[int, float]:
    """Per warps per block: the one-shot histogram's surplus per atomic instruction (run 22's warp series)."""
    series: dict[int, list[float]] = {}
    for x in launches:
        if x["run"] == "run22" and x["name"].startswith(("warps:", "rep:warps")):
            series.setdefault(x["threads"] // 32, []).append(x["surplus_per_instruction"])
    return {warps: round(mean(values), 3) for warps, values in sorted(series.items())}


def few_lane_ceiling(launches: list[dict]) -> dict[int, float]:
    """Per warps per block: the largest surplus share a warp-aggregated counter measured (runs 24 and 27,
    MODES 1-3, one lane per warp: one wavefront per instruction), rounded up to 3 places: a label's
    ceiling."""
    out: dict[int, float] = {}
    for x in launches:
        m = x["metrics"]
        if x["mode"] and m["atom_addressed_wavefronts"] == m["atom_instructions"]:
            warps = x["threads"] // 32
            out[warps] = max(out.get(warps, 0.0), x["surplus_share"])
    return {warps: math.ceil(share * 1000) / 1000 for warps, share in sorted(out.items())}


def load_oneshot() -> list[dict]:
    return json.loads((ROOT / "traces" / "surplus" / "sm_90_oneshot_atomic.json").read_text())["launches"]


def load() -> list[dict]:
    return json.loads((ROOT / "traces" / "surplus" / "sm_90_cover.json").read_text())["launches"]


def main() -> None:
    for side, data in coverage_rows(load()).items():
        for n, ratio, name in sorted(data):
            print(f"{side:5s} {n} {ratio:5.2f} {name}")
    print(tables(load()))
    print("one-shot atomic rates:", one_shot_rates(load_oneshot()))
    print("few-lane atomic ceiling:", few_lane_ceiling(load_oneshot()))


if __name__ == "__main__":
    main()
