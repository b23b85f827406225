#!/usr/bin/env python3
"""Turn the atomic campaign's ncu CSV into traces/probes/sm_90_atomics.json.

usage: collect.py PATTERNS.json RESULTS_DIR OUT.json [RAW_OUT.csv]

RESULTS_DIR holds what hw/atomics/run.sh wrote to $OUT: env.txt, log.txt, probes.csv (ncu --page raw
--csv, one row per launch; the first launch is the shared-base probe and is dropped) and sass.txt
(cuobjdump -sass of the probe binary: each probe records the shared-memory SASS of its kernel).
"""
import csv
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "probes"))
from collect import M, num, parse_env, read_csv  # noqa: E402

EXTRA = ["l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "smsp__sass_inst_executed_op_shared.sum",
         "smsp__inst_executed_op_shared_atom_dot_alu.sum", "smsp__inst_executed_op_shared_atom_dot_cas.sum",
         "profiler__replayer_passes"]
SHARED_SASS = re.compile(r"\b((?:LDS|STS|ATOMS|ATOM|LD|ST|QSPC)(?:\.[A-Za-z0-9_]+)*)\b")


def kernel_sass(path):
    """kernel -> the shared-memory-capable SASS opcodes of its body, in program order."""
    out, name = {}, None
    with open(path) as fh:
        for line in fh:
            found = re.search(r"Function : (\S+)", line)
            if found:
                name = found.group(1)
                out[name] = []
                continue
            body = re.search(r"/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Za-z0-9_.]*)", line)
            if name and body and SHARED_SASS.fullmatch(body.group(1)) and not body.group(1).startswith("LDC"):
                out[name].append(body.group(1))
    return out


def main():
    pat_path, d, out_path = sys.argv[1:4]
    raw_out = sys.argv[4] if len(sys.argv) > 4 else None
    with open(pat_path) as fh:
        pats = json.load(fh)["probes"]
    with open(os.path.join(d, "log.txt")) as fh:
        log = fh.read()
    base = int(re.search(r"SHARED_BASE (\d+)", log).group(1))
    sass = kernel_sass(os.path.join(d, "sass.txt"))
    hdr, data = read_csv(os.path.join(d, "probes.csv"))
    col = {h: i for i, h in enumerate(hdr)}
    kcol = col["Kernel Name"]
    assert data[0][kcol].startswith(pats[0]["kernel"]), data[0][kcol]
    data = data[1:]
    assert len(data) == len(pats), (len(data), len(pats))
    probes, raw_rows = [], []
    for r, p in zip(data, pats, strict=True):
        kname = r[kcol].split("(")[0].strip()
        assert kname == p["kernel"], (p["id"], kname, p["kernel"])
        v = {k: num(r[col[m]]) for k, m in M.items()}
        rec = {k: p[k] for k in ("id", "family", "name", "op", "width", "matrices", "trans", "sass", "ptx",
                                 "active", "addresses", "atomic_kind", "kernel")}
        rec["sass_body"] = sass[kname]
        rec["counters"] = {
            "ld": {"instructions": v["ild"], "wavefronts": v["wld"], "conflicts": v["cld"]},
            "st": {"instructions": v["ist"], "wavefronts": v["wst"], "conflicts": v["cst"]},
            "atom": {"instructions": v["iat"], "wavefronts": v["wat"], "conflicts": v["cat"]},
        }
        rec["extra"] = {m: num(r[col[m]]) for m in EXTRA if m in col}
        probes.append(rec)
        raw_rows.append([p["id"], kname] + [r[col[m]] for m in list(M.values()) + EXTRA if m in col])
    env = parse_env(d)
    doc = {
        "format": "bankism-probes", "version": 1, "environment": env, "shared_base": base,
        "notes": (
            "Shared-memory atomics on sm_90 (hw/atomics/atomics.cu, patterns from hw/atomics/gen_patterns.py)"
            ". One launch = one warp (1 block x 32 threads); each active lane executes one PTX atomic on its "
            "byte offset from the dynamic shared array (shared-window address shared_base); inactive lanes "
            "branch around it. 'sass' says what ptxas emits (sass_body: the shared-memory SASS of the kernel,"
            " "
            "cuobjdump -sass); native forms are one ATOMS instruction, the others a retry loop whose "
            "iterations ncu counts (instructions > 1 under contention). atomic_kind names the form; "
            "the engine's atomic_op for each SASS opcode is in bankism/isa.py. Counters: Nsight Compute "
            "--page raw, kernel replay, --cache-control none --clock-control none, one profiled launch per "
            "probe; smsp__inst_executed_op_shared_atom_dot_alu/_dot_cas split ATOMS into ALU and CAS forms."),
        "probes": probes,
    }
    with open(out_path, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
    if raw_out:
        with open(raw_out, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["id", "kernel"] + list(M.values()) + EXTRA)
            w.writerows(raw_rows)
    print(f"wrote {out_path}: {len(probes)} probes, shared_base={base}, env={env}")


if __name__ == "__main__":
    main()
