"""Device printf costs shared atomic wavefronts with no instruction, address or bank conflict behind them
(traces/surplus/sm_90_printf_atom.json, hw/surplus/printf_atom.cu, run 9); `analyze` says so instead of
failing the launch on its conflict rule (found on a public stmatrix demo with four printf calls)."""

from __future__ import annotations

import json
from pathlib import Path

from bankism import analyze
from bankism.trace import open_trace, save
from tests.builders import FULL, launch, site, strided, trace

ROOT = Path(__file__).parent.parent
LAUNCHES = json.loads((ROOT / "traces" / "surplus" / "sm_90_printf_atom.json").read_text())["launches"]


def _wavefronts(blocks: int, threads: int, calls: int, lanes: int) -> int:
    wanted = (blocks, threads, calls, lanes)
    (found,) = [item["metrics"] for item in LAUNCHES
                if (item["blocks"], item["threads"], item["calls"], item["lanes"]) == wanted]
    assert found["atom_instructions"] == found["atom_conflicts"] == found["atom_addressed"] == 0
    assert found["global_atom_instructions"] == 0 and found["ld_wavefronts"] == found["st_wavefronts"] == 0
    return found["atom_wavefronts"]


def test_printf_costs_five_atomic_wavefronts_per_call_of_one_warp_whatever_its_lanes():
    assert _wavefronts(1, 32, 0, 32) == 0
    assert [_wavefronts(1, 32, calls, 32) for calls in (1, 2, 4)] == [5, 10, 20]
    assert _wavefronts(1, 32, 1, 1) == 5 and _wavefronts(1, 32, 4, 1) == 20
    # more warps, a little less each: 2 warps 9, 16 warps 67
    assert _wavefronts(1, 64, 1, 32) == _wavefronts(2, 32, 1, 32) == 9
    assert _wavefronts(4, 128, 1, 32) == 67


def _report(tmp_path, atom: dict) -> analyze.LaunchReport:
    """One warp's conflict-free load, and the atomic counters ``atom`` (chosen, not measured)."""
    zero = {"instructions": 0, "wavefronts": 0, "conflicts": 0, "addressed": 0}
    counters = {"ld": {"instructions": 1, "wavefronts": 1, "conflicts": 0, "addressed": 1},
                "st": dict(zero), "atom": atom}
    doc = trace(launch(sites=[site(0, op="load", sass="LDS")], rows=[((0, 0, 0), 0, 0, FULL, strided(4))],
                       grid=[1, 1, 1], block=[32, 1, 1], blocks_total=1, counters=counters))
    return analyze.analyze(open_trace(save(doc, tmp_path / "p.json"))).launches[0]


def test_atomic_wavefronts_without_instructions_or_conflicts_are_explained_as_printf(tmp_path):
    report = _report(tmp_path, {"instructions": 0, "wavefronts": 20, "conflicts": 0, "addressed": 0})
    rows = {(row.op_class, row.metric): row for row in report.comparisons()}
    assert rows[("atom", "conflicts")].within_tolerance is True
    assert "device-side printf" in rows[("atom", "wavefronts")].explanation
    assert "device-side printf" in rows[("atom", "conflicts")].explanation
    assert report.agrees() is True and report.unexplained_surplus() == []


def test_the_printf_label_needs_the_address_level_count_and_no_surplus_conflicts(tmp_path):
    counted = _report(tmp_path, {"instructions": 0, "wavefronts": 20, "conflicts": 20, "addressed": 0})
    assert not any("printf" in row.explanation for row in counted.comparisons())
    unconfirmed = _report(tmp_path, {"instructions": 0, "wavefronts": 20, "conflicts": 0})
    assert not any("printf" in row.explanation for row in unconfirmed.comparisons())
    assert unconfirmed.agrees() is False  # the conflict rule: 20 surplus wavefronts, none counted
