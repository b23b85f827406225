#!/usr/bin/env python3
"""Turn the atomic-phase probe's ncu CSV into traces/surplus/sm_90_atomic_phase.json and print a table.

usage: collect_atomic_phase.py CSV ENV [--configs FILE] [--stdout FILE] [--out FILE]

CSV is atomic_phase.csv of hw/surplus/run_atomic_phase.sh (ncu --csv --page raw, one row per launch of
hw/surplus/atomic_phase.cu, the program's own lines interleaved), ENV its env.txt. The launches are
matched in order to the lines of the configuration file (hw/surplus/atomic_phase_configs.txt); the grid,
block and template arguments of each row are checked against its line. With the plain run's stdout
(atomic_phase.stdout next to the CSV, or --stdout) each launch also gets its OK/FAIL check and time.
surplus = atomic wavefronts - SASS-instrumented (address-level) atomic wavefronts.
"""

from __future__ import annotations

import argparse
import json
import os
import re
from typing import Any

from collect_sweep import number, parse_env, rows  # the sweep's ncu CSV and env.txt readers

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

FIELDS = (
    "name",
    *("blocks", "threads", "rounds", "nops", "lanes", "stride", "wpriv", "bar", "used", "gap", "pl", "rb"),
)
METRICS = {
    "atom_instructions": "smsp__sass_inst_executed_op_shared_atom.sum",
    "atom_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
    "atom_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum",
    "atom_addressed_wavefronts": "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
    "ld_instructions": "smsp__sass_inst_executed_op_shared_ld.sum",
    "ld_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "ld_addressed_wavefronts": "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "st_instructions": "smsp__sass_inst_executed_op_shared_st.sum",
    "st_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "st_addressed_wavefronts": "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1_fill_sectors": "l1tex__m_xbar2l1tex_read_sectors.sum",
    "global_store_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "sm_cycles": "sm__cycles_elapsed.avg",
    "warps_active_percent": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "duration_ns": "gpu__time_duration.sum",
}
KERNEL = re.compile(r"atomic_phase<(\d+), (true|false|0|1), (-?\d+)>")
MANGLED = re.compile(r"_Z12atomic_phaseILi(\d+)ELb([01])ELi(n?\d+)EE")  # --print-kernel-base mangled
COMPILED_STRIDES = (0, 1, 2, 8, 16, 32)  # the others run the generic instance (stride -1)


def configs(path: str) -> list[dict[str, Any]]:
    """The configuration lines (12 or 13 fields after the name; rb defaults to 0)."""
    out = []
    with open(path) as fh:
        for line in fh:
            parts = line.split()
            if len(parts) < len(FIELDS) - 1 or parts[0].startswith("#"):
                continue
            values = parts + ["0"] * (len(FIELDS) - len(parts))
            out.append({f: (v if f == "name" else int(v)) for f, v in zip(FIELDS, values, strict=True)})
    return out


def plain_run(path: str | None) -> dict[str, dict[str, Any]]:
    """The plain run's CONFIG lines by name: check (OK/FAIL), wrong words, cudaEvent milliseconds."""
    if not path or not os.path.exists(path):
        return {}
    out = {}
    with open(path, errors="replace") as fh:
        for line in fh:
            parts = line.split()
            if len(parts) < 4 or parts[0] != "CONFIG":
                continue
            keys = dict(p.split("=", 1) for p in parts[3:-1] if "=" in p)
            out[parts[2]] = {"check": parts[-1], "wrong": int(keys["wrong"]), "ms": float(keys["ms"])}
    return out


def check_row(config: dict[str, Any], row: dict[str, str]) -> None:
    """Fail unless the profiled launch is the configuration's kernel, grid and block."""
    name, kernel = config["name"], row.get("Kernel Name", "")
    m = KERNEL.search(kernel) or MANGLED.search(kernel)
    assert m, (name, kernel)
    template = (int(m.group(1)), m.group(2) in ("true", "1"), int(m.group(3).replace("n", "-")))
    stride = config["stride"] if config["stride"] in COMPILED_STRIDES else -1
    assert template == (config["nops"], bool(config["used"]), stride), (name, m.group(0))
    for column, size in (("Grid Size", config["blocks"]), ("Block Size", config["threads"])):
        assert row.get(column, "").replace(" ", "") == f"({size},1,1)", (name, column, row.get(column))


def launch(config: dict[str, Any], row: dict[str, str], plain: dict[str, Any] | None) -> dict[str, Any]:
    """One launch: its configuration, counters and the atomic surplus."""
    metrics = {key: number(row[metric]) if metric in row else None for key, metric in METRICS.items()}
    expected = config["blocks"] * (config["threads"] // 32) * config["rounds"] * config["nops"]
    measured, addressed = metrics["atom_wavefronts"], metrics["atom_addressed_wavefronts"]
    surplus = measured - addressed if measured is not None and addressed is not None else None
    return {
        **config,
        "expected_atom_instructions": expected,
        "metrics": metrics,
        "surplus": surplus,
        "surplus_share": surplus / measured if surplus is not None and measured else None,
        "surplus_per_instruction": surplus / expected if surplus is not None and expected else None,
        "plain_run": plain,
    }


def table(launches: list[dict[str, Any]]) -> str:
    """A compact text table of the launches."""
    head = (
        f"{'name':28} {'blk':>4} {'thr':>4} {'rnd':>3} {'n':>1} {'ln':>2} {'s':>2} {'wp':>2} {'b':>1} "
        f"{'u':>1} {'gap':>3} {'pl':>2} {'rb':>2} {'instr':>8} {'wavefr':>8} {'addr':>8} {'surplus':>7} "
        f"{'share':>6} {'confl':>7} {'cycles':>8} chk"
    )
    lines = [head]
    for x in launches:
        m = x["metrics"]

        def show(v: float | None, width: int) -> str:
            return f"{'-' if v is None else round(v):>{width}}"

        share = "-" if x["surplus_share"] is None else f"{100 * x['surplus_share']:.2f}%"
        lines.append(
            f"{x['name'][:28]:28} {x['blocks']:>4} {x['threads']:>4} {x['rounds']:>3} {x['nops']:>1} "
            f"{x['lanes']:>2} {x['stride']:>2} {x['wpriv']:>2} {x['bar']:>1} {x['used']:>1} {x['gap']:>3} "
            f"{x['pl']:>2} {x['rb']:>2} {show(m['atom_instructions'], 8)} {show(m['atom_wavefronts'], 8)} "
            f"{show(m['atom_addressed_wavefronts'], 8)} {show(x['surplus'], 7)} {share:>6} "
            f"{show(m['atom_conflicts'], 7)} {show(m['sm_cycles'], 8)} "
            f"{(x['plain_run'] or {}).get('check', '-')}"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("csv", help="atomic_phase.csv (ncu --csv --page raw)")
    parser.add_argument("env", help="env.txt of the same run")
    parser.add_argument("--configs", default=os.path.join(HERE, "atomic_phase_configs.txt"))
    parser.add_argument("--stdout", default=None, help="the plain run's output (default: atomic_phase.stdout "
                        "next to the CSV)")  # fmt: skip
    parser.add_argument("--out", default=os.path.join(ROOT, "traces", "surplus", "sm_90_atomic_phase.json"))
    args = parser.parse_args()
    wanted = configs(args.configs)
    found = rows(args.csv)
    assert len(found) == len(wanted), f"{args.csv}: {len(found)} launches, {len(wanted)} configurations"
    here = os.path.dirname(os.path.abspath(args.csv))
    plain = plain_run(args.stdout or os.path.join(here, "atomic_phase.stdout"))
    launches = []
    for config, row in zip(wanted, found, strict=True):
        check_row(config, row)
        launches.append(launch(config, row, plain.get(config["name"])))
    method = (
        "hw/surplus/atomic_phase.cu: torch.topk's radix-count phase (sbtopk::gatherTopK: lane 0 of every warp"
        " of a 1,024-thread block does 4 back-to-back single-lane ATOMS.ADD of ballot popcounts to 4 adjacent"
        " shared words, then __syncthreads()) with one parameter changed at a time: threads, atomics per "
        "round (nops), stride between their words, active lanes, per-warp counters (wpriv), barrier, result "
        "used, a per-warp ALU gap before the atomics, global loads before the ballot (pl 1 streaming misses, "
        "pl 2 L1 hits), topk's reset and read-back of the counters (rb). Configurations in "
        "hw/surplus/atomic_phase_configs.txt; every launch checked on the host (every counter word, read-back"
        " sums). Nsight Compute (--page raw, --cache-control none, --clock-control none), one profiled launch"
        " per configuration, by hw/surplus/run_atomic_phase.sh. surplus = "
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum - "
        "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom.sum (the address-level wavefronts); "
        "surplus_share = surplus / measured wavefronts; surplus_per_instruction = surplus / "
        "expected_atom_instructions (blocks x warps x rounds x nops)."
    )
    document = {
        "format": "bankism-surplus-atomic-phase",
        "version": 1,
        "environment": parse_env(args.env),
        "method": method,
        "metrics": METRICS,
        "launches": launches,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as fh:
        json.dump(document, fh, indent=1)
        fh.write("\n")
    print(table(launches))
    failed = [x["name"] for x in launches if (x["plain_run"] or {}).get("check") == "FAIL"]
    print(f"wrote {args.out}: {len(launches)} launches" + (f"; FAILED checks: {failed}" if failed else ""))


if __name__ == "__main__":
    main()
