#!/usr/bin/env python3
"""Compare the engine with every random atomic probe (traces/probes/random/sm_90_atomics_random.json).

usage: check_random.py [FILE]   prints, per kind, how many probes the engine reproduces exactly and the
first mismatches. Loop kinds (addf32, addu64) are checked by tests/test_probes_random.py.
"""

import json
import sys
from collections import defaultdict

import numpy as np

import bankism

path = sys.argv[1] if len(sys.argv) > 1 else "traces/probes/random/sm_90_atomics_random.json"
with open(path) as fh:
    doc = json.load(fh)
col = {c: i for i, c in enumerate(doc["columns"])}
by_kind = defaultdict(list)
for row in doc["probes"]:
    by_kind[row[col["kind"]]].append(row)
for kind, rows in sorted(by_kind.items()):
    info = doc["kinds"][kind]
    if info["atomic_kind"] in ("add_f32", "add_u64"):
        continue
    a = np.array([r[col["addresses"]] for r in rows], dtype=np.int64)
    m = np.array([r[col["active"]] for r in rows], dtype=np.int64)
    res = bankism.simulate(a, width=info["width"], op="atomic", atomic_op=info["atomic_kind"], active=m)
    bad = [
        (r, int(res.wavefronts[i]), int(res.conflicts[i]))
        for i, r in enumerate(rows)
        if (int(res.wavefronts[i]), int(res.conflicts[i]))
        != (r[col["atom_wavefronts"]], r[col["atom_conflicts"]])
    ]
    print(f"{kind:8s} {info['sass']:20s} {len(rows) - len(bad)}/{len(rows)}")
    for r, w, c in bad[:5]:
        print(
            "   ",
            r[col["id"]],
            r[col["name"]],
            "pred",
            (w, c),
            "meas",
            (r[col["atom_wavefronts"]], r[col["atom_conflicts"]]),
        )
