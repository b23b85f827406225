"""One-shot atomics (run 22, hw/surplus/oneshot_atomic.cu, traces/surplus/sm_90_oneshot_atomic.json) and the
held-out public shared histograms (runs 21 and 23, traces/surplus/public_atomics_heldout.json); docs/rules.md,
"One-shot atomics"."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import numpy as np

import bankism
from bankism.analyze.surplus import SiteLoad, estimate, label_ceiling, one_shot
from bankism.arch import get_arch
from tests.helpers import hw_script

ROOT = Path(__file__).parent.parent
RULE = get_arch("sm_90").surplus


def _fit():
    return hw_script("surplus/fit_cover.py")


@cache
def _probe() -> list[dict]:
    return json.loads((ROOT / "traces" / "surplus" / "sm_90_oneshot_atomic.json").read_text())["launches"]


def _public() -> list[tuple[str, str, dict]]:
    document = json.loads((ROOT / "traces" / "surplus" / "public_atomics_heldout.json").read_text())
    return [(p["run"], p["name"], launch) for p in document["programs"] for launch in p["launches"]]


def test_rates_are_the_probes_warp_series():
    assert _fit().one_shot_rates(_probe()) == RULE.one_shot_atomic_rate


def test_address_level_counts_equal_the_rules():
    """Every warp of the index-data configurations: lanes on bins (first + lane) % K, S words apart."""
    checked = 0
    for x in _probe():
        if x["mode"]:  # a counter: one ATOMS.ADD per warp and element, of one lane
            m = x["metrics"]
            assert m["atom_instructions"] == x["elements"] // 32
            if x["run"] == "run26":  # not aggregated: every counting lane is a wavefront (element 0 is 0)
                assert m["atom_addressed_wavefronts"] == x["elements"] - (x["mode"] != 2)
            else:
                assert m["atom_addressed_wavefronts"] == m["atom_instructions"]
            checked += 1
            continue
        if x["data"] != 0:
            continue
        warps = x["elements"] // 32
        residues = np.bincount((np.arange(warps, dtype=np.int64) * 32) % x["k"], minlength=x["k"])
        lanes = np.arange(32)
        total = 0
        for residue in np.flatnonzero(residues):
            addresses = ((residue + lanes) % x["k"]) * x["s"] * 4
            result = bankism.simulate(addresses, width=4, op="atomic", atomic_op="popc_inc")
            total += int(residues[residue]) * int(result.wavefronts[0])
        assert total == x["metrics"]["atom_addressed_wavefronts"], x["name"]
        checked += 1
    assert checked == 24 + 1 + 13 + 9 + 9


def _estimate(x: dict):
    m = x["metrics"]
    warps = x["threads"] // 32
    site = SiteLoad(m["atom_instructions"], m["atom_addressed_wavefronts"], 32.0,
                    per_warp=m["atom_instructions"] / (x["blocks"] * warps))
    traffic = {key: m[key] for key in ("l1_fill_sectors", "global_store_sectors", "sm_cycles",
                                       "warps_active_percent")}
    return estimate("atom", [site], {**traffic, "sm_count": 132}, x["blocks"], "sm_90", x["threads"], 0.0,
                    x["k"] * x["s"] * 4)


def test_the_probe_measured_no_threshold_and_no_coverage():
    """At 31 KiB of fills per SM the one-shot histogram measures 5.2% (the looping probes none below 132 KiB);
    one bin measures as much as 32 (6.5% and 4.6%); one wave (256 blocks) measures none."""
    by_name = {x["name"]: x for x in _probe()}
    assert by_name["size:e1048576"]["kib_per_sm"] < 32 and by_name["size:e1048576"]["surplus_share"] > 0.05
    assert by_name["bins:k1_s1_d0"]["surplus_share"] > by_name["warps:t256"]["surplus_share"]
    assert by_name["size:e65536"]["surplus_share"] == 0 and _estimate(by_name["size:e65536"]).expected == 0


def test_estimate_on_the_probe():
    """24 of 28 launches within 3 points; the others are 1,024-thread blocks of 1 Mi elements (-3.3 to -4.4)
    and four bins in four sector groups (-4.6): the rate varies with the bins 1.0-2.0 times."""
    errors = {}
    for x in _probe():
        if x["run"] != "run22":
            continue
        wavefronts = x["metrics"]["atom_wavefronts"]
        surplus = wavefronts - x["metrics"]["atom_addressed_wavefronts"]
        errors[x["name"]] = 100 * (_estimate(x).expected - surplus) / wavefronts
    assert sum(abs(e) <= 3 for e in errors.values()) == 24
    assert max(abs(e) for e in errors.values()) < 4.6
    assert all(abs(errors[name]) < 0.1 for name in errors if name.startswith("warps:"))


#: Public programs whose atomics are one counter that every warp adds to through one lane (nvcc's warp
#: aggregation): not estimated, labelled with run 24's measured cause (docs/rules.md, "One-shot atomics").
COUNTERS = {"copyif_shared", "fpc"}


def test_public_shared_atomics_on_the_final_model():
    """Twelve public programs with shared atomics from twelve repositories (runs 21 and 23, the first six
    before the one-shot rule existed, the second six after), recorded again with the final model (run 25) and
    analysed on the H100: 10 within 3 points (as many as before runs 19-25, but the histograms' largest miss
    1.83 points where it was 3.04), and the two warp-aggregated counters above the band but under the ceiling
    their block size measured (a measured cause, not "not explained")."""
    final = [(name, launch) for run, name, launch in _public() if run.startswith("run25")]
    assert len(final) == 12
    within = before_within = 0
    for name, launch in final:
        atom = launch["classes"]["atom"]
        measured = atom["measured_wavefronts"]
        surplus = measured - atom["predicted_wavefronts"]
        error = 100 * (atom["device_expected"] - surplus) / measured
        before = 100 * (launch["atom_expected_before"] - surplus) / measured
        within += abs(error) <= 3
        before_within += abs(before) <= 3
        band = 100 * (RULE.quiet_band if atom["quiet"] else RULE.busy_band["atom"])
        if name in COUNTERS:
            ceiling = 100 * label_ceiling(RULE.few_lane_atomic_ceiling, launch["warps_per_block"])
            assert band < 100 * surplus / measured <= ceiling, name
        else:
            assert abs(error) <= band + 1e-9, (name, error)
    assert within == 10 and before_within == 10


def test_one_shot_sites_are_once_or_twice_per_warp_with_more_lanes_than_a_burst():
    traffic = {"l1_fill_sectors": 2e6, "global_store_sectors": 0.0, "sm_cycles": 1.6e5,
               "warps_active_percent": 90.0, "sm_count": 132.0}
    shot = SiteLoad(524288, 524288, 32.0, per_warp=1.0)
    found = estimate("atom", [shot], traffic, 65536, "sm_90", 256, 0, 40)
    assert found.expected == 524288 * RULE.one_shot_atomic_rate[8] and "one-shot" in found.cause
    assert one_shot(SiteLoad(10, 10, 32.0, per_warp=2.0), "sm_90")
    assert not one_shot(SiteLoad(10, 10, 32.0, per_warp=3.0), "sm_90")  # a loop: the even-spread estimate
    assert not one_shot(SiteLoad(10, 10, 1.0, per_warp=1.0), "sm_90")  # one lane: an atomic burst
    assert not one_shot(SiteLoad(10, 10, 32.0), "sm_90")  # executions per warp unknown
    # every block resident at once (256 blocks of 256 threads on 132 SMs): no other block's fills, none
    assert estimate("atom", [shot], traffic, 256, "sm_90", 256, 0, 40).expected == 0


def test_a_warp_aggregated_counter_is_labelled_not_estimated():
    """Runs 24 and 27: a counter that every warp adds to through one lane measured 8-45% surplus by block
    size, with or without fills (34% in one wave at 2 KiB per SM), with or without a load before it (no load:
    0.16 / 0.46 / 0.81 per instruction at 2 / 8 / 32 warps), on one word or four alike; the ceiling of the
    label is the largest share per block size."""
    counter = [x for x in _probe() if x["mode"] == 1 and x["run"] == "run24"]
    assert _fit().few_lane_ceiling(_probe()) == RULE.few_lane_atomic_ceiling
    by_name = {x["name"]: x for x in counter}
    one_wave = by_name["count:size_e65536"]
    assert one_wave["surplus_share"] > 0.3 and one_wave["kib_per_sm"] < 3
    assert by_name["count:per_p16"]["surplus_per_instruction"] > 0.35
    traffic = {"l1_fill_sectors": 2e6, "global_store_sectors": 0.0, "sm_cycles": 1.6e5,
               "warps_active_percent": 90.0, "sm_count": 132.0}
    found = estimate("atom", [SiteLoad(80000, 80000, 1.0, per_warp=1.0)], traffic, 10000, "sm_90", 256, 0, 4)
    assert found.ceiling == RULE.few_lane_atomic_ceiling[8] and "warp-aggregated" in found.ceiling_cause
    assert found.under_ceiling(103852, 80000) and not found.within_band(103852, 80000)
    assert "a warp-aggregated counter measured" in found.describe(103852, 80000)
