#!/usr/bin/env python3
"""Held-out public shared histograms (runs 21 and 23) into traces/surplus/public_atomics_heldout.json.

usage: python hw/surplus/collect_public_atomics.py RUN RESULTS_DIR SOURCES.md [RUN RESULTS_DIR SOURCES.md ...]

RESULTS_DIR: what hw/surplus/run_call8.sh brought back (public/<name>.json, the trace without its records, and
public/<name>.analysis.json, `bankism analyze --json` on the device with the model of that run's commit);
SOURCES.md: the scout's table (name | repo | commit ...), outside the repository. Figures only: per launch the
atomic class's measured and predicted wavefronts and, per atomic site, the inputs the one-shot term needs
(executions scaled to the launch, executions per warp, lanes), so that tests recompute the estimate; the
device's expected surplus of every class.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(HERE, "..", "probes"))
from collect import parse_env  # noqa: E402
from collect_runs_6_to_9 import write_document  # noqa: E402

#: The estimate before runs 19-22 (arch.SurplusRule of commit 7f2a604): atomics' coefficients, no threshold,
#: no coverage, no one-shot term; kept to state what the runs changed.
BEFORE = {"per_fill_sector": 0.479, "per_store_sector": 0.420}


def sources(path: str) -> dict[str, tuple[str, str]]:
    out = {}
    with open(path) as fh:
        lines = fh.read().splitlines()
    for line in lines:
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 4 and re.match(r"^[\w.-]+/[\w.-]+$", cells[2]):
            out[cells[1]] = (cells[2], cells[3])
    return out


def launch_figures(trace_launch: dict, analysis: dict) -> dict:
    threads = math.prod(analysis["block"])
    warps = -(-threads // 32)
    scale = analysis["scale"]
    measured, predicted = analysis["measured"], analysis["predicted"]
    traffic = trace_launch["traffic"]
    atom_sites = [s for s in analysis["sites"] if s["class"] == "atom"]
    active = max(1, min(traffic["sm_count"], analysis["blocks_total"]))
    exposure = sum(s["executions"] * scale * math.sqrt(s["wavefronts"] / s["executions"]) for s in atom_sites)
    before = exposure / (traffic["sm_cycles"] * active) * (
        BEFORE["per_fill_sector"] * traffic["l1_fill_sectors"]
        + BEFORE["per_store_sector"] * traffic["global_store_sectors"])
    shared = trace_launch["shared_bytes"]
    classes = {}
    for op_class, estimate in analysis["surplus"].items():
        if not estimate or not measured.get(op_class, {}).get("wavefronts"):
            continue
        m = measured[op_class]["wavefronts"]
        classes[op_class] = {
            "measured_wavefronts": m, "predicted_wavefronts": predicted[op_class]["wavefronts"],
            "addressed": measured[op_class].get("addressed"),
            "device_expected": estimate["expected"], "quiet": estimate["quiet"],
        }
    return {
        "kernel": analysis["kernel"], "grid": analysis["grid"], "block": analysis["block"],
        "blocks_total": analysis["blocks_total"], "blocks_recorded": analysis["blocks_recorded"],
        "threads_per_block": threads, "warps_per_block": warps,
        "shared_per_block": sum(v for v in shared.values() if isinstance(v, int)) if isinstance(shared, dict)
        else shared,
        "agrees": analysis["agrees"], "traffic": traffic,
        "atom_sites": [{"sass": s["sass"], "executions": s["executions"] * scale,
                        "wavefronts": s["wavefronts"] * scale,
                        "per_warp": s["executions"] / (warps * analysis["blocks_recorded"])}
                       for s in atom_sites],
        "atom_expected_before": before,
        "classes": classes,
    }


def main() -> None:
    args = sys.argv[1:]
    programs, environment = [], {}
    for run, results, table in zip(args[0::3], args[1::3], args[2::3], strict=True):
        environment[run] = parse_env(os.path.join(results, "env.txt"))
        known = sources(table)
        folder = os.path.join(results, "public")
        suffix = ".analysis.json"
        for name in sorted(f[:-len(suffix)] for f in os.listdir(folder) if f.endswith(suffix)):
            with open(os.path.join(folder, f"{name}.json")) as fh:
                trace = json.load(fh)
            with open(os.path.join(folder, f"{name}{suffix}")) as fh:
                analysis = json.load(fh)
            repo, commit = known.get(name, (None, None))
            programs.append({
                "run": run, "name": name, "repo": repo, "commit": commit,
                "launches": [launch_figures(t, a) for t, a in zip(trace["launches"], analysis["launches"],
                                                                  strict=True)],
            })
    document = {
        "description": ("public programs with shared-memory atomics, none used before, recorded with "
                        "`bankism record` on the H100 and analysed there (issue 21, runs 21 and 23, and all "
                        "twelve again with the final model in run 25; sources outside the repository): "
                        "figures only"),
        "environment": environment,
        "programs": programs,
    }
    print(f"{write_document('public_atomics_heldout.json', document)}: {len(programs)} programs")


if __name__ == "__main__":
    main()
