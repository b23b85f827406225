"""The store phases (capture.phases) and the store-phase surplus model (analyze.surplus) against the H100.

Rules: fed stores take the tile-phase probe's rate by warps (traces/surplus/sm_90_tile_phase.json), stores
before any global load of a one-wave launch meet no fill, and no store surplus arises until an SM has
allocated SurplusRule.l1_free_bytes of L1 (run 14, traces/surplus/sm_90_l1_capacity.json). docs/rules.md.
"""

from __future__ import annotations

import importlib.util
import json
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from bankism.analyze import analyze
from bankism.analyze.surplus import SiteLoad, estimate, evict_share, fed_store_rate, one_wave
from bankism.arch import get_arch
from bankism.capture.convert import build_sites
from bankism.capture.disasm import parse_nvdisasm
from bankism.capture.phases import store_phases
from bankism.trace.read import open_trace

ROOT = Path(__file__).parent.parent
RULE = get_arch("sm_90").surplus

#: nvdisasm-shaped SASS of our own: a tile load (fed through a MOV), a zeroing store before the loop's loads,
#: a store of a sum (not fed), and a loop whose back branch makes the zeroing store inside it in the second.
SASS = """
.text._Z4tilePKfPf:
        /*0000*/                   S2R R0, SR_TID.X ;
        /*0010*/                   STS [R0], RZ ;
        /*0020*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
.L_x_0:
        /*0030*/                   LDG.E R2, desc[UR4][R4.64] ;
        /*0040*/                   LDG.E.64 R6, desc[UR4][R8.64] ;
        /*0050*/                   MOV R3, R2 ;
        /*0060*/                   STS [R0+0x80], R3 ;
        /*0070*/                   STS.64 [R0+0x100], R6 ;
        /*0080*/                   FADD R10, R2, R3 ;
        /*0090*/                   STS [R0+0x200], R10 ;
        /*00a0*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*00b0*/                   STS [R0+0x300], R2 ;
        /*00c0*/                   EXIT ;
.text._Z4loopPKfPf:
.L_x_1:
        /*0000*/                   STS [R0], RZ ;
        /*0010*/                   LDG.E R2, desc[UR4][R4.64] ;
        /*0020*/                   STS [R0+0x80], R2 ;
        /*0030*/              @P0 BRA `(.L_x_1) ;
        /*0040*/                   EXIT ;
"""


def test_store_phases_from_sass():
    functions = parse_nvdisasm(SASS)
    assert store_phases(functions["_Z4tilePKfPf"]) == {0x10: "before_loads", 0x60: "fed", 0x70: "fed"}
    # a store of a sum is not fed; a load's value stored after a barrier is not either (the walk stops there)
    assert store_phases(functions["_Z4loopPKfPf"]) == {0x20: "fed"}  # the loop's back branch: 0x0 is inside


def test_record_writes_each_store_sites_phase():
    function = parse_nvdisasm(SASS)["_Z4tilePKfPf"]
    records = np.zeros(3, dtype=[("kind", "u4"), ("flags", "u4"), ("width", "u4"), ("matrices", "u4")])
    records["width"] = 4
    records["flags"] = 1  # a store
    sites, _ = build_sites(records, np.array([0x10, 0x60, 0x90]), function)
    assert [site.get("phase") for site in sites] == ["before_loads", "fed", "other"]


@cache
def _fit():
    spec = importlib.util.spec_from_file_location(
        "fit_store_phase", ROOT / "hw" / "surplus" / "fit_store_phase.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_fed_store_rates_are_the_probe_medians():
    assert _fit().fed_store_rates() == RULE.fed_store_rate


def test_no_store_surplus_until_an_sm_has_allocated_its_free_l1_bytes():
    """Run 14: 0 measured at every point up to 132 KiB per SM, > 0 from 161 KiB; the sqrt ramp of the steady
    value within 0.6 points of every one of the 41 fed launches."""
    rows = _fit().capacity_rows()
    assert len(rows) == 41
    free = RULE.l1_free_bytes / 1024
    for name, kib, share, steady in rows:
        if kib <= free:
            assert share < 0.0005, name
        assert abs(share - steady * _fit().evict_share(kib, free)) < 0.006, name
        assert evict_share(kib * 1024, "sm_90") == pytest.approx(_fit().evict_share(kib, free))


def test_dgemm_sizes_follow_the_threshold():
    """The corpus tile DGEMM (run 14): no store surplus at n = 256 (124 and 139 KiB per SM), 3.3-17.9% from
    n = 320 (206 KiB and more) on: the store surplus the even-spread estimate had expected at n = 256 is not
    there. The 139 KiB launch (one 32-warp block per SM) is on the ramp's foot: 0 measured, 0.22 of the steady
    value expected (2.9 points)."""
    document = json.loads((ROOT / "traces" / "surplus" / "sm_90_l1_capacity.json").read_text())
    dgemm = {launch["name"]: launch for launch in document["launches"] if launch["name"].startswith("dgemm")}
    assert len(dgemm) == 8
    for launch in dgemm.values():
        none = launch["st_surplus_share"] < 0.0005
        assert none == launch["name"].startswith("dgemm:n256"), launch["name"]
        assert none == (launch["kib_per_sm"] < 160), launch["name"]


def test_fed_store_rate_interpolates_and_extends():
    assert fed_store_rate(8, 1, "sm_90") == RULE.fed_store_rate[1][8]
    assert fed_store_rate(32, 2, "sm_90") == RULE.fed_store_rate[2][32]
    assert RULE.fed_store_rate[1][4] < fed_store_rate(6, 1, "sm_90") < RULE.fed_store_rate[1][8]
    assert fed_store_rate(8, 1.5, "sm_90") == pytest.approx(
        (RULE.fed_store_rate[1][8] + RULE.fed_store_rate[2][8]) / 2
    )
    assert fed_store_rate(8, 4, "sm_90") == pytest.approx(2 * RULE.fed_store_rate[2][8])  # per 2 wavefronts
    assert fed_store_rate(1, 2, "sm_90") == 0.0


def test_one_wave_counts_warps_blocks_and_shared_memory():
    assert one_wave(132, 1024, 0, 132, "sm_90")  # 2 blocks of 32 warps per SM fit
    assert one_wave(264, 1024, 0, 132, "sm_90") and not one_wave(265, 1024, 0, 132, "sm_90")
    assert not one_wave(264, 64, 200 * 1024, 132, "sm_90")  # one 200 KiB block per SM


TRAFFIC = {
    "l1_fill_sectors": 4.0e7,
    "global_store_sectors": 0.0,
    "sm_cycles": 1.0e6,
    "warps_active_percent": 50.0,
    "sm_count": 132.0,
}


def test_stores_before_any_load_of_a_one_wave_launch_expect_nothing():
    site = [SiteLoad(4096, 4096, 32.0, "before_loads")]
    assert estimate("st", site, TRAFFIC, 132, "sm_90", 1024).expected == 0
    other = [SiteLoad(4096, 4096, 32.0, "other")]
    assert estimate("st", other, TRAFFIC, 132, "sm_90", 1024).expected > 0
    # a launch of many waves: the later blocks' first stores meet the earlier blocks' fills
    assert estimate("st", site, TRAFFIC, 10_000, "sm_90", 1024).expected > 0


def test_without_phases_the_stores_keep_the_even_spread_estimate():
    unknown = estimate("st", [SiteLoad(4096, 4096)], TRAFFIC, 132, "sm_90", 1024)
    other = estimate("st", [SiteLoad(4096, 4096, 32.0, "other")], TRAFFIC, 132, "sm_90", 1024)
    assert unknown.expected == other.expected > 0


@pytest.mark.parametrize(
    ("name", "measured_share"), [("counters", 0.0), ("hist32", 0.0), ("dgemm_tile", 0.0001)]
)
def test_fixed_misses_of_the_even_spread_estimate(name, measured_share):
    """Three stored launches the even-spread estimate missed by 4-7 points: zeroing stores before any load
    (counters, hist32: 7.0%, 7.1% expected) and a tile GEMM whose SMs fill 124 KiB each (4.2% expected)."""
    launch = analyze(
        open_trace(ROOT / "traces" / "surplus" / "kernels" / f"{name}.json"), threads=1
    ).launches[0]
    found = launch.surplus_estimates()["st"]
    measured = launch.measured["st"]["wavefronts"]
    surplus = measured - launch.predicted["st"]["wavefronts"]
    assert surplus / measured == pytest.approx(measured_share, abs=0.0002)
    assert found.expected / measured < 0.001


def test_stored_surplus_traces_carry_their_store_phases():
    for path in sorted((ROOT / "traces" / "surplus" / "kernels").glob("*.json")):
        for launch in open_trace(path).launches:
            stores = [site for site in launch.sites if site.op == "store"]
            assert stores and all(site.phase in ("fed", "before_loads", "other") for site in stores), (
                path.name
            )


def test_record_on_the_h100_writes_the_phases():
    """Run 15: `bankism record` of a held-out public softmax on the H100 gave its four reduction stores the
    phase read on the device (other), the same as from the same binary here."""
    document = json.loads((ROOT / "traces" / "surplus" / "record_phase_check.json").read_text())
    assert document["environment"]["gpu"] == "NVIDIA H100 80GB HBM3"
    assert [site["phase"] for site in document["store_sites"]] == ["other"] * 4
    assert document["st"]["surplus"]["band"] == RULE.busy_band["st"]


@pytest.mark.parametrize("value", ["early", 1, None])
def test_a_bad_store_phase_in_a_trace_is_one_error_line(tmp_path, value):
    from tests.helpers import analyze_refuses

    document = json.loads((ROOT / "traces" / "surplus" / "kernels" / "transpose_tiled.json").read_text())
    document["launches"][0]["sites"][0]["phase"] = value
    records = ROOT / "traces" / "surplus" / "kernels" / "transpose_tiled.npz"
    (tmp_path / records.name).write_bytes(records.read_bytes())
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document))
    assert "phase" in analyze_refuses(path)
