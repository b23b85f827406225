"""Write a large synthetic npz trace for benchmarks/bench_analyze.py (never committed: it is data).

Run: python benchmarks/make_large_trace.py OUT.json [--records 15000000] [--source traces/sgemm_regtile.json]

The records are launch 0 of the source trace (a real H100 capture), repeated over a larger grid:
copy k of the recorded blocks becomes blocks k * blocks_recorded ... of a grid widened to hold
them, so every record keeps its site, warp, lanes and addresses. The npz is written member by
member and chunk by chunk, deflated at level 1 like ``bankism.trace.save``, so memory stays small.
Counters are dropped: no number in the output was measured.
"""

from __future__ import annotations

import argparse
import json
import zipfile
from pathlib import Path

import numpy as np

FIELDS = ("block", "warp", "site", "active", "addresses")


def _source_records(source: Path) -> tuple[dict, dict[str, np.ndarray]]:
    doc = json.loads(source.read_text())
    launch = doc["launches"][0]
    with np.load(source.parent / launch["records_file"]) as npz:
        arrays = {field: npz[f"{launch['index']}/{field}"] for field in FIELDS}
    return doc, arrays


def _copy(arrays: dict[str, np.ndarray], k: int, grid_x: int, blocks: int) -> dict[str, np.ndarray]:
    """Copy k of the source records, its blocks renumbered (linear block id + k * blocks)."""
    block = arrays["block"].astype(np.int64)
    linear = block[:, 0] + grid_x * block[:, 1] + k * blocks
    moved = np.stack([linear % grid_x, linear // grid_x, np.zeros_like(linear)], axis=1).astype(np.int32)
    return {"block": moved, **{f: arrays[f] for f in FIELDS if f != "block"}}


def write(out: Path, records: int, source: Path) -> None:
    doc, arrays = _source_records(source)
    launch = doc["launches"][0]
    per_copy = arrays["warp"].shape[0]
    copies = -(-records // per_copy)
    source_grid = launch["grid"]
    blocks = source_grid[0] * source_grid[1] * source_grid[2]
    grid_x = source_grid[0]
    grid_y = -(-(blocks * copies) // grid_x)
    launch.update(grid=[grid_x, grid_y, 1], blocks_total=grid_x * grid_y, blocks_recorded="all",
                  counters=None, records_file=out.with_suffix(".npz").name)
    doc["launches"] = [launch]
    doc["environment"]["captured"] = None
    doc["description"] = (f"synthetic: {records} records, launch 0 of {source} repeated "
                          f"(benchmarks/make_large_trace.py); counters dropped")
    index = launch["index"]
    with zipfile.ZipFile(out.with_suffix(".npz"), "w", compression=zipfile.ZIP_DEFLATED,
                         compresslevel=1) as archive:
        for field in FIELDS:
            first = arrays[field]
            shape = (records, *first.shape[1:])
            with archive.open(f"{index}/{field}.npy", "w", force_zip64=True) as member:
                header = {"descr": np.lib.format.dtype_to_descr(first.dtype), "fortran_order": False,
                          "shape": shape}
                np.lib.format.write_array_header_2_0(member, header)
                left = records
                for k in range(copies):
                    part = _copy(arrays, k, grid_x, blocks)[field][:left]
                    member.write(np.ascontiguousarray(part).tobytes())
                    left -= part.shape[0]
    out.write_text(json.dumps(doc, indent=1))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("out", type=Path)
    parser.add_argument("--records", type=int, default=15_000_000)
    parser.add_argument("--source", type=Path,
                        default=Path(__file__).parent.parent / "traces" / "sgemm_regtile.json")
    args = parser.parse_args()
    write(args.out, args.records, args.source)
    print(f"wrote {args.out} and {args.out.with_suffix('.npz')}")


if __name__ == "__main__":
    main()
