#!/usr/bin/env python3
"""Device runs 16, 17 and 18 of issue 21 into traces/surplus/sm_90_oneshot.json.

usage: python hw/surplus/collect_run16_17.py   (reads traces/surplus/device/run16, run17 and run18)

- ``probe``: every launch of the one-shot tile probe (hw/surplus/oneshot.cu over oneshot_configs.txt), under
  ncu's clock and cache control switched off (run 16, as every earlier probe) and under ncu's defaults
  (run 17: clocks locked at base, caches flushed, as ``bankism record`` profiles), each row checked to be the
  kernel instance its configuration names.
- ``programs``: the stored surplus programs (hw/surplus/kernels, the corpus SGEMM) under both settings
  (run 17).
- ``gap``: the stored transposes' code with integer work between each shared load and its global store and
  before the first global load (hw/surplus/ldsgap.cu over ldsgap_configs.txt, run 18, ncu's defaults).
Each launch keeps its counters and, per class, the surplus share (hardware minus SASS-instrumented
address-level wavefronts, over hardware wavefronts).
"""

from __future__ import annotations

import os

from collect_runs_6_to_9 import (
    DEVICE,
    HERE,
    SASS,
    TILE_METRICS,
    _environment,
    config_lines,
    surplus_shares,
    write_document,
)
from collect_sweep import number, rows

PROBE_FIELDS = ("type", "rows", "pad", "read", "sink", "n", "persist")
GAP_FIELDS = ("type", "rows", "pad", "gap", "pre", "n")
#: the stored traces (traces/surplus/kernels) of the programs run 17 profiled again, by CSV name
PROGRAMS = {
    "transpose_f64_plain": "transpose_f64", "transpose_f64_padded": "transpose_f64_padded",
    "transpose_tiled_plain": "transpose_tiled", "transpose_tiled_padded": "transpose_tiled_padded",
    "colsum_f64_run": "colsum_f64", "shared_counters_counters": "counters",
    "shared_counters_counters_used": "counters_used", "shared_counters_hist32": "hist32",
    "sgemm_regtile_plain": "sgemm_regtile", "sgemm_regtile_padded": "sgemm_regtile_padded",
    "wmma_hgemm_plain": "wmma_hgemm", "wmma_hgemm_padded": "wmma_hgemm_padded",
}
SETTINGS = {"none": "--clock-control none --cache-control none",
            "defaults": "ncu's defaults (base clocks, caches flushed)"}
ATOM = {
    "atom_instructions": "smsp__sass_inst_executed_op_shared_atom.sum",
    "atom_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
    "atom_addressed": SASS + "atom.sum",
    "sm_clock_hz": "gpc__cycles_elapsed.avg.per_second",
}


def _metrics(row: dict[str, str]) -> dict:
    names = {**TILE_METRICS, **{key: metric for key, metric in ATOM.items() if metric in row}}
    return {key: number(row[metric]) for key, metric in names.items()}


def _shares(metrics: dict) -> dict[str, float]:
    """Per class with wavefronts: the surplus as a share of the hardware's wavefronts."""
    shares = surplus_shares(metrics, ("ld", "st", "atom"))
    return {op: share for op, share in shares.items() if share is not None}


def probe(run: str, csv: str, setting: str, family: str = "oneshot") -> list[dict]:
    """Every launch of one probe run (``family`` oneshot or ldsgap), each row the instance its line names."""
    found = rows(os.path.join(DEVICE, run, csv))
    wanted = config_lines(os.path.join(HERE, f"{family}_configs.txt"),
                          PROBE_FIELDS if family == "oneshot" else GAP_FIELDS)
    if len(found) != len(wanted):
        raise SystemExit(f"{run}: {len(found)} ncu rows for {len(wanted)} configurations")
    launches = []
    for config, row in zip(wanted, found, strict=True):
        element = "float" if config["type"] == 4 else "double"
        last = config["sink"] if family == "oneshot" else f"{config['pad']}, {config['gap']}"
        instance = f"{family}<{element}, {config['rows']}, {last}>"
        if instance not in row["Kernel Name"]:
            raise SystemExit(f"{run}: {config['name']} is not {row['Kernel Name']}")
        metrics = _metrics(row)
        launches.append({"run": run, "setting": setting, **config, "kernel": row["Kernel Name"],
                         "metrics": metrics, "surplus_share": _shares(metrics)})
    return launches


def programs() -> list[dict]:
    launches = []
    for name, trace in PROGRAMS.items():
        for setting in SETTINGS:
            (row,) = rows(os.path.join(DEVICE, "run17", f"{name}_{setting}.csv"))
            metrics = _metrics(row)
            launches.append({"run": "run17", "setting": setting, "program": name, "stored_trace": trace,
                             "kernel": row["Kernel Name"], "metrics": metrics,
                             "surplus_share": _shares(metrics)})
    return launches


def main() -> None:
    document = {
        "format": "bankism-oneshot",
        "version": 1,
        "description": "what the surplus of one-shot tiled kernels depends on (issue 21): "
        "hw/surplus/oneshot.cu, one 32x32 tile per block through shared memory, one knob at a time, under "
        "ncu with clock and cache control off (run 16) and with ncu's defaults (run 17); and the stored "
        "surplus programs under both (run 17, hw/surplus/run_call17.sh); the stored transposes' code with "
        "integer work placed between its accesses (run 18, hw/surplus/ldsgap.cu); surplus share = "
        "(hardware - "
        "SASS-instrumented address-level wavefronts) / hardware wavefronts",
        "settings": SETTINGS,
        "environment": {run: _environment(run) for run in ("run16", "run17", "run18")},
        "probe": probe("run16", "oneshot.csv", "none") + probe("run17", "oneshot_defaults.csv", "defaults"),
        "programs": programs(),
        "gap": probe("run18", "ldsgap.csv", "defaults", "ldsgap"),
    }
    path = write_document("sm_90_oneshot.json", document)
    print(f"{path}: {len(document['probe'])} probe launches, {len(document['programs'])} program launches, "
          f"{len(document['gap'])} gap launches")


if __name__ == "__main__":
    main()
