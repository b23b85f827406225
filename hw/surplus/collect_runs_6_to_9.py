#!/usr/bin/env python3
"""Device runs 6, 7 and 9 of issue 21 into traces/surplus/sm_90_{matrix_addressed,tile_phase,printf_atom}.json
(one file each).

usage: python hw/surplus/collect_runs_6_to_9.py   (reads traces/surplus/device/run6, run7, run9)

- sm_90_matrix_addressed.json: ncu's SASS-instrumented address-level wavefronts of LDSM and STSM
  (``..._op_ldsm``/``..._op_stsm``) beside the other ops' (``..._op_ld``/``..._op_st``) and the hardware
  counts, for the ldmatrix programs whose traces are stored (hw/surplus/run_call6.sh, step 3).
- sm_90_tile_phase.json: every launch of the tile-phase probe (hw/surplus/tile_phase.cu; run 6:
  tile_phase_configs.txt, run 7: tile_phase_configs2.txt) and the corpus's tile DGEMM at two sizes and two
  tile sizes (run 7), with the store and load surplus (hardware minus address-level wavefronts).
- sm_90_printf_atom.json: hw/surplus/printf_atom.cu (run 9): the shared atomic wavefronts device printf
  calls cost, one launch per (blocks, threads, calls, lanes).
"""

from __future__ import annotations

import json
import os

from collect_sweep import number, parse_env, rows

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEVICE = os.path.join(ROOT, "traces", "surplus", "device")
SASS = "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_"
#: ncu CSV of run 6 -> the stored trace of the same launch
MATRIX_PROGRAMS = {
    "ldmatrix_tile_plain": "traces/ldmatrix_tile.json",
    "ldmatrix_tile_swizzled": "traces/ldmatrix_tile_swizzled.json",
    "hgemm_ldmatrix_plain": "traces/hgemm_ldmatrix.json",
    "hgemm_ldmatrix_permuted": "traces/hgemm_ldmatrix_permuted.json",
    "mma_ldsm_conflict": "traces/timing/mma_ldsm_conflict.json",
}
TILE_FIELDS = (
    "blocks", "threads", "iters", "type", "loads", "fed", "reads", "fmas", "region_log2", "gstores",
)
TILE_METRICS = {
    "st_instructions": "smsp__sass_inst_executed_op_shared_st.sum",
    "st_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "st_addressed": SASS + "st.sum",
    "ld_instructions": "smsp__sass_inst_executed_op_shared_ld.sum",
    "ld_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "ld_addressed": SASS + "ld.sum",
    "l1_fill_sectors": "l1tex__m_xbar2l1tex_read_sectors.sum",
    "global_store_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "global_load_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "global_load_instructions": "smsp__sass_inst_executed_op_global_ld.sum",
    "sm_cycles": "sm__cycles_elapsed.avg",
    "warps_active_percent": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "duration_ns": "gpu__time_duration.sum",
    "dram_percent": "dram__throughput.avg.pct_of_peak_sustained_elapsed",
}


def _environment(run: str) -> dict:
    env = parse_env(os.path.join(DEVICE, run, "env.txt"))
    env["run"] = run
    return env


def matrix_addressed() -> dict:
    launches = []
    for name, trace in MATRIX_PROGRAMS.items():
        (row,) = rows(os.path.join(DEVICE, "run6", f"ldsm_{name}.csv"))
        value = {key: number(row[metric]) for key, metric in {
            "ld_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
            "st_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
            "ld_addressed": SASS + "ld.sum", "ldsm_addressed": SASS + "ldsm.sum",
            "st_addressed": SASS + "st.sum", "stsm_addressed": SASS + "stsm.sum",
            "ldsm_instructions": "smsp__sass_inst_executed_op_ldsm.sum",
            "stsm_instructions": "smsp__sass_inst_executed_op_shared_stsm.sum",
            "ld_instructions": "smsp__sass_inst_executed_op_shared_ld.sum",
            "st_instructions": "smsp__sass_inst_executed_op_shared_st.sum",
        }.items()}
        launches.append({"name": name, "trace": trace, "kernel": row["Kernel Name"], "metrics": value})
    return {
        "format": "bankism-matrix-addressed", "version": 1,
        "description": "ncu's SASS-instrumented address-level wavefronts of LDSM/STSM (op_ldsm, op_stsm) "
                       "beside op_ld/op_st and the hardware wavefront counts, one launch of each ldmatrix "
                       "program whose trace is stored (built from the same source on the device; "
                       "hw/surplus/run_call6.sh)",
        "environment": _environment("run6"), "launches": launches,
    }


def config_lines(path: str, fields: tuple[str, ...], required: int | None = None,
                 defaults: dict[str, int] | None = None) -> list[dict]:
    """The configurations of a probe's file: name and integer ``fields`` per line (comments and short lines
    skipped: fewer than ``required`` values, default all; missing trailing values from ``defaults``, or
    0)."""
    out = []
    with open(path) as fh:
        for line in fh:
            parts = line.split()
            if len(parts) < 1 + (len(fields) if required is None else required) or parts[0].startswith("#"):
                continue
            given = dict(zip(fields, (int(v) for v in parts[1:]), strict=False))
            out.append({"name": parts[0], **{f: given.get(f, (defaults or {}).get(f, 0)) for f in fields}})
    return out


def surplus_shares(metrics: dict, classes: tuple[str, ...]) -> dict[str, float | None]:
    """Per class, the surplus (hardware minus address-level wavefronts) as a share of the hardware's
    wavefronts; None without any."""
    out = {}
    for op in classes:
        measured = metrics.get(f"{op}_wavefronts")
        out[op] = (measured - metrics[f"{op}_addressed"]) / measured if measured else None
    return out


def _shares(metrics: dict) -> dict[str, float | None]:
    """Stores' and loads' surplus shares, as the tile-phase files name them."""
    return {f"{op}_surplus_share": share for op, share in surplus_shares(metrics, ("st", "ld")).items()}


def tile_phase_rows(run: str, configs: str, csv: str) -> list[tuple[dict, dict[str, str]]]:
    """(configuration, ncu row) of each tile-phase launch of a run, checked: one row per configuration line,
    each row the kernel instance its configuration names."""
    found = rows(os.path.join(DEVICE, run, csv))
    wanted = config_lines(os.path.join(HERE, configs), TILE_FIELDS, required=len(TILE_FIELDS) - 1)
    if len(found) != len(wanted):
        raise SystemExit(f"{run}: {len(found)} ncu rows for {len(wanted)} configurations")
    for config, row in zip(wanted, found, strict=True):
        instance = f"tile_phase<{'float' if config['type'] == 4 else 'double'}, {config['loads']}"
        if instance not in row["Kernel Name"]:
            raise SystemExit(f"{run}: {config['name']} is not {row['Kernel Name']}")
    return list(zip(wanted, found, strict=True))


def tile_phase() -> dict:
    launches = []
    for run, configs, csv in (("run6", "tile_phase_configs.txt", "tile_phase.csv"),
                              ("run7", "tile_phase_configs2.txt", "tile_phase2.csv")):
        for config, row in tile_phase_rows(run, configs, csv):
            metrics = {key: number(row[metric]) for key, metric in TILE_METRICS.items()}
            launches.append({"run": run, **config, "kernel": row["Kernel Name"], "metrics": metrics,
                             **_shares(metrics)})
    for size in (256, 1024):
        for tile in (16, 32):
            (row,) = rows(os.path.join(DEVICE, "run7", f"dgemm_{size}_{tile}.csv"))
            metrics = {key: number(row[metric]) for key, metric in TILE_METRICS.items()}
            launches.append({"run": "run7", "name": f"dgemm:n{size}_tile{tile}",
                             "blocks": (size // tile) ** 2, "threads": tile * tile,
                             "kernel": row["Kernel Name"], "metrics": metrics, **_shares(metrics)})
    return {
        "format": "bankism-tile-phase", "version": 1,
        "description": "the store surplus of tiled kernels (issue 21): hw/surplus/tile_phase.cu, one knob "
                       "at a time, and traces/kernels/dgemm_tile.cu at n 256/1024 with 16x16/32x32 tiles; "
                       "surplus share = (hardware - SASS-instrumented address-level wavefronts) / hardware "
                       "wavefronts",
        "environment": _environment("run6"), "launches": launches,
    }


def printf_atom() -> dict:
    launches = []
    folder = os.path.join(DEVICE, "run9")
    for name in sorted(os.listdir(folder)):
        if not (name.startswith("printf_") and name.endswith(".csv")):
            continue
        blocks, threads, calls, lanes = (int(v) for v in name[len("printf_"):-len(".csv")].split("_"))
        (row,) = rows(os.path.join(folder, name))
        launches.append({"blocks": blocks, "threads": threads, "calls": calls, "lanes": lanes, "metrics": {
            "atom_instructions": number(row["smsp__sass_inst_executed_op_shared_atom.sum"]),
            "atom_wavefronts": number(row["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"]),
            "atom_conflicts": number(row["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum"]),
            "atom_addressed": number(row[SASS + "atom.sum"]),
            "ld_wavefronts": number(row["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"]),
            "st_wavefronts": number(row["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"]),
            "global_atom_instructions": number(row["smsp__sass_inst_executed_op_global_atom.sum"]),
        }})
    return {
        "format": "bankism-printf-atom", "version": 1,
        "description": "device printf and the shared atomic wavefronts ncu counts for it "
                       "(hw/surplus/printf_atom.cu: the first LANES lanes of every warp call printf CALLS "
                       "times; nothing else touches shared memory)",
        "environment": _environment("run9"), "launches": launches,
    }


def write_document(name: str, document: dict) -> str:
    """Write ``document`` as traces/surplus/NAME (indented by one, a final newline), as every collector of
    issue 21's runs does; returns the path."""
    path = os.path.join(ROOT, "traces", "surplus", name)
    with open(path, "w") as fh:
        json.dump(document, fh, indent=1)
        fh.write("\n")
    return path


def main() -> None:
    for name, document in (("sm_90_matrix_addressed.json", matrix_addressed()),
                           ("sm_90_tile_phase.json", tile_phase()),
                           ("sm_90_printf_atom.json", printf_atom())):
        write_document(name, document)
        print(name, len(document["launches"]), "launches")


if __name__ == "__main__":
    main()
