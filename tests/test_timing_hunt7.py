"""Hunt 7, held out (traces/timing/public/hunt7_pairs.json, traces/record_public/hunt7_programs.json): three
public pairs timed on the H100 after the model was final, and seven public programs recorded whole. Each
prediction comes from the conflicting launch's time block and excess wavefronts alone (docs/time.md,
"Held out: hunt 7")."""

from __future__ import annotations

import json
from functools import cache

import pytest

from bankism.timing import predict
from bankism.timing.fix import launch_fix
from bankism.timing.text import fix_line
from bankism.trace.timeblock import LaunchTime
from tests.helpers import ROOT
from tests.test_timing_public import savings

PAIRS = ROOT / "traces" / "timing" / "public" / "hunt7_pairs.json"
PROGRAMS = ROOT / "traces" / "record_public" / "hunt7_programs.json"

#: pair -> (bound in points at both clocks, why)
BOUNDS = {
    "yuan_reduce": (0.10, "layout only: interleaved -> sequential addressing"),
    "dnguyen_scan": (0.10, "layout only: padding"),
    "chtholly_mma": (0.50, "the model's miss: every block writes the same C, one L2 slice is 89% busy in "
                           "both kernels and bounds them; the swizzle saves 2%, the model says 51%"),
}


@cache
def pairs() -> dict[str, dict]:
    return {p["pair"]: p for p in json.loads(PAIRS.read_text())["pairs"]}


def errors(pair: dict) -> tuple[float, float]:
    prediction = predict(LaunchTime.of(pair["time"]), pair["excess_wavefronts"])
    locked, own = savings(pair["measured"])
    return prediction.saved_fraction - locked, prediction.application.saved_fraction - own


@pytest.mark.parametrize("name", sorted(BOUNDS))
def test_pair_within_its_stated_bound_and_equal_to_what_analyze_said_on_the_device(name: str) -> None:
    pair = pairs()[name]
    assert all(abs(e) <= BOUNDS[name][0] for e in errors(pair)), errors(pair)
    prediction = predict(LaunchTime.of(pair["time"]), pair["excess_wavefronts"])
    stored = pair["model_at_measurement"]
    assert prediction.saved_fraction == pytest.approx(stored["locked_saved_fraction"], abs=6e-4)
    assert pair["ncu_rule_estimate"] > savings(pair["measured"])[0] + 0.30  # ncu's rule: +43 to +59 points


def test_a_hot_l2_slice_is_named_with_the_saving_it_allows():
    """Both kernels without a block index have one slice 87-89% busy (the mean 9-14%); the saving left if
    it stays as busy is within 8 points of the measured one on both, where the model alone misses
    chtholly's by 49. It is stated beside the prediction: procuda_square's hot slice shrank with its fix
    (docs/time.md)."""
    for name, measured_at_most in (("chtholly_mma", 0.10), ("dnguyen_scan", 0.08)):
        pair = pairs()[name]
        hot = predict(LaunchTime.of(pair["time"]), pair["excess_wavefronts"]).hot_slice
        assert hot is not None and hot.busy_pct > 3 * hot.mean_pct
        assert abs(hot.saved_fraction_at_most - savings(pair["measured"])[0]) <= measured_at_most
    assert predict(LaunchTime.of(pairs()["yuan_reduce"]["time"]), 1.0).hot_slice is None  # 36.7% vs 35.1%


def test_the_time_line_states_the_hot_slice():
    from bankism.timing.fix import SiteExcess

    pair = pairs()["chtholly_mma"]
    fix = launch_fix(LaunchTime.of(pair["time"]), [SiteExcess(1, "mma.cuh", 238, pair["excess_wavefronts"])],
                     None)
    text = fix_line(fix, None)
    assert "saves about 51%" in text
    assert "One L2 slice is busy 89% of the launch (the slices' mean 14%" in text
    assert "the saving is at most 10%." in text
    assert fix.to_json()["l2_hot_slice"]["busy_pct"] == 88.76


def test_older_time_blocks_without_the_busiest_slice_name_none():
    block = dict(pairs()["chtholly_mma"]["time"])
    block.pop("l2_slice_max_pct")
    assert predict(LaunchTime.of(block), 1e6).hot_slice is None


def test_every_public_program_launch_agrees_with_ncu_on_every_counter():
    document = json.loads(PROGRAMS.read_text())
    launches = document["launches"]
    assert document["environment"]["gpu"] == "NVIDIA H100 80GB HBM3" and len(launches) == 12
    assert {launch["program"] for launch in launches} >= {
        "torchbridge_triton", "enccs_numba_matmul_sm", "ratbuyer_wgmma_dense", "ratbuyer_multicast",
        "ratbuyer_cluster", "ratbuyer_tma_1d", "chtholly_mma16x16_swizzle"}
    for launch in launches:
        assert launch["agrees"], launch["program"]
        assert all(row["within"] is not False for rows in launch["classes"].values() for row in rows.values())
