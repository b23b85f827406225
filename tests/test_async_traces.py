"""The recorded cp.async matmul (traces/kernels/cpasync_matmul.cu) against its ncu counters.

Four launches measured on the H100: the chunk-major A tile unpadded (8-way conflicting cp.async) and
padded by one 16-byte chunk (conflict-free), each with cp.async.ca (LDGSTS.E.128) and .cg
(LDGSTS.E.BYPASS.128). docs/rules.md ("cp.async") gives the numbers.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bankism import analyze
from bankism.trace import open_trace

TRACES = Path(__file__).resolve().parent.parent / "traces"


def _report(name: str) -> analyze.LaunchReport:
    return analyze.analyze(open_trace(TRACES / f"{name}.json")).launches[0]


def _rows(report: analyze.LaunchReport) -> dict[tuple[str, str], analyze.Comparison]:
    return {(row.op_class, row.metric): row for row in report.comparisons()}


@pytest.mark.parametrize(("name", "wavefronts", "conflicts"), [
    ("cpasync_matmul_ca", 73_728, 57_344),
    ("cpasync_matmul_ca_padded", 16_384, 0),
])
def test_ca_matmul_matches_ncu_exactly(name, wavefronts, conflicts):
    report = _report(name)
    rows = _rows(report)
    assert report.agrees() is True
    for metric, value in (("instructions", 4096), ("wavefronts", wavefronts), ("conflicts", conflicts)):
        row = rows[("ldgsts", metric)]
        assert (row.measured, row.predicted, row.within_tolerance) == (value, value, True)
    assert report.conflicts_explained() is True


def test_the_unpadded_tile_conflicts_eight_ways_on_its_a_copies():
    report = _report("cpasync_matmul_ca")
    ldgsts = [s for s in report.sites if s.site.op == "ldgsts"]
    assert {s.site.sass for s in ldgsts} == {"LDGSTS.E.128"}
    assert all(s.site.source_lines == 1 and s.site.source_repeats == 0 for s in ldgsts)
    # per execution: 32 wavefronts (8 per quarter-warp) for the A tile, 4 for the B tile
    assert sorted({s.wavefronts // s.executions for s in ldgsts}) == [4, 32]


@pytest.mark.parametrize("name", ["cpasync_matmul_cg", "cpasync_matmul_cg_padded"])
def test_cg_counters_are_reported_but_not_judged(name):
    report = _report(name)
    rows = _rows(report)
    assert rows[("ldgsts", "instructions")].within_tolerance is True
    for metric in ("wavefronts", "conflicts"):
        assert rows[("ldgsts", metric)].within_tolerance is None
        assert "LDGSTS.BYPASS" in rows[("ldgsts", metric)].explanation
    # the H100 keeps no conflict count for the bypassing writes, padded or not
    assert rows[("ldgsts", "conflicts")].measured == 0
    assert report.agrees() is True


def test_cg_and_ca_predict_the_same_bank_cost():
    """The shared addresses are the same: the prediction does not depend on the cache mode."""
    for variant in ("", "_padded"):
        ca, cg = _report(f"cpasync_matmul_ca{variant}"), _report(f"cpasync_matmul_cg{variant}")
        assert ca.predicted["ldgsts"] == cg.predicted["ldgsts"]


def test_async_notes_name_what_was_not_simulated():
    launch = {"async": {
        "bulk_copies": [{"pc": 512, "sass": "UBLKCP.S.G", "executions": 2, "bytes": 8192,
                         "shared_start": 2048, "shared_end": 10240}],
        "wgmma": [{"pc": 432, "sass": "HGMMA.64x64x16.F32", "executions": 1, "a_bytes": 2048,
                   "b_bytes": 2048}],
    }}
    notes = analyze.async_notes(launch["async"])
    assert len(notes) == 2
    assert "8,192 bytes" in notes[0] and "4,096 operand bytes" in notes[1]
    assert analyze.async_notes({}) == [] and analyze.async_notes(None) == []
