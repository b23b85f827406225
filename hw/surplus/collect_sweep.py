#!/usr/bin/env python3
"""Turn the surplus runs' ncu CSVs into traces/surplus/sm_90_sweep.json and sm_90_kernels.json.

usage: collect_sweep.py OUT_FOLDER RESULTS_DIR [RESULTS_DIR ...]

A RESULTS_DIR holds env.txt and what hw/surplus/run_device.sh wrote: sweep.csv (hw/surplus/sweep_configs.txt),
sweep2.csv (sweep2_configs.txt), kernels/<name>.csv (the programs of hw/surplus/kernels.txt, one ncu run
each). Every launch keeps its configuration and the metrics below (whole launch, ncu --page raw).
"""

from __future__ import annotations

import csv
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "probes"))
from collect import parse_env  # noqa: E402

CLASSES = ("ld", "st", "atom")
SHARED = {
    f"{c}_{m}": metric
    for c in CLASSES
    for m, metric in (
        ("instructions", f"smsp__sass_inst_executed_op_shared_{c}.sum"),
        ("wavefronts", f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{c}.sum"),
        ("conflicts", f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{c}.sum"),
        ("addressed_wavefronts", f"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_{c}.sum"),
    )
}
OTHER = {
    "ldsm_instructions": "smsp__sass_inst_executed_op_ldsm.sum",
    "shared_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
    "global_load_instructions": "smsp__sass_inst_executed_op_global_ld.sum",
    "global_store_instructions": "smsp__sass_inst_executed_op_global_st.sum",
    "global_load_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "global_load_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "global_load_sectors_hit": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum",
    "global_load_sectors_missed": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum",
    "global_store_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1_fill_sectors": "l1tex__m_xbar2l1tex_read_sectors.sum",
    "l1_wavefronts": "l1tex__data_pipe_lsu_wavefronts.sum",
    "l1_lgds_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_lgds.sum",
    "l1_bank_reads": "l1tex__data_bank_reads.sum",
    "l1_bank_writes": "l1tex__data_bank_writes.sum",
    "lsu_writeback_active": "l1tex__lsu_writeback_active.sum",
    "gds_bank_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_gds.sum",
    "sm_cycles": "sm__cycles_elapsed.avg",
    "warps_active_percent": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "duration_ns": "gpu__time_duration.sum",
}
FIELDS = ("name", "kernel", "iters", "blocks", "threads", "shn", "deg", "hitlog", "wpriv", "gs", "bar")


def number(text: str) -> float | int | None:
    """An ncu value ("1,234", "12.5", "n/a") as a number."""
    text = text.replace(",", "").strip()
    if not text or text.lower() == "n/a":
        return None
    value = float(text)
    return int(value) if value == int(value) else value


def rows(path: str) -> list[dict[str, str]]:
    """The launches of an ncu --page raw CSV (header, units, one row each), other lines ignored."""
    with open(path, errors="replace") as fh:
        table = list(csv.reader(line for line in fh if line.startswith('"')))
    if not table:
        return []
    return [dict(zip(table[0], row, strict=True)) for row in table[2:]]


def metrics(row: dict[str, str]) -> dict[str, float | int | None]:
    return {
        name: number(row[metric]) if metric in row else None for name, metric in {**SHARED, **OTHER}.items()
    }


def configs(path: str) -> list[dict[str, int | str]]:
    out = []
    with open(path) as fh:
        for line in fh:
            parts = line.split()
            if len(parts) < 9:
                continue
            values = parts + ["0"] * (len(FIELDS) - len(parts))
            out.append(
                {f: (v if f in ("name", "kernel") else int(v)) for f, v in zip(FIELDS, values, strict=True)}
            )
    return out


def main() -> None:
    out_folder, *results = sys.argv[1:]
    sweep, kernels, env = [], [], None
    for results_dir in results:
        env = env or parse_env(results_dir)
        for csv_name, config_name in (
            ("sweep.csv", "sweep_configs.txt"),
            ("sweep2.csv", "sweep2_configs.txt"),
        ):
            path = os.path.join(results_dir, csv_name)
            if not os.path.exists(path):
                continue
            launches = rows(path)
            wanted = configs(os.path.join(HERE, config_name))
            assert len(launches) == len(wanted), (path, len(launches), len(wanted))
            for config, row in zip(wanted, launches, strict=True):
                sweep.append({"run": csv_name[:-4], **config, "metrics": metrics(row)})
        folder = os.path.join(results_dir, "kernels")
        listing = {}
        with open(os.path.join(HERE, "kernels.txt")) as fh:
            for line in fh:
                name, binary, *args = line.split()
                listing[name] = (binary, args)
        for name in sorted(listing) if os.path.isdir(folder) else ():
            path = os.path.join(folder, f"{name}.csv")
            if not os.path.exists(path):
                continue
            binary, args = listing[name]
            for launch, row in enumerate(rows(path)):
                kernels.append(
                    {
                        "program": name,
                        "binary": binary,
                        "args": args,
                        "launch": launch,
                        "kernel": row["Kernel Name"],
                        "grid": row["Grid Size"],
                        "block": row["Block Size"],
                        "metrics": metrics(row),
                    }
                )
    method = (
        "Nsight Compute 2025.3 (--page raw, --cache-control none, --clock-control none), one profiled launch "
        "per configuration or program; metrics: the shared-memory counters per class (instructions, "
        "wavefronts, conflicts, and the SASS-instrumented address-level wavefronts "
        "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_*), global-memory and L1 traffic, cycles "
        "and occupancy (names in 'metrics'). Programs: hw/surplus/sweep.cu (configs in hw/surplus/"
        "sweep_configs.txt, sweep2_configs.txt) and hw/surplus/kernels.txt; run by hw/surplus/run_device.sh."
    )
    os.makedirs(out_folder, exist_ok=True)
    for name, launches in (("sm_90_sweep.json", sweep), ("sm_90_kernels.json", kernels)):
        document = {
            "format": "bankism-surplus-sweep",
            "version": 1,
            "environment": env,
            "method": method,
            "metrics": {**SHARED, **OTHER},
            "launches": launches,
        }
        with open(os.path.join(out_folder, name), "w") as f:
            json.dump(document, f, indent=None, separators=(",", ":"))
        print(f"wrote {name}: {len(launches)} launches")


if __name__ == "__main__":
    main()
