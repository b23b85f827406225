#!/usr/bin/env python3
"""Device runs 28-32 of issue 21 into traces/surplus/sm_90_rowspan.json.

usage: python hw/surplus/collect_run28_32.py   (reads traces/surplus/device/run28 ... run32, written by
run_call19.sh with PROBE=rowspan over rowspan_configs.txt (runs 28: clocks free, 29: CLOCK=base),
rowspan_delay_configs.txt (30), rowspan_tail_configs.txt (31) and rowspan_delay2_configs.txt (32))

Every launch of hw/surplus/rowspan.cu with its configuration, the sweep's counters (collect_sweep.metrics),
the load and store surplus shares (hardware minus SASS-instrumented wavefronts, over hardware) and per
instruction. Run 30 asked for DELAY adds of the constant 0, which ptxas removed (its SASS has no loop): its
launches are seven repeats of each shape and are kept as such (``delay_applied`` false).
"""

from __future__ import annotations

import os

from collect_runs_6_to_9 import DEVICE, ROOT, _environment, config_lines, write_document
from collect_sweep import metrics, rows

FIELDS = ("name", "type", "by", "mode", "pad", "lspan", "sspan", "tiles", "n", "delay", "tail", "extra")
DEFAULTS = {"delay": 0, "tail": 1, "extra": 0}
RUNS = (("run28", "rowspan_configs.txt", "none"), ("run29", "rowspan_configs.txt", "base"),
        ("run30", "rowspan_delay_configs.txt", "base"), ("run31", "rowspan_tail_configs.txt", "base"),
        ("run32", "rowspan_delay2_configs.txt", "base"))


def configs(path: str) -> list[dict]:
    """The configuration lines of a rowspan probe file, absent trailing fields at their defaults."""
    return config_lines(path, FIELDS[1:], required=8, defaults=DEFAULTS)


def launches() -> list[dict]:
    out = []
    for run, config_file, clock in RUNS:
        wanted = configs(os.path.join(ROOT, "hw", "surplus", config_file))
        found = rows(os.path.join(DEVICE, run, "cover.csv"))
        assert len(found) == len(wanted), (run, len(found), len(wanted))
        for config, row in zip(wanted, found, strict=True):
            assert row["Kernel Name"].startswith("void rowspan<"), row["Kernel Name"]
            m = metrics(row)
            tiles_total = (config["n"] // 32) ** 2
            launch = {"run": run, "clock_control": clock, **config, "kernel": row["Kernel Name"],
                      "blocks": -(-tiles_total // config["tiles"]), "threads": 32 * config["by"],
                      "shared_bytes": 32 * (32 + config["pad"]) * config["type"] + 1024 * config["extra"],
                      "delay_applied": run != "run30"}
            for c in ("ld", "st"):
                surplus = m[f"{c}_wavefronts"] - m[f"{c}_addressed_wavefronts"]
                launch[f"{c}_surplus_share"] = surplus / m[f"{c}_wavefronts"]
                launch[f"{c}_surplus_per_instruction"] = surplus / m[f"{c}_instructions"]
            launch["metrics"] = m
            out.append(launch)
    return out


def main() -> None:
    document = {
        "format": "bankism-rowspan",
        "version": 1,
        "description": (
            "what sets a transpose's load and store surplus (issue 21, runs 28-32): hw/surplus/rowspan.cu, a "
            "32-row tile transpose of a 4096 x 4096 matrix of floats or doubles with one knob at a time: the "
            "bank rows a one-wavefront access's lanes span (LSPAN, SSPAN), the block shape (BY rows of 32 "
            "threads), column reads (MODE 1, PAD) against row reads with address arithmetic (MODE 0), one "
            "tile per block or a persistent loop (TILES), dependent adds between the barrier and the loads "
            "(DELAY; void in run 30), the closing barrier (TAIL), unused shared memory (EXTRA KiB); ncu "
            "--page raw, cache control off, clock control as clock_control"),
        "environment": {run: _environment(run) for run, _, _ in RUNS},
        "launches": launches(),
    }
    print(f"{write_document('sm_90_rowspan.json', document)}: {len(document['launches'])} launches")


if __name__ == "__main__":
    main()
