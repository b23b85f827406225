"""The time model's parts on the time blocks measured on the H100 (traces/timing), and its JSON and text.

The blocks are real launches; the excess wavefronts fed to the model are varied to check its limits:
nothing saved without conflicts, never more than the conflicts' pipe cycles, the stall share or the SM
floor allow, never below memory's time, and no less saved for more conflicts.
"""

from __future__ import annotations

import dataclasses
import json
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bankism.timing import PARAMETERS, launch_fix, predict
from bankism.timing.fix import SiteExcess
from bankism.timing.model import memory_ns, shared_wait_share
from bankism.timing.text import fix_line
from bankism.trace import load
from bankism.trace.timeblock import LaunchTime, launch_time
from tests.helpers import ROOT, run_cli

TIMING = ROOT / "traces" / "timing"
PAIRS = ("col32", "transpose", "transpose64", "mma_ldsm", "hist", "cpasync", "chase")


@cache
def block(pair: str) -> LaunchTime:
    time, why = launch_time(load(TIMING / f"{pair}_conflict.json")["launches"][0])
    assert time is not None, why
    return time


def test_no_excess_wavefronts_save_nothing() -> None:
    for pair in PAIRS:
        prediction = predict(block(pair), 0.0)
        assert prediction.saved_fraction == 0.0
        assert prediction.predicted_ns == pytest.approx(block(pair).duration_ns)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(PAIRS), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_the_saving_respects_every_cap_and_grows_with_the_conflicts(pair: str, a: float, b: float) -> None:
    time = block(pair)
    low, high = sorted((a, b))
    small = predict(time, low * time.l1_wavefronts)
    large = predict(time, high * time.l1_wavefronts)
    assert 0.0 <= small.saved_fraction <= large.saved_fraction + 1e-12 <= 1.0 + 1e-12
    for prediction in (small, large):
        caps = prediction.caps
        saved = caps.saved_cycles / caps.elapsed_cycles
        assert saved <= caps.excess_cycles / caps.elapsed_cycles + 1e-12
        assert saved <= shared_wait_share(time) + 1e-12
        assert prediction.predicted_ns >= prediction.memory_ns - 1e-6
        assert prediction.application.fixed_ns <= prediction.application.conflicting_ns + 1e-6


def test_warps_that_never_wait_on_the_pipe_lose_nothing_to_its_conflicts() -> None:
    """The histogram's atomics return nothing the warps wait for: the stall share caps the saving."""
    time = block("hist")
    assert shared_wait_share(time) < 0.02
    prediction = predict(time, time.l1_wavefronts)
    assert prediction.caps.limit == "stalls" and prediction.saved_fraction < 0.02


def test_memory_time_does_not_follow_the_sm_clock() -> None:
    time = block("transpose64")
    prediction = predict(time, time.l1_wavefronts)
    assert prediction.memory_ns == pytest.approx(memory_ns(time, PARAMETERS.memory_efficiency))
    assert prediction.application.fixed_ns == pytest.approx(prediction.memory_ns)
    assert prediction.application.saved_fraction < 0.02 < prediction.saved_fraction


def test_without_the_top_clock_only_the_profiled_clock_is_predicted() -> None:
    time = dataclasses.replace(block("transpose"), max_clock_khz=None)
    prediction = predict(time, 1e7)
    assert prediction.application is None
    fix = launch_fix(time, [SiteExcess(0, "k.cu", 3, 1e7)], None)
    assert fix.ncu_estimate is None and "GHz (the GPU's top clock)" not in fix_line(fix, None)


def test_json_carries_the_fix_and_keeps_every_earlier_field() -> None:
    ran = run_cli("analyze", "--json", "--no-progress", "--threads", "1", TIMING / "transpose_conflict.json")
    assert ran.returncode == 0, ran.stderr
    launch = json.loads(ran.stdout)["launches"][0]
    fix = launch["fix"]
    for key in ("measured_ns", "predicted_ns", "saved_fraction", "ncu_estimate", "saved_ns", "clock_hz",
                "application", "sites", "lines", "bound"):
        assert key in fix
    assert launch["fix_missing"] is None
    assert 0.0 <= fix["saved_fraction"] <= 1.0 and 0.0 <= fix["ncu_estimate"] <= 1.0
    assert fix["predicted_ns"] == pytest.approx(fix["measured_ns"] - fix["saved_ns"])
    assert sum(site["saved_ns"] for site in fix["sites"]) == pytest.approx(fix["saved_ns"])
    assert fix["measured_ns"] == block("transpose").duration_ns
    earlier = ("index", "kernel", "sites", "lines", "totals", "comparison", "measured", "predicted",
               "coverage")
    assert all(key in launch for key in earlier)


def test_a_trace_without_a_time_block_still_loads_and_says_why() -> None:
    old = ROOT / "traces" / "transpose32.json"
    ran = run_cli("analyze", "--json", "--no-progress", "--threads", "1", old)
    assert ran.returncode == 0, ran.stderr
    for launch in json.loads(ran.stdout)["launches"]:
        assert launch["fix"] is None and "no time block" in launch["fix_missing"]
    text = run_cli("analyze", "--no-progress", "--threads", "1", old)
    assert "Time: not predicted: the trace has no time block" in text.stdout


def test_text_line_gives_the_saving_the_clock_and_ncus_estimate() -> None:
    ran = run_cli("analyze", "--no-progress", "--threads", "1", TIMING / "transpose_conflict.json")
    assert ran.returncode == 0, ran.stderr
    line = next(x for x in ran.stdout.splitlines() if x.startswith("Time:"))
    fix = json.loads(run_cli("analyze", "--json", "--no-progress", "--threads", "1",
                             TIMING / "transpose_conflict.json").stdout)["launches"][0]["fix"]
    assert f"saves about {fix['saved_fraction']:.0%} (" in line
    clock = f"{fix['clock_hz'] / 1e9:.3g} GHz (clocks locked by ncu)"
    assert f"of {fix['measured_ns'] / 1e6:.3g} ms) at {clock}" in line
    assert f"about {fix['application']['saved_fraction']:.0%} at 1.98 GHz (the GPU's top clock)" in line
    assert f"Nsight Compute's rule estimates {fix['ncu_estimate']:.0%}" in line
    assert "Most at pairs.cu:" in line


def test_atomics_get_no_estimate_from_ncus_rule_and_the_line_says_so() -> None:
    report = load(TIMING / "hist_conflict.json")["launches"][0]
    time, _ = launch_time(report)
    fix = launch_fix(time, [SiteExcess(0, "pairs.cu", 1, 1e6)], report["counters"])
    assert fix.ncu_rule == {} and fix.ncu_estimate == 0.0
    assert "rule gives no estimate" in fix_line(fix, None)
