#!/usr/bin/env python3
"""Turn the probe campaign's ncu CSVs into traces/probes/sm_90_probes.json.

usage: collect.py PATTERNS.json RESULTS_DIR OUT.json [RAW_OUT.csv]

RESULTS_DIR holds what hw/run_device.sh wrote to $OUT: env.txt, log.txt and
probes.csv or probes_0.csv, probes_1.csv, ... (ncu --page raw --csv, one row
per kernel launch).  In each CSV the first launch is the program's
shared-base probe (a launch of pattern 0's kernel) and is dropped; the rest are
the patterns of that chunk's id range, in order.  Kernel names are checked
against the patterns.
"""
import csv
import glob
import json
import os
import re
import sys

M = {
    "wld": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "wst": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "wat": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
    "cld": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "cst": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "cat": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum",
    "ild": "smsp__sass_inst_executed_op_shared_ld.sum",
    "ist": "smsp__sass_inst_executed_op_shared_st.sum",
    "iat": "smsp__sass_inst_executed_op_shared_atom.sum",
}
EXTRA = ["l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "smsp__sass_inst_executed_op_ldsm.sum",
         "smsp__sass_inst_executed_op_shared.sum", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
         "l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_read.sum",
         "l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum", "profiler__replayer_passes"]


def num(s):
    s = s.replace(",", "").strip()
    if s == "":
        return None
    v = float(s)
    return int(v) if v == int(v) else v


def parse_env(d):
    """GPU, driver, CUDA and ncu versions from the env.txt in directory ``d`` (or the file ``d`` itself)."""
    env = {"gpu": None, "compute_capability": None, "arch": "sm_90", "driver": None,
           "cuda": None, "ncu": None, "date": None}
    with open(d if os.path.isfile(d) else os.path.join(d, "env.txt")) as fh:
        t = fh.read()
    m = re.search(r"^(NVIDIA[^,\n]*), ([0-9.]+), ([0-9.]+)$", t, re.M)
    if m:
        env["gpu"], env["driver"], env["compute_capability"] = m.group(1), m.group(2), m.group(3)
    m = re.search(r"release ([0-9.]+), (V[0-9.]+)", t)
    if m:
        env["cuda"] = f"{m.group(1)} ({m.group(2)})"
    m = re.search(r"Version ([0-9.]+ \(build \d+\))", t)
    if m:
        env["ncu"] = m.group(1)
    m = re.search(r"date_utc: (\d{4}-\d\d-\d\d)", t)
    if m:
        env["date"] = m.group(1)
    return env


def read_csv(path):
    with open(path) as fh:
        rows = list(csv.reader(fh))
    hdr = rows[0]
    # row 1 = units; data afterwards
    return hdr, rows[2:]


def chunk_files(d):
    one = os.path.join(d, "probes.csv")
    if os.path.exists(one):
        return [one]
    return sorted(glob.glob(os.path.join(d, "probes_*.csv")),
                  key=lambda p: int(re.search(r"probes_(\d+)\.csv", p).group(1)))


def main():
    pat_path, d, out_path = sys.argv[1:4]
    raw_out = sys.argv[4] if len(sys.argv) > 4 else None
    with open(pat_path) as fh:
        pats = json.load(fh)["probes"]
    with open(os.path.join(d, "log.txt")) as fh:
        log = fh.read()
    bases = set(int(x) for x in re.findall(r"SHARED_BASE (\d+)", log))
    assert len(bases) == 1, bases
    base = bases.pop()
    ranges = [(int(a), int(b)) for a, b in re.findall(r"probes follow: (\d+)\.\.(\d+)", log)]
    files = chunk_files(d)
    assert len(files) == len(ranges), (files, ranges)
    probes = []
    raw_rows = []
    for f, (lo, hi) in zip(files, ranges, strict=False):
        hdr, data = read_csv(f)
        col = {h: i for i, h in enumerate(hdr)}
        kcol = col["Kernel Name"]
        assert data[0][kcol].startswith(pats[0]["kernel"]), (f, data[0][kcol])
        data = data[1:]
        assert len(data) == hi - lo + 1, (f, len(data), lo, hi)
        for r, p in zip(data, pats[lo:hi + 1], strict=False):
            kname = r[kcol].split("(")[0].strip()
            assert kname == p["kernel"], (p["id"], kname, p["kernel"])
            v = {k: num(r[col[m]]) if m in col else None for k, m in M.items()}
            extra = {m: num(r[col[m]]) for m in EXTRA if m in col}
            rec = {k: p[k] for k in ("id", "family", "name", "op", "width", "matrices", "trans", "sass",
                                     "ptx", "active", "addresses")}
            if "atomic_kind" in p:
                rec["atomic_kind"] = p["atomic_kind"]
            rec["counters"] = {
                "ld": {"instructions": v["ild"], "wavefronts": v["wld"], "conflicts": v["cld"]},
                "st": {"instructions": v["ist"], "wavefronts": v["wst"], "conflicts": v["cst"]},
                "atom": {"instructions": v["iat"], "wavefronts": v["wat"], "conflicts": v["cat"]},
            }
            rec["extra"] = extra
            probes.append(rec)
            raw_rows.append([p["id"], kname] + [r[col[m]] for m in list(M.values()) + EXTRA if m in col])
    probes.sort(key=lambda q: q["id"])
    assert [q["id"] for q in probes] == list(range(len(pats))), "missing probes"
    env = parse_env(d)
    doc = {
        "format": "bankism-probes", "version": 1,
        "environment": env,
        "shared_base": base,
        "notes": (
            "One launch = one warp (1 block x 32 threads) executing exactly one shared-memory SASS "
            "instruction (inline PTX; checked with cuobjdump -sass, see sass.txt), lane byte offsets and "
            "active mask read from device memory; inactive lanes skip the instruction by branch "
            "(ldmatrix/stmatrix: whole warp, lanes >= 8*matrices repeat the pattern unless the family says "
            "otherwise). 'addresses' are byte offsets from the dynamic extern __shared__ array, whose "
            f"shared-window address is shared_base (={base}, a multiple of 128, so banks are the same). "
            "100 KiB dynamic smem. Counters from Nsight Compute (--page raw, kernel replay, --cache-control "
            "none --clock-control none), one profiled launch per probe. Counter caveats (measured, not "
            "fixed): ldmatrix wavefronts/conflicts are counted under op_ld but its instruction count only "
            "in smsp__sass_inst_executed_op_ldsm (extra); stmatrix "
            "wavefronts/conflicts are counted under op_st, and no per-op instruction metric counts it "
            "(smsp__sass_inst_executed_op_shared, in extra, does). atom.shared.add.u64 has no native SASS on "
            "sm_90: ptxas emits LDS.64 + a loop of ATOMS.CAST.SPIN.64, so its counters include the LDS.64 "
            "(op_ld) and every CAS-loop iteration (op_atom; instructions > 1). "
            "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum (extra) is 2 above the per-op sum in every probe "
            "but the first of the run (1 there): launch overhead, not the instruction's. ncu needed 4 passes "
            "per launch (profiler__replayer_passes); with atom.add.u64's CAS loop the passes are separate "
            "executions."),
        "probes": probes,
    }
    with open(out_path, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
    if raw_out:
        with open(raw_out, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["id", "kernel"] + [m for m in list(M.values()) + EXTRA])
            w.writerows(raw_rows)
    print(f"wrote {out_path}: {len(probes)} probes, shared_base={base}, env={env}")


if __name__ == "__main__":
    main()
