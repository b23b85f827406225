"""ncu's address-level count of LDSM/STSM (counters' ``addressed_matrix``): with ``addressed`` it makes the
exact address-level check cover ldmatrix/stmatrix kernels (docs/rules.md, "ncu's own address-level count").

The H100 figures are traces/surplus/sm_90_matrix_addressed.json (hw/surplus/run_call6.sh, run 6): one launch
of each ldmatrix program whose trace is stored, from the same source.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from bankism import analyze
from bankism.capture.ncu import (
    ADDRESSED_MATRIX_METRICS,
    ADDRESSED_METRICS,
    all_metrics,
    parse_csv,
)
from bankism.trace import load, open_trace, save
from tests.helpers import ncu_raw_csv

ROOT = Path(__file__).parent.parent
MEASURED = json.loads((ROOT / "traces" / "surplus" / "sm_90_matrix_addressed.json").read_text())["launches"]


def test_the_matrix_count_completes_the_hardware_count_on_the_h100():
    """Every launch measured: op_ld + op_ldsm and op_st + op_stsm are the hardware's wavefronts, or all but a
    whole-kernel surplus under 2% (the 4096^3 GEMM's stores, which meet its global loads' fills)."""
    for launch in MEASURED:
        m = launch["metrics"]
        for kind, matrix in (("ld", "ldsm"), ("st", "stsm")):
            address_level = m[f"{kind}_addressed"] + m[f"{matrix}_addressed"]
            surplus = m[f"{kind}_wavefronts"] - address_level
            assert 0 <= surplus <= 0.02 * m[f"{kind}_wavefronts"], (launch["name"], kind)
    assert sum(launch["metrics"]["ldsm_addressed"] > 0 for launch in MEASURED) == 5
    assert sum(launch["metrics"]["stsm_addressed"] > 0 for launch in MEASURED) == 2


def _with_measured_counts(name: str, tmp: Path) -> analyze.TraceReport:
    """The stored trace with run 6's address-level counts (the launch's other counters as stored)."""
    launch = next(item for item in MEASURED if item["name"] == name)
    document = load(ROOT / launch["trace"])  # records in memory, wherever they were stored
    counters = document["launches"][0]["counters"]
    m = launch["metrics"]
    for kind, matrix in (("ld", "ldsm"), ("st", "stsm")):
        counters[kind]["addressed"] = m[f"{kind}_addressed"]
        counters[kind]["addressed_matrix"] = m[f"{matrix}_addressed"]
    counters["atom"]["addressed"] = 0
    return analyze.analyze(open_trace(save(document, tmp / f"{name}.json")), threads=1)


@pytest.mark.parametrize("name", [launch["name"] for launch in MEASURED])
def test_rules_equal_the_address_level_count_of_every_ldmatrix_launch(name, tmp_path_factory):
    report = _with_measured_counts(name, tmp_path_factory.mktemp(name))
    rows = {(row.op_class, row.metric): row for row in report.launches[0].comparisons()}
    for kind in ("ld", "st"):
        row = rows[(kind, "addressed")]
        assert row.within_tolerance is True, (kind, row.measured, row.predicted, row.explanation)
        assert "op_ldsm/op_stsm" in row.explanation


def test_one_wavefront_off_in_the_matrix_count_fails(tmp_path):
    document = json.loads((ROOT / "traces" / "ldmatrix_tile.json").read_text())
    m = next(item for item in MEASURED if item["name"] == "ldmatrix_tile_plain")["metrics"]
    counters = document["launches"][0]["counters"]
    counters["ld"].update(addressed=m["ld_addressed"], addressed_matrix=m["ldsm_addressed"] - 1)
    report = analyze.analyze(open_trace(save(copy.deepcopy(document), tmp_path / "t.json")), threads=1)
    row = next(r for r in report.launches[0].comparisons() if (r.op_class, r.metric) == ("ld", "addressed"))
    assert row.within_tolerance is False and row.measured == 3327 and row.predicted == 3328
    assert report.launches[0].agrees() is False


def test_without_the_matrix_count_the_matrix_sites_stay_out():
    """The stored run-5 recording has op_ld/op_st only (256 of 3,328 ld wavefronts): still a match."""
    stored = ROOT / "traces" / "surplus" / "kernels" / "ldmatrix_tile.json"
    report = analyze.analyze(open_trace(stored), threads=1)
    rows = {(row.op_class, row.metric): row for row in report.launches[0].comparisons()}
    assert rows[("ld", "addressed")].within_tolerance is True and rows[("ld", "addressed")].predicted == 256
    assert "op_ldsm" not in rows[("ld", "addressed")].explanation


def test_profile_asks_for_the_matrix_count_and_reads_it_only_beside_addressed():
    assert set(ADDRESSED_MATRIX_METRICS.values()) <= set(all_metrics())
    extra = {ADDRESSED_METRICS["ld"]: "256", ADDRESSED_MATRIX_METRICS["ld"]: "3,072",
             ADDRESSED_MATRIX_METRICS["st"]: "7"}
    found = parse_csv(ncu_raw_csv(extra), "t.csv")[0].counters()
    assert found["ld"]["addressed"] == 256 and found["ld"]["addressed_matrix"] == 3072
    assert "addressed_matrix" not in found["st"]  # no op_st count beside it: left out


def test_generic_loads_and_stores_on_shared_addresses_are_simulated_as_lds_and_sts():
    """traces/wmma_shapes.json: WMMA's bf16, tf32 and double fragments move through generic LD.E/.64 and
    ST.E/.64/.128 on shared addresses (122 of 650 recorded warp-instructions, once left unmodelled). As
    LDS/STS of their width the launch agrees with ncu: st exact, ld 572 of 573 wavefronts; a generic atomic
    stays unmodelled."""
    from bankism.isa import unmodelled_reason

    report = analyze.analyze(open_trace(ROOT / "traces" / "wmma_shapes.json"), threads=1).launches[0]
    assert report.unmodelled == [] and report.agrees() is True
    generic = [s for s in report.sites if s.site.sass and s.site.sass.split(".")[0] in ("LD", "ST")]
    assert sum(s.executions for s in generic) == 122
    rows = {(row.op_class, row.metric): row for row in report.comparisons()}
    assert all(rows[("st", m)].difference == 0 for m in ("instructions", "wavefronts", "conflicts"))
    assert rows[("ld", "instructions")].difference == 0 and rows[("ld", "wavefronts")].difference == 1
    assert unmodelled_reason("ATOM.E.ADD.F16x2.RN.STRONG.GPU") is not None


def _public_programs(name: str, count: int) -> list[dict]:
    """The one-launch programs of a held-out figures file (hw/surplus/collect_public.py), each from its own
    repository and each agreeing with ncu."""
    programs = json.loads((ROOT / "traces" / "surplus" / name).read_text())["programs"]
    assert len(programs) == count and len({p["repo"] for p in programs}) == count
    for program in programs:
        assert [launch["agrees"] for launch in program["launches"]] == [True], program["name"]
    return programs


def _address_level(figures: dict, which: str) -> int:
    """ncu's (``measured``) or the rules' (``predicted``) address-level wavefronts of a class, LDSM/STSM
    included."""
    counts = figures[which]
    return counts["addressed"] + (counts.get("addressed_matrix") or 0)


def test_public_tensor_core_programs_address_level_count_equals_the_rules():
    """Five public programs no rule or fit saw (traces/surplus/public_matrix_heldout.json, run 10: two
    cp.async + ldmatrix HGEMMs, a flash-attention forward, a stmatrix demo, a cp.async HGEMM with generic
    LD.E on shared memory): with LDSM/STSM and the generic loads, ncu's address-level count equals the rules
    in every ld and st class, four of them scaled from some of their blocks; every launch agrees."""
    matrix = 0
    for program in _public_programs("public_matrix_heldout.json", 5):
        for kind in ("ld", "st"):
            figures = program["launches"][0]["classes"][kind]
            measured, predicted = _address_level(figures, "measured"), _address_level(figures, "predicted")
            assert measured == predicted, (program["name"], kind)
            matrix += figures["measured"]["addressed_matrix"] > 0
    assert matrix == 5  # LDSM in the four tensor-core kernels, STSM in the demo


def test_cp_async_fills_are_left_out_of_the_store_estimate():
    """The cp.async programs' store surplus (0 to 3.2 points off) against the estimate without their own
    fills:
    within the store band (their fills alone had led to expect 9 to 30%: run 8, docs/rules.md), but for a
    cp.async HGEMM's epilogue stores (8.7% measured, none expected: not explained)."""
    from bankism.arch import get_arch

    band = 100 * get_arch("sm_90").surplus.busy_band["st"]
    document = json.loads((ROOT / "traces" / "surplus" / "public_store_phase_heldout.json").read_text())
    cp_async = [launch for launch in document["launches"] if launch["cp_async_full_lanes_assumed"]]
    assert len(cp_async) == 8
    for launch in cp_async:
        if launch["program"] != "yencal_mma":
            assert abs(launch["error_points"]) <= band, (launch["program"], launch["error_points"])
    # run 8, before: the same kernels' fills, all cp.async, had led to expect 28.3%, 29.9% and 8.9%
    before = json.loads((ROOT / "traces" / "surplus" / "public_matrix_run8_before.json").read_text())
    expected = {p["name"]: round(100 * p["launches"][0]["classes"]["st"]["expected_share"], 1)
                for p in before["programs"] if p["name"] != "simveit_stsm"}
    assert expected == {"xudoong_mma": 28.3, "yencal_mma": 29.9, "aligold_fa": 8.9}


@pytest.mark.parametrize("value", [-1, 2.5, "4"])
def test_a_bad_addressed_matrix_count_in_a_trace_is_one_error_line(tmp_path, value):
    from tests.helpers import analyze_refuses

    document = json.loads((ROOT / "traces" / "ldmatrix_tile.json").read_text())
    document["launches"][0]["counters"]["ld"].update(addressed=256, addressed_matrix=value)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document))
    assert "counters.ld.addressed_matrix" in analyze_refuses(path)


def test_a_fractional_matrix_count_in_ncus_csv_is_refused():
    from bankism import BankismError

    extra = {ADDRESSED_METRICS["ld"]: "256", ADDRESSED_MATRIX_METRICS["ld"]: "3.5"}
    with pytest.raises(BankismError, match=r"t\.csv.*op_ldsm\.sum: '3\.5' is not a whole count"):
        parse_csv(ncu_raw_csv(extra), "t.csv")


def test_a_generic_opcode_recorded_as_another_op_stays_unmodelled():
    from bankism.analyze.batching import site_unmodelled_reason
    from bankism.trace.views import TraceSite

    assert site_unmodelled_reason(TraceSite(0, "load", 4, sass="LD.E"), "sm_90") is None
    assert site_unmodelled_reason(TraceSite(0, "store", 16, sass="ST.E.128"), "sm_90") is None
    reason = site_unmodelled_reason(TraceSite(0, "atomic", 4, sass="LD.E"), "sm_90")
    assert reason and "only generic loads and stores" in reason


def test_diverse_public_programs_agree_and_their_address_level_count_equals_the_rules():
    """Eight more public programs from eight repositories (run 11, traces/surplus/public_diverse_heldout.json:
    a radix sort, a scan, two n-body codes, a warp-synchronous reduction, a Sobel filter, k-means with float
    shared atomics, a cooperative-groups reduction): every launch agrees with ncu, and the address-level
    count equals the rules in all 17 classes (two launches scaled from 22 and 43 of their blocks)."""
    classes = 0
    for program in _public_programs("public_diverse_heldout.json", 8):
        for kind, figures in program["launches"][0]["classes"].items():
            measured, predicted = _address_level(figures, "measured"), _address_level(figures, "predicted")
            assert measured == predicted, (program["name"], kind)
            classes += 1
    assert classes == 17


def test_public_python_programs_agree_and_their_address_level_count_equals_the_rules():
    """Four public Python programs from four repositories, recorded whole (run 12,
    traces/surplus/public_python_heldout.json): a Triton matmul (its tiles through cp.async and ldmatrix) and
    softmax, a Numba tiled matmul (scaled from 66 of 4,096 blocks) and a Numba transpose. Every launch agrees
    and the address-level count, LDSM included, equals the rules in all 8 classes."""
    programs = _public_programs("public_python_heldout.json", 4)
    for program in programs:
        for kind in ("ld", "st"):
            figures = program["launches"][0]["classes"][kind]
            measured, predicted = _address_level(figures, "measured"), _address_level(figures, "predicted")
            assert measured == predicted, (program["name"], kind)
    matmul = next(p for p in programs if p["name"] == "tri_matmul")["launches"][0]["classes"]["ld"]
    assert matmul["measured"]["addressed_matrix"] == matmul["predicted"]["addressed_matrix"] == 16384
