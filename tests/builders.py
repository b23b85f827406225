"""Synthetic trace builders shared by the trace, analyze and CLI tests (this module holds no tests).

Every number these traces carry is made up by the tests; none of it is measured, and the
``counters`` they attach are computed from the synthetic records, never labelled as ncu output.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

FULL = 0xFFFFFFFF
BASE = 1024


def site(site_id: int, op: str = "load", width: int = 4, matrices: int | None = None, **extra: Any) -> dict:
    """One instruction site of a synthetic launch."""
    return {"id": site_id, "pc": 16 * (site_id + 1), "sass": extra.pop("sass", "LDS"), "op": op,
            "width": width, "matrices": matrices, "trans": False, "file": extra.pop("file", "synthetic.cu"),
            "line": extra.pop("line", 10 + site_id), **extra}


def records(rows: list[tuple[tuple[int, int, int], int, int, int, list[int]]]) -> dict[str, np.ndarray]:
    """Record arrays from (block, warp, site, active, addresses) tuples."""
    return {
        "block": np.asarray([r[0] for r in rows], np.int32).reshape(-1, 3),
        "warp": np.asarray([r[1] for r in rows], np.int32),
        "site": np.asarray([r[2] for r in rows], np.int32),
        "active": np.asarray([r[3] for r in rows], np.uint32),
        "addresses": np.asarray([r[4] for r in rows], np.int64).reshape(-1, 32),
    }


def strided(stride: int, base: int = BASE) -> list[int]:
    """Lane i at base + i * stride bytes."""
    return [base + stride * lane for lane in range(32)]


def launch(index: int = 0, sites: list[dict] | None = None, rows: list | None = None, **fields: Any) -> dict:
    """A launch of a 2x1x1 grid of 64-thread blocks with 8 KiB of static shared memory."""
    base = {
        "index": index, "kernel": "synthetic_kernel(float*)", "mangled": "_Z16synthetic_kernelPf",
        "grid": [2, 1, 1], "block": [64, 1, 1], "shared_bytes": {"static": 8192, "dynamic": 0},
        "blocks_total": 2, "blocks_recorded": "all",
        "sites": sites if sites is not None else [site(0)],
        "records": records(rows if rows is not None else [((0, 0, 0), 0, 0, FULL, strided(4))]),
        "counters": None, "counters_scope": "launch",
    }
    base.update(fields)
    return base


def trace(*launches: dict, arch: str = "sm_90") -> dict:
    """A whole synthetic trace document."""
    return {
        "format": "bankism-trace", "version": 1,
        "description": "synthetic trace built by the test-suite; no number in it was measured",
        "environment": {"gpu": None, "arch": arch, "compute_capability": None, "driver": None, "cuda": None,
                        "ncu": None, "captured": None, "tracer": "tests"},
        "program": {"command": ["synthetic"], "source": None},
        "launches": [copy.deepcopy(item) for item in (launches or (launch(),))],
    }


def random_rows(n: int, seed: int = 0, sites: int = 1, align: int = 8) -> list:
    """n random ``align``-aligned full-warp records in 8 KiB, over 2 blocks, 2 warps and ``sites`` sites."""
    rng = np.random.default_rng(seed)
    addresses = BASE + align * rng.integers(0, 8192 // align, (n, 32))
    return [((int(rng.integers(0, 2)), 0, 0), int(rng.integers(0, 2)), int(rng.integers(0, sites)), FULL,
             addresses[i].tolist()) for i in range(n)]
