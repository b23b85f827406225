"""CUB's block and warp reductions through bankism's stand-in <cub/cub.cuh>: layout and every shared access
as nvcc 13.0 (CUB 3.0) compiles our kernel for sm_90 (its SASS is quoted in the kernel's header)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from bankism.cli import app
from bankism.errors import BankismError
from tests.test_explain_support import BASE, DATA, run

CUB = DATA / "heldout" / "cub_reduce.cu"


def _accesses(report: dict, op: str) -> list[tuple[int, int, int, int]]:
    """(width, warp-instructions, first active lane's address, active lanes) per site of ``op`` in the
    stand-in header, by address."""
    out = []
    for site in report["sites"]:
        if site["op"] != op or "block_reduce.cuh" not in site["file"]:
            continue
        first = site["warps"][0]["lane_addresses"]
        active = [a for a in first if a is not None]
        out.append((site["width"], site["instructions"], active[0], len(active)))
    return sorted(out, key=lambda a: a[2])


def test_block_sum_of_256_floats_is_laid_out_and_read_as_nvcc_compiles_it():
    report = run(CUB, kernel="block_sum", as_written=False)
    arrays = {a["name"]: (a["base_offset"], a["size_bytes"]) for a in report["shared_arrays"]}
    assert arrays == {"temp": (BASE, 44), "other": (BASE + 44, 128)}
    assert _accesses(report, "store") == [(4, 8, BASE + 8, 1)]  # lane 0 of each warp: STS [R4+0x8]
    assert _accesses(report, "load") == [(4, 1, BASE + 12, 1), (16, 1, BASE + 16, 1), (8, 1, BASE + 32, 1)]


def test_a_struct_reduction_and_a_partial_tile():
    pairs = run(CUB, kernel="pair_max", as_written=False)
    assert _accesses(pairs, "store") == [(4, 8, BASE + 4, 1)]  # STS [R4+0x4] and [R4+0x8] in each of 4 warps
    # LDS [UR4+0xc], LDS.128 [UR4+0x10], LDS [UR4+0x20]: the two scalar loads are one site (a struct copy)
    assert _accesses(pairs, "load") == [(4, 2, BASE + 12, 1), (16, 1, BASE + 16, 1)]
    partial = run(CUB, kernel="partial_sum", as_written=False)  # nvcc loads every warp's aggregate
    assert _accesses(partial, "load") == [(4, 1, BASE + 12, 1), (16, 1, BASE + 16, 1), (8, 1, BASE + 32, 1)]


def test_warp_reduce_storage_is_dropped_as_nvcc_drops_it():
    report = run(CUB, kernel="warp_sums", as_written=False)
    assert [(a["name"], a["base_offset"]) for a in report["shared_arrays"]] == [("sums", BASE)]
    (load,) = [s for s in report["sites"] if s["op"] == "load"]
    assert load["width"] == 16 and load["instructions"] == 1  # LDS.128 [UR4]


def test_the_raking_algorithms_are_refused_by_name():
    with pytest.raises(BankismError, match="block_reduce_raking_is_not_modelled"):
        run(CUB, kernel="raking")


def test_the_report_names_the_stand_in_header():
    result = CliRunner().invoke(app, ["explain", str(CUB), "--kernel", "block_sum"])
    assert result.exit_code == 0, result.output
    assert "<cub/block/block_reduce.cuh>:" in result.output and "called from line 22" in result.output
