"""Shared atomics on a warp-uniform address as nvcc issues them (isa.warp_aggregated): one lane after a
warp reduction for 32-bit integer add/sub/min/max/and/or/xor with the result unused (and add of a constant
with it used), every lane otherwise; the table and the SASS are in tests/data/explain/atomics/
uniform_atomics.cu. Regression: explain counted `atomicMax(&maxval, v)` of a public softmax as 32-way
(4,096 wavefronts where the H100 measured 128; traces/explain_check/beside_h100.json)."""

from __future__ import annotations

import json

import pytest

from bankism.isa import warp_aggregated
from tests.helpers import ROOT
from tests.test_explain_support import DATA, run

KERNEL = DATA / "atomics" / "uniform_atomics.cu"
ONE_LANE, EVERY_LANE = 1, 32  # wavefronts per warp-instruction: one lane, or 32 lanes on one word


@pytest.mark.parametrize("kernel, per_warp", [
    ("add_value", ONE_LANE), ("add_used", ONE_LANE), ("add_two", ONE_LANE), ("max_value", ONE_LANE),
    ("bitwise", ONE_LANE), ("constant", ONE_LANE), ("per_block", ONE_LANE), ("parameter", ONE_LANE),
    ("max_used", EVERY_LANE), ("exchange", EVERY_LANE), ("per_warp", EVERY_LANE),
    ("through_ptr", EVERY_LANE),  # nvcc: one lane; explain does not follow the local pointer (over-count)
])
def test_each_uniform_atomic_costs_what_nvccs_code_issues(kernel: str, per_warp: int):
    report = run(KERNEL, kernel=kernel, block=(64, 1, 1), grid=(2, 1, 1), defines={"k": "3"})
    atomics = [s for s in report["sites"] if s["op"] == "atomic"]
    assert atomics and all(s["instructions"] == 2 for s in atomics)  # block (0,0,0): two warps
    assert all(s["wavefronts"] == 2 * per_warp for s in atomics), [(s["sass"], s["wavefronts"])
                                                                   for s in atomics]
    if per_warp == ONE_LANE:
        assert all("one lane, after a warp reduction" in s["sass"] for s in atomics)


def test_popc_inc_stays_every_lane_and_merges_on_one_word():
    site = next(s for s in run(KERNEL, kernel="add_one", block=(64, 1, 1))["sites"] if s["op"] == "atomic")
    assert site["sass"] == "ATOMS.POPC.INC.32" and site["wavefronts"] == 2


def test_the_rule_is_data_in_isa():
    assert warp_aggregated("atomicAdd", "s", 4, result_used=False, operand_constant=False)
    assert warp_aggregated("atomicAdd", "u", 4, result_used=True, operand_constant=True)
    assert not warp_aggregated("atomicMax", "s", 4, result_used=True, operand_constant=False)
    assert not warp_aggregated("atomicAdd", "f", 4, result_used=False, operand_constant=False)
    assert not warp_aggregated("atomicAdd", "u", 8, result_used=False, operand_constant=False)
    assert not warp_aggregated("atomicExch", "s", 4, result_used=False, operand_constant=False)


def test_the_public_softmax_atomic_equals_the_h100():
    """sreya-rc's softmax_tiled: `atomicMax((int*)&maxval, ...)` on one shared int; the H100 trace's
    ATOMS.MAX.S32 is one lane a warp, and explain now counts the same (128 warp-instructions, 128
    wavefronts, over the 16 blocks compared)."""
    check = json.loads((ROOT / "traces" / "explain_check" / "beside_h100.json").read_text())
    softmax = next(k for k in check["kernels"] if k["name"] == "sreya_softmax_tiled")
    line = next(entry for entry in softmax["atomic_lines"] if entry["line"] == 27)
    assert line["source"]["atomic"] == line["sass"]["atomic"] == [128, 128]
    layer_norm = next(k for k in check["kernels"] if k["name"] == "amapara_layer_norm")
    assert layer_norm["explain_trace"]["lines"] == layer_norm["explain_trace"]["lines_as_written"] == 12
