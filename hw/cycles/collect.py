#!/usr/bin/env python3
"""Turn the cycles benchmark output into traces/cycles/sm_90_cycles.json.

usage: collect.py CONFIGS.json RESULTS_DIR OUT.json
(also for configs_atomics.json -> traces/cycles/sm_90_cycles_atomics.json: rows whose
config has atomic_kind carry it, and the method text then describes the exch/cas kernels)
RESULTS_DIR: env.txt, cycles_time.txt (ROW lines of `cycles configs.txt time`),
cycles.csv (ncu --page raw of `cycles configs.txt ncu`: one launch per config,
1 warp, 1 iteration of 32 copies).
"""
import csv
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "probes"))
from collect import num, parse_env  # noqa: E402

COPIES = 32
WARPS = 32
ITERS = 128


ATOMICS_METHOD = (
    " This file: only atom.shared.exch.b32 / .cas.b32 / .exch.b64 / .cas.b64 (kernels atom_exch_b32, "
    "atom_cas_b32, atom_exch_b64, atom_cas_b64; configs from gen_configs.py --atomics-only, the pattern "
    "families of the atom_add rows; 8-byte patterns 8-byte aligned), atomic_kind = exch|cas per row. "
    "exch swaps in the lane's running value; its old value is folded into the result. cas: before the "
    "first clock64 each active lane zeroes all 32 of its target words (or 8-byte words), and the compare "
    "value is all ones (0xFFFFFFFF / 0xFFFFFFFFFFFFFFFF), so every CAS fails and never writes; the returned "
    "old value is folded into the result. Because of those setup stores (ncu counts them under op_st), "
    "in this file wavefronts_per_instruction and conflicts_per_instruction are op_atom alone / 32 and "
    "sass_shared_instructions_per_instruction is smsp__sass_inst_executed_op_shared_atom / 32 (collect.py "
    "checks: 0 ld, 32 (cas) or 0 (exch) st, 32 atom instructions per launch); the stores are outside the "
    "timed region. SASS: ATOMS.EXCH, ATOMS.CAS, ATOMS.EXCH.64, ATOMS.CAS.64, one per "
    "PTX instruction (no CAS loop).")


def main():
    cfg_path, d, out_path = sys.argv[1:4]
    with open(cfg_path) as fh:
        cfg = json.load(fh)["rows"]
    tm = {}
    with open(os.path.join(d, "cycles_time.txt")) as fh:
        for line in fh:
            if line.startswith("ROW"):
                t = line.split()
                g = {t[k]: t[k + 1] for k in range(3, len(t) - 1, 2)}
                tm[int(t[1])] = (t[2], g)
    with open(os.path.join(d, "cycles.csv")) as fh:
        rows = list(csv.reader(fh))
    hdr, data = rows[0], rows[2:]
    col = {h: i for i, h in enumerate(hdr)}
    assert len(data) == len(cfg), (len(data), len(cfg))

    def m(r, k):
        return num(r[col[k]]) if k in col else None
    out = []
    for c, r in zip(cfg, data, strict=False):
        kname, g = tm[c["id"]]
        assert kname == c["kernel"], (kname, c)
        assert "bench<" in r[col["Kernel Name"]] or "bench" in r[col["Kernel Name"]]
        ops = ("ld", "st", "atom")
        sass_inst = m(r, "smsp__sass_inst_executed_op_shared.sum")
        if "atomic_kind" in c:
            # exch/cas kernels: count op_atom only. The cas kernels' untimed setup stores
            # (one st.shared per copy zeroing the CAS targets) are counted by ncu under op_st.
            ops = ("atom",)
            n_st = COPIES if c["atomic_kind"] == "cas" else 0
            assert m(r, "smsp__sass_inst_executed_op_shared_ld.sum") == 0, c["id"]
            assert m(r, "smsp__sass_inst_executed_op_shared_st.sum") == n_st, c["id"]
            assert m(r, "smsp__sass_inst_executed_op_shared_atom.sum") == COPIES, c["id"]
            sass_inst = m(r, "smsp__sass_inst_executed_op_shared_atom.sum")
        wf = sum(m(r, f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{o}.sum") or 0 for o in ops)
        cf = sum(m(r, f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{o}.sum") or 0 for o in ops)
        out.append({
            "op": c["op"], "width": c["width"], "matrices": c["matrices"], "kernel": c["kernel"],
            "pattern": c["pattern"], "addresses": c["addresses"], "active": c["active"],
            "wavefronts_per_instruction": round(wf / COPIES, 4),
            "conflicts_per_instruction": round(cf / COPIES, 4),
            "sass_shared_instructions_per_instruction": (
                round(sass_inst / COPIES, 4) if sass_inst is not None else None),
            "cycles_per_instruction": round(float(g["cpi"]), 4),
            "cycles_per_instruction_min": round(float(g["cpi_min"]), 4),
            "cycles_per_instruction_max": round(float(g["cpi_max"]), 4),
            "warps_per_sm": WARPS, "copies": COPIES, "iterations": ITERS,
        })
        if "atomic_kind" in c:
            out[-1]["atomic_kind"] = c["atomic_kind"]
    doc = {
        "format": "bankism-cycles", "version": 1,
        "environment": parse_env(d),
        "method": (
            "hw/cycles/cycles.cu: grid = 132 blocks (one per SM) x 1024 threads (32 warps/SM), 100 KiB "
            "dynamic smem; every warp runs 128 iterations of 32 independent copies of one shared-memory "
            "instruction (inline PTX; loads as ld.volatile.shared) on its lane pattern + j*128 bytes for "
            "copy j (immediate offsets, same banks); results folded 8 at a time with asm adds; the loop "
            "address also adds zero*iteration with zero=0 a kernel argument, so ptxas can neither hoist nor "
            "merge loads (checked in cycles_sass). Thread 0 reads clock64 after a __syncthreads at start and "
            "end; cycles_per_instruction = median over 132 SMs of (end-start) / (32 warps * 128 * 32), "
            "median of 5 runs after a warm-up (min/max over the 5 runs also given). "
            "wavefronts_per_instruction: Nsight Compute on a separate launch of the same kernel with 1 warp "
            "and 1 iteration (32 instructions): "
            "sum over op_ld/op_st/op_atom of l1tex__data_pipe_lsu_wavefronts_mem_shared / 32. SM clock not "
            "locked (measured as found). atom.shared.add.u64 is a CAS loop on sm_90 (LDS.64 + "
            "ATOMS.CAST.SPIN.64), so its rows count all loop iterations; its cycles are per PTX instruction."
            + (ATOMICS_METHOD if any("atomic_kind" in c for c in cfg) else "")),
        "rows": out,
    }
    with open(out_path, "w") as f:
        json.dump(doc, f, indent=None, separators=(",", ":"))
    print(f"wrote {out_path}: {len(out)} rows")


if __name__ == "__main__":
    main()
