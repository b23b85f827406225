#!/usr/bin/env python3
"""Turn the async campaign's ncu exports into traces/probes/ files.

usage: collect.py FIRST_RESULTS SECOND_RESULTS OUT_DIR

Each results folder holds what one hw/async/run.sh run packed: env.txt, the ncu raw-page CSV of the
probes (one row per launch: the base probe first, then the patterns in order), the SASS dumps; the
first run also tma_wgmma.csv and tma_wgmma_stdout.txt (the PROBE lines name each launch in order), the
second cpasync_timing.txt. Writes OUT_DIR/sm_90_ldgsts_probes.json (both campaigns),
OUT_DIR/sm_90_tma_wgmma_probes.json and OUT_DIR/sm_90_cpasync_timing.txt (OUT_DIR: traces/probes/async).
"""

from __future__ import annotations

import csv
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "probes"))
from collect import parse_env  # noqa: E402

HERE = Path(__file__).resolve().parent

LDGSTS = {
    "instructions": "smsp__sass_inst_executed_op_ldgsts.sum",
    "bypass_instructions": "smsp__sass_inst_executed_op_ldgsts_cache_bypass.sum",
    "sass_wavefronts": "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum",
    "sass_conflicts": "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum",
    "conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum",
    "shared_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
    "shared_write_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum",
    "shared_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
    "ld_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "st_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "st_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "ld_instructions": "smsp__sass_inst_executed_op_shared_ld.sum",
    "st_instructions": "smsp__sass_inst_executed_op_shared_st.sum",
    "misc_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_misc.sum",
    "gmma_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum",
}


def number(text: str) -> int | float | None:
    text = text.replace(",", "").strip()
    if not text or text.lower() == "n/a":
        return None
    value = float(text)
    return int(value) if value == int(value) else value


def read_raw(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as fh:
        rows = [row for row in csv.reader(fh)]
    start = next(i for i, row in enumerate(rows) if row and row[0] == "ID")
    header = rows[start]
    return [dict(zip(header, row, strict=False)) for row in rows[start + 2:] if row]


def environment(results: Path) -> dict[str, str | None]:
    """GPU, driver, CUDA, ncu and date of a run, from its env.txt (the probes collector's parser)."""
    return parse_env(str(results))


def sass_lines(results: Path, name: str, pattern: str) -> list[str]:
    path = results / f"{name}.sass.txt"
    if not path.is_file():
        return []
    out, function = [], None
    for line in path.read_text().splitlines():
        found = re.search(r"Function : (\S+)", line)
        if found:
            function = found.group(1)
        elif re.search(pattern, line):
            out.append(f"{function}: {' '.join(line.split()[1:]).split(';')[0]}")
    return out


def ldgsts_campaign(results: Path, stem: str, csv_name: str, campaign: int) -> list[dict]:
    patterns = json.loads((HERE / f"{stem}.json").read_text())["probes"]
    rows = read_raw(results / csv_name)
    if len(rows) != len(patterns) + 1:
        raise SystemExit(f"{len(rows)} launches for {len(patterns)} patterns + 1 base probe")
    probes = []
    for pattern, row in zip(patterns, rows[1:], strict=True):
        if row["Kernel Name"] != pattern["kernel"]:
            raise SystemExit(f"launch {row['ID']}: kernel {row['Kernel Name']} != {pattern['kernel']}")
        measured = {key: number(row[metric]) for key, metric in LDGSTS.items() if metric in row}
        probes.append({**pattern, "campaign": campaign, "measured": measured})
    return probes


def ldgsts(first: Path, second: Path, out: Path) -> None:
    probes = ldgsts_campaign(first, "ldgsts_patterns", "ldgsts_probes.csv", 1)
    probes += ldgsts_campaign(second, "ldgsts_patterns2", "ldgsts_patterns2.csv", 2)
    for i, probe in enumerate(probes):
        probe["pattern_id"], probe["id"] = probe["id"], i
    doc = {
        "format": "bankism-ldgsts-probes", "version": 1, "environment": environment(second),
        "campaigns": {"1": environment(first), "2": environment(second)},
        "shared_base": 1024,
        "notes": (
            "One launch = one warp (1 block x 32 threads) executing exactly one cp.async (LDGSTS) of the "
            "given width and cache mode, then cp.async.wait_all; nothing reads the destination back. "
            "'addresses' are byte offsets from the dynamic extern __shared__ array (window address 1024); "
            "'global' are the lanes' byte offsets in the 16-byte-aligned source buffer. Inactive lanes skip "
            "the cp.async by branch. Campaign 1 (hw/async/ldgsts_patterns.json): the store probes' shared "
            "patterns with each lane reading global bytes lane*16, and a 'global' family; campaign 2 "
            "(ldgsts_patterns2.json): the 4- and 8-byte store patterns with coalesced sources (lane*width) "
            "and a 'global16' family. Counters from Nsight Compute (--page raw, kernel replay, "
            "--cache-control none --clock-control none); 'measured' maps short names to 'metrics' "
            "(misc/gmma wavefronts: campaign 2 only)."
        ),
        "metrics": LDGSTS,
        "sass": sass_lines(second, "ldgsts_probe", r"LDGSTS|LDS|STS|DEPBAR"),
        "probes": probes,
    }
    (out / "sm_90_ldgsts_probes.json").write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    print(f"{len(probes)} ldgsts probes")


def tma_wgmma(results: Path, out: Path) -> None:
    names = [line.split(" ", 2)[2] for line in (results / "tma_wgmma_stdout.txt").read_text().splitlines()
             if line.startswith("PROBE ")]
    rows = read_raw(results / "tma_wgmma.csv")
    if len(rows) != len(names):
        raise SystemExit(f"{len(rows)} launches for {len(names)} PROBE lines")
    metrics = [m for m in rows[0] if re.match(r"^(l1tex|smsp|sm)__", m)]
    probes = [
        {"launch": i, "name": name, "kernel": row["Kernel Name"],
         "measured": {m: number(row[m]) for m in metrics}}
        for i, (name, row) in enumerate(zip(names, rows, strict=True))
    ]
    doc = {
        "format": "bankism-tma-wgmma-probes", "version": 1, "environment": environment(results),
        "notes": (
            "hw/async/tma_wgmma_probe.cu: one launch per probe, in order. bulk_copy: one cp.async.bulk "
            "global -> shared of the given bytes (0: the mbarrier-only baseline). tma_2d: "
            "cp.async.bulk.tensor.2d of 64-row boxes of a uint32 matrix under the given swizzle (copies: "
            "how many boxes). wgmma: "
            "one wgmma.mma_async m64n64k16 f16 -> f32 by one warpgroup, A and B from shared-memory "
            "descriptors with the given swizzle field, leading (lbo) and stride (sbo) byte offsets. Counters "
            "from Nsight Compute (--page raw, --cache-control none --clock-control none)."
        ),
        "sass": sass_lines(results, "tma_wgmma_probe", r"UBLKCP|UTMALDG|HGMMA|SYNCS|LDS|STS"),
        "probes": probes,
    }
    (out / "sm_90_tma_wgmma_probes.json").write_text(json.dumps(doc, indent=1) + "\n")
    print(f"{len(probes)} tma/wgmma probes")


def main() -> None:
    first, second, out = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    ldgsts(first, second, out)
    tma_wgmma(first, out)
    timing = (second / "cpasync_timing.txt").read_text()
    where = " ".join(environment(second).get(k) or "?" for k in ("gpu", "driver", "cuda", "date"))
    header = f"hw/async/cpasync_timing.cu on the H100, {where}"
    (out / "sm_90_cpasync_timing.txt").write_text(f"{header}\n{timing}")

if __name__ == "__main__":
    main()
