"""The whole-kernel surplus model (bankism/surplus.py, arch.SurplusRule) against the H100 measurements.

Fitted on traces/surplus/sm_90_sweep.json (hw/surplus/sweep.cu), held out on every traced launch with
traffic counters (traces/surplus/kernels, traces/python/surplus). docs/rules.md, "Whole kernels: the
surplus".
"""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path

import pytest

from bankism.analyze import analyze
from bankism.arch import get_arch
from bankism.trace.read import open_trace
from tests.helpers import hw_script

ROOT = Path(__file__).parent.parent
RULE = get_arch("sm_90").surplus
#: Held-out launches outside their band: the estimate does not reach them (docs/rules.md lists them with
#: figures; colsum_f64's loads carry the measured few-warp label, test_surplus_oneshot.py).
NOT_EXPLAINED = {("colsum_f64", "ld")}


def _fit_module():
    return hw_script("surplus/fit_surplus.py")


@cache
def _held_out():
    return _fit_module().held_out()


def test_coefficients_are_the_least_squares_fit_of_the_sweep():
    fitted = _fit_module().fit(_fit_module().sweep_rows(RULE))
    for op_class, (per_fill, per_store) in fitted.items():
        assert round(per_fill, 3) == RULE.per_fill_sector[op_class]
        assert round(per_store, 3) == RULE.per_store_sector[op_class]


def test_quiet_sweep_launches_stay_within_the_quiet_band():
    """No global traffic, or global loads that hit L1 after the first touch: the expected surplus is under
    1% of the wavefronts, and so is every measured one (most are exactly 0)."""
    quiet = []
    for op_class, data in _fit_module().sweep_rows(RULE).items():
        for fills, stores, surplus, measured, name in data:
            expected = RULE.per_fill_sector[op_class] * fills + RULE.per_store_sector[op_class] * stores
            if expected < RULE.quiet * (measured - surplus):
                quiet.append((name, surplus, measured))
    assert len(quiet) >= 40
    assert all(surplus <= RULE.quiet_band * measured for _, surplus, measured in quiet)
    assert sum(surplus == 0 for _, surplus, _ in quiet) >= 30


def test_held_out_launches_stay_in_their_band_or_are_reported_unexplained():
    rows = _held_out()
    assert len(rows) >= 40
    for name, op_class, measured, expected, error, quiet in rows:
        band = 100 * (RULE.quiet_band if quiet else RULE.busy_band[op_class])
        inside = abs(error) <= band + 1e-9
        assert inside != ((name, op_class) in NOT_EXPLAINED), (name, op_class, measured, expected, error)


def test_busy_bands_are_the_largest_held_out_errors():
    worst: dict[str, float] = {}
    for _, op_class, _, _, error, quiet in _held_out():
        if not quiet:
            worst[op_class] = max(worst.get(op_class, 0.0), abs(error))
    for op_class, error in worst.items():
        assert math.ceil(error) / 100 == RULE.busy_band[op_class]


@pytest.mark.parametrize("name", ["cupy_histogram64", "cupy_histogram256", "numba_histogram64",
                                  "numba_histogram256"])
def test_python_histograms_agree_on_every_counter(name):
    path = ROOT / "traces" / "python" / "surplus" / f"{name}.json"
    launch = analyze(open_trace(path), threads=1).launches[0]
    assert launch.launch.traffic is not None
    for row in launch.comparisons():
        assert row.difference == 0, (row.op_class, row.metric, row.explanation)


def test_topk_atomic_surplus_is_beyond_the_addresses_and_predicted_by_the_burst_term():
    """torch.topk's gatherTopK: every warp's lane 0 adds to 4 shared counters after a barrier, 32 warps per
    block, almost no other traffic. ncu's own address-level count equals the rules' 19,200; the 2,238
    surplus wavefronts are the atomic-burst term's (measured on hw/surplus/atomic_phase.cu, not on topk)."""
    report = analyze(open_trace(ROOT / "traces" / "python" / "surplus" / "torch_topk.json"), threads=1)
    launch = next(r for r in report.launches if "gatherTopK" in r.kernel)
    atom = {row.metric: row for row in launch.comparisons() if row.op_class == "atom"}
    assert atom["instructions"].difference == 0
    assert atom["addressed"].within_tolerance is True and atom["addressed"].measured == 19200
    assert atom["wavefronts"].within_tolerance is True
    found = launch.surplus_estimates()["atom"]
    assert found.admits(atom["wavefronts"].measured, atom["wavefronts"].predicted)
    assert abs(found.expected - atom["wavefronts"].difference) <= 0.03 * atom["wavefronts"].measured
    assert "bursts of few-lane atomics" in atom["conflicts"].explanation
    assert "beyond the addresses" in atom["conflicts"].explanation
    assert launch.unexplained_surplus() == []


def test_atomic_burst_rate_is_the_probe_measurement():
    """The burst rates in arch.py are the atomic-phase probe's surplus per instruction, one lane, 4 atomics
    per warp and round after a barrier (traces/surplus/sm_90_atomic_phase.json)."""
    document = json.loads((ROOT / "traces" / "surplus" / "sm_90_atomic_phase.json").read_text())
    by_name = {launch["name"]: launch for launch in document["launches"]}
    per_instruction = {name: by_name[name]["surplus"] / by_name[name]["metrics"]["atom_instructions"]
                       for name in ("topk:replica_b132_r200", "topk:replica_b132_r200_rep", "warps:t512",
                                    "warps:t256", "warps:t128")}
    replica = per_instruction["topk:replica_b132_r200"], per_instruction["topk:replica_b132_r200_rep"]
    thirty_two = sum(replica) / 2
    assert round(thirty_two, 3) == RULE.burst_per_instruction[32]
    assert round(per_instruction["warps:t512"], 3) == RULE.burst_per_instruction[16]
    assert per_instruction["warps:t256"] == per_instruction["warps:t128"] == 0  # 8 and 4 warps: none
    assert min(RULE.burst_per_instruction) == 16


def test_unrepresentative_blocks_get_advice_instead_of_a_verdict():
    """transpose_f64 over 4100x4100 doubles: 4 full blocks recorded of 16,641, whose edge blocks do less."""
    launch = analyze(open_trace(ROOT / "traces" / "surplus" / "kernels" / "transpose_f64_edge.json"),
                     threads=1).launches[0]
    advice = launch.sampling_advice()
    assert advice and "not representative" in advice
    assert "--blocks all --max-records" in advice and "128,128,0" in advice
    rows = {(r.op_class, r.metric): r for r in launch.comparisons()}
    assert rows[("ld", "instructions")].within_tolerance is False
    assert rows[("st", "wavefronts")].within_tolerance is None
    assert rows[("ld", "instructions")].explanation == advice


def _public_launches():
    document = json.loads((ROOT / "traces" / "surplus" / "public_heldout.json").read_text())
    return [(program["name"], launch) for program in document["programs"] for launch in program["launches"]]


def test_public_programs_address_level_count_equals_the_rules():
    """Nine public programs no fit or rule saw (traces/surplus/public_heldout.json): wherever the recorded
    blocks stand for the launch, ncu's SASS-instrumented wavefronts equal the rules' to the wavefront;
    the data-dependent histogram, scaled from 53 of 264 blocks, within 0.01%."""
    launches = _public_launches()
    assert len(launches) == 9
    exact = 0
    for name, launch in launches:
        if launch["sampling"]:  # edge blocks do less work: not representative, not judged (docs/analyze.md)
            continue
        for op_class, figures in launch["classes"].items():
            measured, predicted = figures["measured"]["addressed"], figures["predicted"]["addressed"]
            if launch["blocks_recorded"] == launch["blocks_total"] or op_class != "atom":
                assert measured == predicted, (name, op_class)
                exact += 1
            else:
                assert abs(measured - predicted) <= 1e-4 * measured, (name, op_class)
    assert exact == 12  # 6 programs whose recorded blocks stand for the launch, ld and st each


#: Public launches whose surplus the estimate does not explain (docs/rules.md lists them with figures).
PUBLIC_NOT_EXPLAINED = {("atomicvar_reduce", "ld")}


def test_public_programs_surplus_within_the_busy_bands_or_reported():
    """The estimate on the public programs: within the bands set on our own held-out launches, but for
    the interleaved reduction's loads (1.5% measured where its traffic leads to expect none). Stores are
    judged by the store-phase model in public_store_phase_heldout.json (the next test)."""
    within = 0
    for name, launch in _public_launches():
        for op_class, figures in launch["classes"].items():
            if op_class == "st":
                continue
            band = 100 * (RULE.quiet_band if figures["quiet"] else RULE.busy_band[op_class])
            inside = abs(figures["error_points"]) <= band
            assert inside != ((name, op_class) in PUBLIC_NOT_EXPLAINED), (name, op_class, figures)
            within += abs(figures["error_points"]) <= 3
    assert within == 8  # of 10 ld/atom within 3 points (docs/rules.md)


#: Public launches whose store surplus the store-phase model does not explain: a LayerNorm whose stores are
#: neither fed nor initial (2.2% measured, 9.5% expected) and a cp.async HGEMM's epilogue (8.7%, none).
PUBLIC_STORES_NOT_EXPLAINED = {"aryagxr_layernorm", "yencal_mma"}


def test_public_store_surplus_by_store_phase():
    """28 public programs' stores (traces/surplus/public_store_phase_heldout.json, evaluated outside the
    repository with each binary's SASS): 22 within 3 points where the even-spread estimate had 18; every one
    within the store band but two, which analyze reports as not explained."""
    document = json.loads((ROOT / "traces" / "surplus" / "public_store_phase_heldout.json").read_text())
    launches = document["launches"]
    assert len(launches) == 28 and sum(launch["sass_read"] for launch in launches) == 24
    band = 100 * RULE.busy_band["st"]
    for launch in launches:
        error = 100 * (launch["expected_share"] - launch["measured_share"])
        assert abs(error - launch["error_points"]) < 0.01
        assert (abs(error) <= band) != (launch["program"] in PUBLIC_STORES_NOT_EXPLAINED), launch["program"]
    assert sum(abs(launch["error_points"]) <= 3 for launch in launches) == 22
    assert sum(abs(launch["error_points_before"]) <= 3 for launch in launches) == 18
