"""Bank coverage and the L1 threshold of the surplus for every class (runs 19-20, hw/surplus/cover.cu,
traces/surplus/sm_90_cover.json; docs/rules.md, "Bank coverage and the threshold for every class")."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bankism
from bankism.analyze.surplus import SiteLoad, coverage, estimate, evict_share, site_coverage, units_touched
from bankism.arch import get_arch
from tests.helpers import hw_script

ROOT = Path(__file__).parent.parent
RULE = get_arch("sm_90").surplus
OPS = {"st32": ("store", "add"), "ld32": ("load", "add"), "popc": ("atomic", "popc_inc"),
       "atomadd": ("atomic", "add")}


def _fit():
    return hw_script("surplus/fit_cover.py")


@cache
def _launches() -> list[dict]:
    return json.loads((ROOT / "traces" / "surplus" / "sm_90_cover.json").read_text())["launches"]


def _lane_addresses(launch: dict) -> np.ndarray:
    lanes = np.arange(32)
    return (launch["off"] + (lanes % launch["k"]) * launch["s"]) * 4


def test_runs_name_the_h100_and_every_launch_is_kept():
    document = json.loads((ROOT / "traces" / "surplus" / "sm_90_cover.json").read_text())
    for env in document["environment"].values():
        assert env["gpu"] == "NVIDIA H100 80GB HBM3" and env["driver"] == "580.159.04"
        assert env["ncu"].startswith("2025.3.1.0")
    assert len(_launches()) == 77 + 41


def test_address_level_counts_equal_the_rules():
    """ncu's SASS-instrumented wavefronts are the engine's for every pattern, ops and rows alike."""
    for launch in _launches():
        op, atomic_op = OPS[launch["op"]]
        result = bankism.simulate(_lane_addresses(launch), width=4, op=op, atomic_op=atomic_op)
        metrics, c = launch["metrics"], launch["class"]
        per_instruction = int(result.wavefronts[0])
        assert metrics[f"{c}_addressed_wavefronts"] == metrics[f"{c}_instructions"] * per_instruction


def test_coverage_tables_are_the_fit_of_runs_19_and_20():
    assert _fit().tables(_launches()) == {"fill": RULE.fill_coverage, "store": RULE.store_coverage}


def test_coverage_follows_sector_groups_not_banks():
    """Four banks in one 32-byte group meet a third of the fills' surplus; four banks in four groups all of
    it (stores and atomics alike); loads against global stores follow 16-byte units."""
    rows = {name: ratio for side in _fit().coverage_rows(_launches()).values() for _, ratio, name in side}
    for op in ("popc", "st32"):
        assert 0.30 <= rows[f"cov:{op}_k4_s1_o0"] <= 0.35
        assert 0.55 <= rows[f"cov:{op}_k4_s1_o6"] <= 0.62  # the same four banks across two groups
        assert rows[f"cov:{op}_k4_s8_o0"] >= 0.98
    assert rows["cov:ld32_k4_s1_o0"] < 0.1 < rows["cov:ld32_k4_s2_o0"] < 0.3 < rows["cov:ld32_k4_s8_o0"] < 0.6


def test_no_surplus_below_the_l1_threshold_for_atomics_and_loads():
    """Below SurplusRule.l1_free_bytes per SM almost nothing (none up to 100 KiB, 0.31% at 129 KiB); from 196
    KiB (full sectors) more than 5%."""
    threshold = [x for x in _launches() if x["name"].startswith("thr:")]
    assert len(threshold) == 35 + 15
    for launch in threshold:
        if launch["kib_per_sm"] * 1024 < RULE.l1_free_bytes:
            most = 0.0 if launch["kib_per_sm"] <= 100 else 0.005
            assert launch["surplus_share"] <= most, launch["name"]
        elif launch["kib_per_sm"] >= 196 and (launch["gs"] != 2 or launch["kib_per_sm"] >= 516):
            assert launch["surplus_share"] > 0.05, launch["name"]
    # half-sector global stores (GS 2) count twice their bytes in sectors: none up to 260 KiB of sectors
    half = {x["iters"]: x["surplus_share"] for x in threshold if x["name"].startswith("thr:ld32_gs2")}
    assert half[4] == 0 and half[5] < 0.02 and half[8] > 0.1


def _estimate(launch: dict):
    metrics, c = launch["metrics"], launch["class"]
    executions, addressed = metrics[f"{c}_instructions"], metrics[f"{c}_addressed_wavefronts"]
    fills, stores = [0] * 5, [0] * 9
    fills[_fit().touched(launch["k"], launch["s"], launch["off"], 32)] = executions
    stores[_fit().touched(launch["k"], launch["s"], launch["off"], 16)] = executions
    site = SiteLoad(executions, addressed, 32.0, None,
                    *site_coverage(fills, stores, addressed, executions, "sm_90"))
    traffic = {key: metrics[key] for key in ("l1_fill_sectors", "global_store_sectors", "sm_cycles",
                                             "warps_active_percent")}
    return estimate(c, [site], {**traffic, "sm_count": 132}, launch["blocks"], "sm_90", launch["threads"],
                    0.0, launch["shn"] * launch["row"] + 64)


def test_estimate_on_the_probe():
    """The model (coefficients fitted on the sweep, not on this probe) on the 118 launches: mean error 2.3
    points; the misses are the transition at 132-260 KiB per SM (the surplus overshoots its steady value
    there), half-sector global stores, and the 16 KiB shared layout of run 20's references."""
    errors = {}
    for launch in _launches():
        wavefronts = launch["metrics"][f"{launch['class']}_wavefronts"]
        surplus = wavefronts - launch["metrics"][f"{launch['class']}_addressed_wavefronts"]
        errors[launch["name"], launch["run"]] = 100 * (_estimate(launch).expected - surplus) / wavefronts
    values = np.abs(list(errors.values()))
    assert values.mean() < 2.5 and (values <= 3).sum() >= 80
    single = [abs(e) for (name, _), e in errors.items() if name.startswith("cov:") and "atomadd" not in name]
    assert max(single) < 3.6  # every one-wavefront pattern of run 19


def test_stored_atomics_within_three_points():
    """The bug this fixed: 4 shared counters (banks 0-3, one sector group) were expected at 7.95% and
    measured 1.78%; with the coverage and the threshold every stored atomic launch is within 3 points."""
    atomics = [row for row in hw_script("surplus/fit_surplus.py").held_out() if row[1] == "atom"]
    assert len(atomics) == 9
    for name, _, measured, expected, error, _ in atomics:
        assert abs(error) <= 3, (name, measured, expected)
    counters = next(row for row in atomics if row[0] == "counters")
    assert abs(counters[4]) < 1


def test_evict_share_applies_to_every_class():
    assert evict_share(100 * 1024, "sm_90") == 0.0
    assert evict_share(RULE.l1_free_bytes, "sm_90") == 0.0
    assert evict_share(4 * RULE.l1_free_bytes, "sm_90") == pytest.approx(0.75 ** 0.5)
    traffic = {"l1_fill_sectors": 1000.0, "global_store_sectors": 1000.0, "sm_cycles": 10000.0,
               "warps_active_percent": 50.0, "sm_count": 132.0}
    for op_class in ("ld", "st", "atom"):
        assert estimate(op_class, [SiteLoad(1000, 1000)], traffic, 132, "sm_90", 1024).expected == 0.0


def test_coverage_interpolates_and_ignores_empty_histograms():
    table = {1: 0.33, 2: 0.58, 4: 1.0}
    assert coverage([0, 10, 0, 0, 0], table) == pytest.approx(0.33)
    assert coverage([0, 0, 0, 5, 0], table) == pytest.approx(0.79)
    assert coverage([0, 5, 0, 0, 5], table) == pytest.approx((0.33 + 1.0) / 2)
    assert coverage([0] * 5, table) == 1.0 and coverage([0, 1, 0, 0, 0], {}) == 1.0
    # several wavefronts per execution: not modelled, factor 1
    assert site_coverage([0, 8, 0, 0, 0], [0, 8] + [0] * 7, 64, 8, "sm_90") == (1.0, 1.0)


def _touched_reference(addresses: list[int], active: int, unit_bytes: int) -> int:
    on = [a for lane, a in enumerate(addresses) if active >> lane & 1]
    return len({(a // unit_bytes) % (128 // unit_bytes) for a in on})


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.lists(st.integers(0, 48 * 1024 // 4), min_size=32, max_size=32),
                          st.integers(0, 2**32 - 1)), min_size=1, max_size=6))
def test_units_touched_matches_a_scalar_reference(rows):
    addresses = np.array([words for words, _ in rows], np.int32) * 4
    active = np.array([mask for _, mask in rows], np.uint32)
    groups, units = units_touched(addresses, active, 128)
    for k, (words, mask) in enumerate(rows):
        lanes = [4 * w for w in words]
        assert int(groups[k]) == _touched_reference(lanes, mask, 32)
        assert int(units[k]) == _touched_reference(lanes, mask, 16)
