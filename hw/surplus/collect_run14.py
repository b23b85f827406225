#!/usr/bin/env python3
"""Device run 14 of issue 21 into traces/surplus/sm_90_l1_capacity.json.

usage: python hw/surplus/collect_run14.py   (reads traces/surplus/device/run14, written by run_call14.sh)

Every launch of the tile-phase probe over hw/surplus/l1_capacity_configs.txt and of the corpus's tile DGEMM at
n 256..768, with the store and load surplus (hardware minus address-level wavefronts), the launch's shared
memory carve-out and ``kib_per_sm``: the L1 fill and global-store KiB one SM allocated (the blocks spread
over min(132, blocks) SMs).
"""

from __future__ import annotations

import os

from collect_runs_6_to_9 import (
    DEVICE,
    TILE_METRICS,
    _environment,
    _shares,
    tile_phase_rows,
    write_document,
)
from collect_sweep import number, rows

SMS = 132
SIZES = ((256, 16), (320, 16), (384, 16), (512, 16), (768, 16), (256, 32), (384, 32), (512, 32))
CARVE_OUT = "launch__shared_mem_config_size"


def _launch(name: str, blocks: int, threads: int, row: dict[str, str], **config) -> dict:
    metrics = {key: number(row[metric]) for key, metric in TILE_METRICS.items()}
    sectors = metrics["l1_fill_sectors"] + metrics["global_store_sectors"]
    return {
        "run": "run14",
        "name": name,
        **config,
        "blocks": blocks,
        "threads": threads,
        "kernel": row["Kernel Name"],
        "shared_carveout_bytes": number(row[CARVE_OUT]),
        "kib_per_sm": round(sectors * 32 / 1024 / min(SMS, blocks), 1),
        "metrics": metrics,
        **_shares(metrics),
    }


def main() -> None:
    run = os.path.join(DEVICE, "run14")
    launches = [_launch(**config, row=row)
                for config, row in tile_phase_rows("run14", "l1_capacity_configs.txt", "l1_capacity.csv")]
    for size, tile in SIZES:
        (row,) = rows(os.path.join(run, f"dgemm_{size}_{tile}.csv"))
        launches.append(_launch(f"dgemm:n{size}_tile{tile}", (size // tile) ** 2, tile * tile, row))
    document = {
        "format": "bankism-l1-capacity",
        "version": 1,
        "description": "does the store surplus of tiled kernels need L1 fills that evict? "
        "hw/surplus/tile_phase.cu "
        "with the bytes each SM fills swept from 16 KiB to 4 MiB, and traces/kernels/dgemm_tile.cu "
        "at n 256..768 (run 14, hw/surplus/run_call14.sh); surplus share = (hardware - "
        "SASS-instrumented address-level wavefronts) / hardware wavefronts",
        "environment": _environment("run14"),
        "launches": launches,
    }
    path = write_document("sm_90_l1_capacity.json", document)
    print(f"{path}: {len(launches)} launches")


if __name__ == "__main__":
    main()
