#!/usr/bin/env python3
"""Turn the random atomic campaign's ncu CSVs into traces/probes/random/sm_90_atomics_random.json.

usage: collect_random.py PATTERNS.json OUT.json RESULTS_DIR [RESULTS_DIR ...]

Each RESULTS_DIR holds env.txt and random_<first>.csv files (ncu --page raw --csv of one chunk of
hw/atomics/random.cu: the first launch is the shared-base probe and is dropped, then probes <first>..),
or pairs.csv + pairs_log.txt (the "pairs" mode: two probes of one kernel per launch, on two SMs; the
"PAIR launch a b" lines name them). The output is compact: one row per probe (columns named in the file),
kinds described once; a probe measured in a pair has no counters of its own, its pair's entry in
"pairs" holds the larger and the smaller of the two values of each counter (ncu's .max over the L1 units,
and .sum minus .max).
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
PAIR_METRICS = [name for name in METRICS if not name.endswith("instructions")]
PAIR_COLUMNS = ["first", "second"] + [f"{name}_{end}" for name in PAIR_METRICS for end in ("high", "low")]


def number(text: str) -> int | None:
    text = text.replace(",", "").strip()
    if not text or text.lower() == "n/a":
        return None
    value = float(text)
    assert value == int(value), text
    return int(value)


def read_chunk(path: str, first: int | None = None) -> tuple[int, list[dict[str, str]]]:
    with open(path) as fh:
        rows = list(csv.reader(line for line in fh if line.startswith('"')))
    header, body = rows[0], rows[2:]  # row 1: units
    if first is None:
        first = int(re.search(r"random_(\d+)\.csv$", path).group(1))
    return first, [dict(zip(header, row, strict=True)) for row in body]


def main() -> None:
    patterns_path, out_path, *results = sys.argv[1:]
    with open(patterns_path) as fh:
        patterns = json.load(fh)["probes"]
    measured: dict[int, list] = {}
    pairs: list[list] = []
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
                measured[probe["id"]] = [
                    probe["id"],
                    probe["kind"],
                    probe["name"],
                    probe["active"],
                    probe["addresses"],
                    *values,
                ]
        pair_csv = os.path.join(results_dir, "pairs.csv")
        if os.path.exists(pair_csv):
            with open(os.path.join(results_dir, "pairs_log.txt")) as fh:
                # the program's buffered stdout and ncu's ==PROF== lines share the log: cut ncu's lines out
                text = re.sub(r"==PROF==[^\n]*\n", "", fh.read())
            found = [tuple(map(int, m)) for m in re.findall(r"^PAIR (\d+) (\d+) (-?\d+)$", text, re.M)]
            launches = {launch: (a, b) for launch, a, b in found}
            assert sorted(launches) == list(range(1, len(found) + 1)), "PAIR lines are not launches 1..N"
            ids = sorted(k for pair in launches.values() for k in pair if k >= 0)
            assert ids == list(range(ids[0], ids[-1] + 1)), "the pairs do not cover their id range once each"
            _, table = read_chunk(pair_csv, first=0)
            for index, row in enumerate(table):
                if index not in launches:
                    continue  # the shared-base launch
                a, b = launches[index]
                probe = patterns[a]
                kernel = row["Kernel Name"].split("(")[0].strip()
                assert kernel == probe["kernel"] and (b < 0 or patterns[b]["kernel"] == kernel), (
                    a,
                    b,
                    kernel,
                )
                for k in (a, b):
                    if k >= 0:
                        p = patterns[k]
                        measured[k] = [k, p["kind"], p["name"], p["active"], p["addresses"]] + [None] * len(
                            METRICS
                        )
                entry: list = [a, b]
                for name in PAIR_METRICS:
                    total, high = (
                        number(row[METRICS[name]]),
                        number(row[METRICS[name].replace(".sum", ".max")]),
                    )
                    entry += [high, total - high] if b >= 0 else [total, None]
                pairs.append(entry)
    rows = [measured[k] for k in sorted(measured)]
    document = {
        "format": "bankism-random-probes",
        "version": 1,
        "environment": env,
        "seed": SEED,
        "notes": (
            "Random warps for every shared ATOMS form (hw/atomics/random.cu, patterns from "
            "hw/atomics/gen_random.py): one launch = one warp executing one atomic instruction (or one "
            "compiler retry loop: kinds addf32 and addu64) on its lanes' byte offsets in a dynamic shared "
            "array; inactive lanes branch around it. Nsight Compute --page raw, kernel replay, "
            "--cache-control none --clock-control none, one profiled launch per probe; hardware counters "
            "only (smsp__inst_executed_op_shared_* are the hardware instruction counters)."
        ),
        "kinds": {
            name: {"kernel": k, "width": w, "atomic_kind": form, "sass": sass}
            for name, (k, w, form, sass, _) in KINDS.items()
        },
        "metrics": METRICS,
        "columns": COLUMNS,
        "probes": rows,
        "pair_columns": PAIR_COLUMNS,
        "pairs": pairs,
    }
    os.makedirs(os.path.dirname(out_path), exist_ok=True)
    with open(out_path, "w") as f:
        json.dump(document, f, separators=(",", ":"))
    print(f"wrote {out_path}: {len(rows)} probes of {len(patterns)} ({len(pairs)} launches of pairs)")


if __name__ == "__main__":
    main()
