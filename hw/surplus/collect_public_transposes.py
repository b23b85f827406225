#!/usr/bin/env python3
"""Held-out public transposes (run 33) into traces/surplus/public_transpose_heldout.json.

usage: python hw/surplus/collect_public_transposes.py RESULTS_DIR SOURCES.md

RESULTS_DIR: what hw/surplus/run_call8.sh brought back (public/<name>.analysis.json, `bankism analyze --json`
on the device with this commit's model, and env.txt); SOURCES.md: the scout's list of repositories and
commits, outside the repository. Figures only: per program its block, and per class (ld, st) the measured and
predicted wavefronts, the expected surplus, the band, the label ceiling and its cause, and analyze's verdict.
"""

from __future__ import annotations

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "probes"))
from collect import parse_env  # noqa: E402
from collect_runs_6_to_9 import write_document  # noqa: E402


def figures(analysis: dict) -> dict:
    (launch,) = analysis["launches"]
    out = {"kernel": launch["kernel"], "grid": launch["grid"], "block": launch["block"],
           "blocks_recorded": launch["blocks_recorded"], "blocks_total": launch["blocks_total"],
           "agrees": launch["agrees"]}
    for c in ("ld", "st"):
        surplus = launch["surplus"][c]
        measured, predicted = launch["measured"][c]["wavefronts"], launch["predicted"][c]["wavefronts"]
        out[c] = {"measured": measured, "predicted": predicted, "expected": round(surplus["expected"], 1),
                  "band": surplus["band"], "ceiling": surplus["tile_ceiling"],
                  "ceiling_cause": surplus["ceiling_cause"],
                  "measured_share": (measured - predicted) / measured,
                  "expected_share": surplus["expected"] / measured}
    return out


def main() -> None:
    results, sources = sys.argv[1], sys.argv[2]
    folder = os.path.join(results, "public")
    programs = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".analysis.json"):
            with open(os.path.join(folder, name)) as fh:
                programs[name[: -len(".analysis.json")]] = figures(json.load(fh))
    with open(sources) as fh:
        repositories = [line.strip("- ").strip() for line in fh if line.startswith("- ")]
    document = {
        "format": "bankism-public-transposes",
        "version": 1,
        "description": (
            "held-out public transposes for issue 21's transpose label (run 33, after runs 28-32): recorded "
            "with `bankism record --blocks auto` and analysed on the device; figures only, the programs stay "
            "outside the repository"),
        "sources": repositories,
        "environment": parse_env(os.path.join(results, "env.txt")),
        "programs": programs,
    }
    print(f"{write_document('public_transpose_heldout.json', document)}: {len(programs)} programs")


if __name__ == "__main__":
    main()
