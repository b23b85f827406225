#!/usr/bin/env python3
"""Held-out public programs of issue 21 (device run 5): their analyses, made on the GPU machine by
hw/surplus/run_call5.sh, reduced to figures in traces/surplus/public_heldout.json.

usage: python hw/surplus/collect_public.py ANALYSES_DIR SOURCES.md [OUT [RUN_SCRIPT]]

(run 8's public ldmatrix programs: OUT traces/surplus/public_matrix_heldout.json, RUN_SCRIPT
hw/surplus/run_call8.sh)

Each ``<name>.analysis.json`` is ``bankism analyze --json`` of a ``bankism record`` of one public program;
SOURCES.md (kept with the programs, outside the repository) names each program's repository and commit.
Only figures are kept: the launch shape, measured and predicted counters per class (ncu's address-level
count included), the expected surplus and the error of the estimate in points of measured wavefronts.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

CLASSES = ("ld", "st", "atom")


def sources(path: Path) -> dict[str, dict[str, str]]:
    """short name -> repository and commit, from the table of SOURCES.md."""
    out = {}
    for line in path.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 4 and re.fullmatch(r"[0-9a-f]{40}|unknown", cells[3]):
            commit = None if cells[3] == "unknown" else cells[3]
            out[cells[0]] = {"repo": cells[1].removeprefix("https://github.com/"), "commit": commit}
    return out


def launch_figures(launch: dict[str, Any]) -> dict[str, Any]:
    """The figures of one analysed launch, per class with any wavefronts."""
    classes = {}
    for c in CLASSES:
        measured = (launch["measured"] or {}).get(c)
        if not measured or not measured["wavefronts"]:
            continue
        predicted, found = launch["predicted"][c], launch["surplus"].get(c)
        surplus = measured["wavefronts"] - predicted["wavefronts"]
        expected = None if found is None else found["expected"]
        classes[c] = {
            "measured": measured, "predicted": predicted,
            "surplus_share": surplus / measured["wavefronts"],
            "expected_share": None if expected is None else expected / measured["wavefronts"],
            "error_points": None if expected is None else 100 * (expected - surplus) / measured["wavefronts"],
            "quiet": None if found is None else found["quiet"],
        }
    return {"kernel": launch["kernel"], "grid": launch["grid"], "block": launch["block"],
            "blocks_total": launch["blocks_total"], "blocks_recorded": launch["blocks_recorded"],
            "agrees": launch["agrees"], "sampling": launch["sampling"], "classes": classes}


def main() -> None:
    folder, table = Path(sys.argv[1]), sources(Path(sys.argv[2]))
    out = Path(sys.argv[3]) if len(sys.argv) > 3 else Path("traces/surplus/public_heldout.json")
    script = sys.argv[4] if len(sys.argv) > 4 else "hw/surplus/run_call5.sh"
    programs = []
    for path in sorted(folder.glob("*.analysis.json")):
        name = path.name.removesuffix(".analysis.json")
        analysis = json.loads(path.read_text())
        programs.append({"name": name, **table.get(name, {}),
                         "launches": [launch_figures(launch) for launch in analysis["launches"]
                                      if launch["measured"] is not None]})
    environment = json.loads(path.read_text())["environment"] if programs else {}
    document = {
        "description": f"Held-out public programs of issue 21 ({script}): recorded with "
                       "bankism record on the H100, analysed there; figures only (the sources stay outside "
                       "the repository). error_points: expected minus measured surplus, in points of "
                       "measured.",
        "environment": {k: environment.get(k) for k in ("gpu", "arch", "driver", "cuda", "ncu", "captured")},
        "programs": programs,
    }
    out.write_text(json.dumps(document, indent=1) + "\n")
    for program in programs:
        for launch in program["launches"]:
            cells = [f"{c} {100 * v['surplus_share']:5.2f}% exp {100 * (v['expected_share'] or 0):5.2f}% "
                     f"err {v['error_points'] if v['error_points'] is not None else float('nan'):+6.2f}"
                     for c, v in launch["classes"].items()]
            print(f"{program['name']:20s} {' | '.join(cells)}")
    print(f"wrote {out}: {len(programs)} programs")


if __name__ == "__main__":
    main()
