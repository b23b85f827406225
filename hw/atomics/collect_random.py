#!/usr/bin/env python3
"""Turn the random atomic campaign's ncu CSVs into traces/probes/random/sm_90_atomics_random.json.

usage: collect_random.py PATTERNS.json OUT.json RESULTS_DIR [RESULTS_DIR ...]

Each RESULTS_DIR holds env.txt and random_<first>.csv files (ncu --page raw --csv of one chunk of
hw/atomics/random.cu: the first launch is the shared-base probe and is dropped, then probes <first>..).
The output is compact: one row per probe (columns named in the file), kinds described once.
"""

from __future__ import annotations

import csv
import glob
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "probes"))
from collect import parse_env  # noqa: E402

from gen_random import KINDS, SEED  # noqa: E402

METRICS = {
    "atom_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
    "atom_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum",
    "ld_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "ld_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "atom_instructions": "smsp__inst_executed_op_shared_atom.sum",
    "ld_instructions": "smsp__inst_executed_op_shared_ld.sum",
}
COLUMNS = ["id", "kind", "name", "active", "addresses", *METRICS]


def number(text: str) -> int | None:
    text = text.replace(",", "").strip()
    if not text or text.lower() == "n/a":
        return None
    value = float(text)
    assert value == int(value), text
    return int(value)


def read_chunk(path: str) -> tuple[int, list[dict[str, str]]]:
    with open(path) as fh:
        rows = list(csv.reader(line for line in fh if line.startswith('"')))
    header, body = rows[0], rows[2:]  # row 1: units
    first = int(re.search(r"random_(\d+)\.csv$", path).group(1))
    return first, [dict(zip(header, row, strict=True)) for row in body]


def main() -> None:
    patterns_path, out_path, *results = sys.argv[1:]
    with open(patterns_path) as fh:
        patterns = json.load(fh)["probes"]
    measured: dict[int, list] = {}
    env = None
    for results_dir in results:
        env = env or parse_env(results_dir)
        for path in glob.glob(os.path.join(results_dir, "random_*.csv")):
            first, rows = read_chunk(path)
            for offset, row in enumerate(rows[1:]):  # rows[0]: the shared-base launch
                probe = patterns[first + offset]
                kernel = row["Kernel Name"].split("(")[0].strip()
                assert kernel == probe["kernel"], (probe["id"], kernel, probe["kernel"])
                values = [number(row[m]) if m in row else None for m in METRICS.values()]
                measured[probe["id"]] = [probe["id"], probe["kind"], probe["name"], probe["active"],
                                         probe["addresses"], *values]
    rows = [measured[k] for k in sorted(measured)]
    document = {
        "format": "bankism-random-probes", "version": 1, "environment": env, "seed": SEED,
        "notes": (
            "Random warps for every shared ATOMS form (hw/atomics/random.cu, patterns from "
            "hw/atomics/gen_random.py): one launch = one warp executing one atomic instruction (or one "
            "compiler retry loop: kinds addf32 and addu64) on its lanes' byte offsets in a dynamic shared "
            "array; inactive lanes branch around it. Nsight Compute --page raw, kernel replay, "
            "--cache-control none --clock-control none, one profiled launch per probe; hardware counters "
            "only (smsp__inst_executed_op_shared_* are the hardware instruction counters)."),
        "kinds": {name: {"kernel": k, "width": w, "atomic_kind": form, "sass": sass}
                  for name, (k, w, form, sass, _) in KINDS.items()},
        "metrics": METRICS,
        "columns": COLUMNS,
        "probes": rows,
    }
    os.makedirs(os.path.dirname(out_path), exist_ok=True)
    with open(out_path, "w") as f:
        json.dump(document, f, separators=(",", ":"))
    print(f"wrote {out_path}: {len(rows)} probes of {len(patterns)}")


if __name__ == "__main__":
    main()
