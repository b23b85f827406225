"""Turn the surplus experiment's ncu CSVs into traces/surplus/sm_90_surplus.json.

Usage: python hw/surplus/collect.py RESULTS_DIR [OUT.json]
RESULTS_DIR holds what hw/surplus/run.sh wrote: env.txt, surplus.csv, dgemm_tile.csv, histogram64.csv.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

CLASSES = ("ld", "st", "atom")
OUT = Path(__file__).resolve().parent.parent.parent / "traces" / "surplus" / "sm_90_surplus.json"


def _table(path: Path, runs: bool) -> list[dict[str, str]]:
    """ncu --csv --page raw rows (units row dropped); with ``runs`` the first column is the run number."""
    keep = [line for line in path.read_text().splitlines(keepends=True)
            if line.startswith('"') or (runs and line[:1] in "0123456789,r")]
    rows = list(csv.reader(io.StringIO("".join(keep))))
    header, body = rows[0], rows[2:]
    return [dict(zip(header, row, strict=False)) for row in body]


def _number(text: str) -> int:
    return int(float(text.replace(",", "")))


def _counters(row: dict[str, str]) -> dict[str, dict[str, int]]:
    return {c: {
        "instructions": _number(row[f"smsp__sass_inst_executed_op_shared_{c}.sum"]),
        "wavefronts": _number(row[f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{c}.sum"]),
        "conflicts": _number(row[f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{c}.sum"]),
    } for c in CLASSES}


def _environment(results: Path) -> dict[str, str]:
    lines = (results / "env.txt").read_text().splitlines()
    gpu, driver, capability = (part.strip() for part in lines[2].split(","))
    return {"gpu": gpu, "driver": driver, "compute_capability": capability, "arch": "sm_90",
            "cuda": lines[3].split("release ")[1].replace(", ", " (") + ")",
            "ncu": lines[5].replace("Version ", "").split(" (public")[0], "date": lines[0][:10]}


def main() -> None:
    results = Path(sys.argv[1])
    out = Path(sys.argv[2]) if len(sys.argv) > 2 else OUT
    launches = []
    for row in _table(results / "surplus.csv", runs=False):
        name = row["Kernel Name"]
        launches.append({"program": "hw/surplus/surplus.cu", "kernel": name,
                         "global_loads": _number(row["smsp__sass_inst_executed_op_global_ld.sum"]),
                         "counters": _counters(row)})
    for program in ("dgemm_tile", "histogram64"):
        for row in _table(results / f"{program}.csv", runs=True):
            launches.append({"program": f"traces/kernels/{program}.cu", "kernel": row["Kernel Name"],
                             "run": int(row["run"]),
                             "global_loads": _number(row["smsp__sass_inst_executed_op_global_ld.sum"]),
                             "counters": _counters(row)})
    document = {
        "format": "bankism-surplus", "version": 1, "environment": _environment(results),
        "method": (
            "Nsight Compute (--page raw, --cache-control none, --clock-control none) on "
            "hw/surplus/surplus.cu: the corpus SGEMM kernel (traces/kernels/sgemm_regtile.cu) launched "
            "5 times in each of 4 variants, "
            "PAD 0 or 4, tiles read from global memory (SYNTH 0, as in the corpus) or computed in registers "
            "(SYNTH 1: the same shared-memory addresses, no global loads); and 3 separate runs each of "
            "traces/kernels/dgemm_tile.cu and traces/kernels/histogram64.cu. Built with nvcc -O3 -arch=sm_90 "
            "-lineinfo; run by hw/surplus/run.sh."),
        "launches": launches,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(document, indent=1) + "\n")
    print(f"wrote {out}: {len(launches)} launches")


if __name__ == "__main__":
    main()
