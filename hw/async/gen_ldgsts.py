#!/usr/bin/env python3
"""Deterministic pattern set for the cp.async (LDGSTS) probes.

The shared-side patterns are taken from the measured STS probes (traces/probes/sm_90_probes.json), so
every LDGSTS probe has a store twin of the same width measured on the same H100: the 16-byte ones
as cp.async.ca and .cg, the 8- and 4-byte ones as .ca (.cg only exists for 16 bytes). Each lane reads
its own 16-byte-aligned global chunk (lane * 16) unless the family says otherwise; the `global`
family keeps the shared pattern fixed and varies the global one, to see whether the global side
changes how the shared writes are served.

usage: gen_ldgsts.py [OUT_DIR]   (writes ldgsts_patterns.json/.txt and ldgsts_smoke.json/.txt)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
FULL = 0xFFFFFFFF

KERNELS = {  # (width, cache) -> kernel, sass
    (4, "ca"): ("probe_cpasync_ca_4", "LDGSTS.E"),
    (8, "ca"): ("probe_cpasync_ca_8", "LDGSTS.E.64"),
    (16, "ca"): ("probe_cpasync_ca_16", "LDGSTS.E.128"),
    (16, "cg"): ("probe_cpasync_cg_16", "LDGSTS.E.BYPASS.128"),
}


def select(probes: list[dict], width: int, keep) -> list[dict]:
    stores = [p for p in probes if p["op"] == "store" and p["width"] == width]
    return [p for i, p in enumerate(stores) if keep(i)]


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    measured = json.loads((ROOT / "traces/probes/sm_90_probes.json").read_text())["probes"]
    plan = [
        ((16, "ca"), select(measured, 16, lambda i: i % 2 == 0)),
        ((16, "cg"), select(measured, 16, lambda i: i % 2 == 1 or i % 8 == 0)),
        ((8, "ca"), select(measured, 8, lambda i: i % 2 == 0)),
        ((4, "ca"), select(measured, 4, lambda i: i % 3 == 0)),
    ]
    default_global = [lane * 16 for lane in range(32)]
    rows = []
    for (width, cache), twins in plan:
        kernel, sass = KERNELS[(width, cache)]
        for twin in twins:
            rows.append({
                "family": twin["family"], "name": twin["name"].replace("store", f"cp.async.{cache}"),
                "width": width, "cache": cache, "kernel": kernel, "sass": sass, "active": twin["active"],
                "addresses": twin["addresses"], "global": default_global, "store_twin": twin["id"],
            })
    # The global family: fixed shared pattern (contiguous, and a 4-way conflicting one), global varied.
    shared_patterns = {
        "contiguous": lambda w: [lane * w for lane in range(32)],
        "stride 4 chunks": lambda w: [lane * w * 4 for lane in range(32)],
    }
    global_patterns = {
        "global broadcast": [0] * 32,
        "global reversed": [(31 - lane) * 16 for lane in range(32)],
        "global stride 128B": [lane * 128 for lane in range(32)],
        "global stride 4KiB": [lane * 4096 for lane in range(32)],
        "global pairs xor 1": [(lane ^ 1) * 16 for lane in range(32)],
    }
    for (width, cache), (kernel, sass) in KERNELS.items():
        for shared_name, shared in shared_patterns.items():
            for global_name, glob in global_patterns.items():
                rows.append({
                    "family": "global", "name": f"cp.async.{cache} w{width} {shared_name}, {global_name}",
                    "width": width, "cache": cache, "kernel": kernel, "sass": sass, "active": FULL,
                    "addresses": shared(width), "global": glob, "store_twin": None,
                })
    write(out, "ldgsts_patterns", rows)
    # Second campaign: the 4- and 8-byte store twins again with coalesced global sources (lane * width:
    # a warp reads 128 or 256 contiguous bytes), and 16-byte .ca probes whose quarter-warps read 1, 2, 4
    # or 8 global lines, to see how the global side groups the shared writes.
    second = []
    for width, keep in ((4, lambda i: True), (8, lambda i: True)):
        kernel, sass = KERNELS[(width, "ca")]
        for twin in select(measured, width, keep):
            second.append({
                "family": twin["family"],
                "name": twin["name"].replace("store", "cp.async.ca") + ", global coalesced",
                "width": width, "cache": "ca", "kernel": kernel, "sass": sass, "active": twin["active"],
                "addresses": twin["addresses"], "global": [lane * width for lane in range(32)],
                "store_twin": twin["id"],
            })
    L = range(32)  # noqa: N806
    shared16 = {
        "contiguous": [lane * 16 for lane in L],
        "chunk-major 8-way (lane%8 * 1024 + lane/8 * 16)": [(i % 8) * 1024 + (i // 8) * 16 for i in L],
        "chunk-major padded (lane%8 * 1040 + lane/8 * 16)": [(i % 8) * 1040 + (i // 8) * 16 for i in L],
        "2-way (lane * 64)": [lane * 64 for lane in L],
    }
    global16 = {
        "global 1 line per quarter": [lane * 16 for lane in L],
        "global 2 lines per quarter (64 B rows 1 KiB apart)": [(i // 4) * 1024 + (i % 4) * 16 for i in L],
        "global 4 lines per quarter (32 B rows 1 KiB apart)": [(i // 2) * 1024 + (i % 2) * 16 for i in L],
        "global 8 lines per quarter (16 B rows 1 KiB apart)": [lane * 1024 for lane in L],
        "global 1 line per half-warp, 2 lanes per chunk": [(lane // 2) * 16 for lane in L],
        "global quarter lines swapped (lane ^ 8)": [(lane ^ 8) * 16 for lane in L],
    }
    kernel, sass = KERNELS[(16, "ca")]
    for shared_name, shared in shared16.items():
        for global_name, glob in global16.items():
            second.append({
                "family": "global16", "name": f"cp.async.ca w16 {shared_name}, {global_name}", "width": 16,
                "cache": "ca", "kernel": kernel, "sass": sass, "active": FULL, "addresses": shared,
                "global": glob, "store_twin": None,
            })
    write(out, "ldgsts_patterns2", second)
    print(f"{len(rows)} patterns, {len(second)} in the second campaign")
    smoke_file(out, rows)


def write(out: Path, stem: str, rows: list[dict]) -> None:
    for i, row in enumerate(rows):
        row["id"] = i
        assert all(a % row["width"] == 0 and a + 16 <= 100 * 1024 for a in row["addresses"])
        assert all(g % row["width"] == 0 and g + 16 <= 256 * 1024 for g in row["global"])
    (out / f"{stem}.json").write_text(
        json.dumps({"format": "bankism-ldgsts-patterns", "version": 1, "probes": rows}) + "\n"
    )
    with open(out / f"{stem}.txt", "w") as fh:
        for row in rows:
            fields = [row["id"], row["kernel"], row["active"], *row["addresses"], *row["global"]]
            fh.write(" ".join(str(v) for v in fields) + "\n")


def smoke_file(out: Path, rows: list[dict]) -> None:
    # A dozen of them for the tracer's smoke test (ids renumbered 0..11): per kernel one full-warp
    # stride, one partial mask, one global-broadcast probe.
    smoke = []
    for kernel, _ in KERNELS.values():
        mine = [r for r in rows if r["kernel"] == kernel]
        smoke += [r for r in mine if r["family"] == "stride"][1:2]
        smoke += [r for r in mine if r["family"] == "mask"][:1]
        smoke += [r for r in mine if r["family"] == "global" and "chunks, global broadcast" in r["name"]]
    with open(out / "ldgsts_smoke.txt", "w") as fh:
        for i, row in enumerate(smoke):
            fields = [i, row["kernel"], row["active"], *row["addresses"], *row["global"]]
            fh.write(" ".join(str(v) for v in fields) + "\n")
    (out / "ldgsts_smoke.json").write_text(json.dumps([row["id"] for row in smoke]) + "\n")



if __name__ == "__main__":
    main()
