#!/usr/bin/env python3
"""Device runs 19, 20 and 22 of issue 21 into traces/surplus/sm_90_cover.json and sm_90_oneshot_atomic.json.

usage: python hw/surplus/collect_run19_22.py   (reads traces/surplus/device/run19, run20 and run22, written by
run_call19.sh over cover_configs.txt, cover2_configs.txt and oneshot_atomic_configs.txt)

Every launch of hw/surplus/cover.cu (runs 19-20) and hw/surplus/oneshot_atomic.cu (run 22) with its
configuration, the sweep's counters (collect_sweep.metrics), the ncu class of its op, ``kib_per_sm`` (the L1
fill and global-store sector KiB one SM allocated) and the surplus share of its class.
"""

from __future__ import annotations

import os

from collect_runs_6_to_9 import DEVICE, ROOT, _environment, write_document
from collect_sweep import metrics, rows

SMS = 132
CLASS = {"st32": "st", "ld32": "ld", "popc": "atom", "atomadd": "atom"}
FIELDS = ("name", "op", "gl", "iters", "blocks", "threads", "shn", "k", "s", "off", "gs", "row")
RUNS = (("run19", "cover_configs.txt"), ("run20", "cover2_configs.txt"))


def configs(path: str) -> list[dict]:
    """The configuration lines of a cover probe file (ROW defaults to 128 bytes)."""
    out = []
    with open(path) as fh:
        for line in fh:
            parts = line.split()
            if not parts or line.startswith("#"):
                continue
            values = parts + ["128"] * (len(FIELDS) - len(parts))
            out.append({f: v if f in ("name", "op") else int(v) for f, v in zip(FIELDS, values, strict=True)})
    return out


def launches() -> list[dict]:
    out = []
    for run, config_file in RUNS:
        wanted = configs(os.path.join(ROOT, "hw", "surplus", config_file))
        found = rows(os.path.join(DEVICE, run, "cover.csv"))
        assert len(found) == len(wanted), (run, len(found), len(wanted))
        for config, row in zip(wanted, found, strict=True):
            assert row["Kernel Name"].startswith("void cover<"), row["Kernel Name"]
            m = metrics(row)
            op_class = CLASS[config["op"]]
            wavefronts, addressed = m[f"{op_class}_wavefronts"], m[f"{op_class}_addressed_wavefronts"]
            sectors = m["l1_fill_sectors"] + m["global_store_sectors"]
            out.append({
                "run": run, **config, "class": op_class, "kernel": row["Kernel Name"],
                "kib_per_sm": round(sectors * 32 / 1024 / min(SMS, config["blocks"]), 1),
                "surplus_share": (wavefronts - addressed) / wavefronts,
                "metrics": m,
            })
    return out


ONESHOT_FIELDS = ("name", "threads", "per", "k", "s", "data", "elements", "mode")
ONESHOT_RUNS = (("run22", "oneshot_atomic_configs.txt"), ("run24", "oneshot_count_configs.txt"),
                ("run26", "oneshot_count2_configs.txt"), ("run27", "oneshot_count3_configs.txt"))


def oneshot_launches() -> list[dict]:
    """Runs 22, 24, 26 and 27: the one-shot histogram probe (MODE 0) and its counters (MODES 1-3), every
    launch with its blocks and per-instruction surplus."""
    out = []
    for run, config_file in ONESHOT_RUNS:
        with open(os.path.join(ROOT, "hw", "surplus", config_file)) as fh:
            wanted = [dict(zip(ONESHOT_FIELDS, [p[0], *map(int, p[1:]), *([0] if len(p) == 7 else [])],
                               strict=True))
                      for p in (line.split() for line in fh) if p and not p[0].startswith("#")]
        found = rows(os.path.join(DEVICE, run, "cover.csv"))
        assert len(found) == len(wanted), (run, len(found), len(wanted))
        out += _oneshot_rows(run, wanted, found)
    return out


def _oneshot_rows(run: str, wanted: list[dict], found: list[dict]) -> list[dict]:
    out = []
    for config, row in zip(wanted, found, strict=True):
        kernel = "oneshot_atomic_count" if config["mode"] else "oneshot_atomic("
        assert row["Kernel Name"].startswith(kernel), row["Kernel Name"]
        m = metrics(row)
        blocks = config["elements"] // (config["threads"] * config["per"])
        sectors = m["l1_fill_sectors"] + m["global_store_sectors"]
        surplus = m["atom_wavefronts"] - m["atom_addressed_wavefronts"]
        out.append({
            "run": run, **config, "blocks": blocks, "kernel": row["Kernel Name"],
            "kib_per_sm": round(sectors * 32 / 1024 / min(SMS, blocks), 1),
            "surplus_share": surplus / m["atom_wavefronts"],
            "surplus_per_instruction": surplus / m["atom_instructions"],
            "metrics": m,
        })
    return out


def main() -> None:
    oneshot = {
        "format": "bankism-oneshot-atomic",
        "version": 1,
        "description": (
            "the atomic surplus of one-shot shared histograms (issue 21, runs 22, 24, 26, 27): "
            "hw/surplus/oneshot_atomic.cu, each thread loads PER elements and adds 1 to bin value % K (S "
            "words apart) after its load (MODE 0), or takes a position from a shared counter that nvcc "
            "aggregates into one lane per warp (MODE 1, after the load; MODE 2, without a load; MODE 3, four "
            "counters; run 26's indexed form was not aggregated: 32 lanes on one word), one knob at a time "
            "(warps per block, bins, launch length, elements per thread); ncu --page raw, clock and cache "
            "control off"),
        "environment": {run: _environment(run) for run, _ in ONESHOT_RUNS},
        "launches": oneshot_launches(),
    }
    _write("sm_90_oneshot_atomic.json", oneshot)
    document = {
        "format": "bankism-cover",
        "version": 1,
        "description": (
            "which shared accesses meet L1 fills and global stores, and from how many L1 bytes per SM on "
            "(issue 21, runs 19-20): hw/surplus/cover.cu, K words at stride S per warp-instruction (banks in "
            "one to four 32-byte sector groups), streaming float4 loads (fills) or global stores, the bytes "
            "per SM swept by the iteration count; ncu --page raw, clock and cache control off"),
        "environment": {run: _environment(run) for run, _ in RUNS},
        "launches": launches(),
    }
    _write("sm_90_cover.json", document)


def _write(name: str, document: dict) -> None:
    print(f"{write_document(name, document)}: {len(document['launches'])} launches")


if __name__ == "__main__":
    main()
