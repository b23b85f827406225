"""The analysis itself: per-site sums equal the engine's, chunking changes nothing, scaling, agreement."""

from __future__ import annotations

import io

import numpy as np
import pytest
from rich.console import Console

import bankism
from bankism import BankismError, analyze
from bankism.trace import open_trace, save
from tests.builders import FULL, launch, random_rows, site, strided, trace


def _open(tmp_path, doc, binary=False):
    return open_trace(save(doc, tmp_path / "t.json", binary=binary))


def _counters(ld=(0, 0, 0), st=(0, 0, 0), atom=(0, 0, 0)):
    """Counter objects shaped like ncu's; the values are chosen by the tests, not measured."""
    return {name: dict(zip(analyze.METRICS, values, strict=True))
            for name, values in (("ld", ld), ("st", st), ("atom", atom))}


def test_conflict_free_and_fully_conflicted_sites(tmp_path):
    rows = [((0, 0, 0), 0, 0, FULL, strided(4)), ((0, 0, 0), 1, 1, FULL, strided(128))]
    report = analyze.analyze(_open(tmp_path, trace(launch(sites=[site(0), site(1)], rows=rows))))
    clean, conflicted = report.launches[0].sites
    assert (clean.executions, clean.wavefronts, clean.ideal, clean.excess) == (1, 1, 1, 0)
    assert (conflicted.wavefronts, conflicted.ideal, conflicted.excess) == (32, 1, 31)
    assert report.has_conflicts


def test_site_sums_equal_the_engine_on_every_record(tmp_path):
    sites = [site(0, width=4), site(1, width=8), site(2, op="store", width=8)]
    doc = trace(launch(sites=sites, rows=random_rows(300, sites=3)))
    report = analyze.analyze(_open(tmp_path, doc))
    records = doc["launches"][0]["records"]
    for stats in report.launches[0].sites:
        rows = records["site"] == stats.id
        direct = bankism.simulate(records["addresses"][rows], width=stats.site.width, op=stats.site.op,
                                  active=records["active"][rows].astype(np.int64))
        assert stats.executions == len(direct)
        assert stats.wavefronts == direct.total_wavefronts
        assert stats.ideal == direct.total_ideal
        assert stats.conflicts == direct.total_conflicts
        assert stats.cycles == pytest.approx(direct.total_cycles)


@pytest.mark.parametrize("binary", [False, True])
def test_chunk_size_and_storage_do_not_change_the_report(tmp_path, binary):
    sites = [site(0), site(1, width=8)]
    doc = trace(launch(sites=sites, rows=random_rows(200, sites=2, seed=3)))
    opened = _open(tmp_path, doc, binary=binary)
    whole = analyze.analyze(opened).to_json()
    pieces = analyze.analyze(opened, chunk=7).to_json()
    assert whole["launches"] == pieces["launches"]


def test_worst_instruction_is_found_across_chunks(tmp_path):
    rows = [((0, 0, 0), 0, 0, FULL, strided(4))] * 10
    rows[8] = ((1, 0, 0), 1, 0, FULL, strided(128))
    rows[3] = ((0, 0, 0), 1, 0, FULL, strided(8))
    report = analyze.analyze(_open(tmp_path, trace(launch(rows=rows))), chunk=4)
    worst = report.launches[0].sites[0].worst
    assert (worst.record, worst.block, worst.warp, worst.excess) == (8, (1, 0, 0), 1, 31)
    np.testing.assert_array_equal(worst.addresses, strided(128))


def test_ops_map_to_ncu_classes(tmp_path):
    """Matrix ops add wavefronts to ld/st but no instructions (as measured in traces/probes)."""
    sites = [site(0, op="load"), site(1, op="store"), site(2, op="atomic"),
             site(3, op="ldmatrix", width=16, matrices=1), site(4, op="stmatrix", width=16, matrices=2)]
    rows = [((0, 0, 0), 0, i, FULL, strided(16)) for i in range(5)]
    rows[0] = ((0, 0, 0), 0, 0, FULL, strided(4))
    rows[1] = ((0, 0, 0), 0, 1, FULL, strided(4))
    rows[2] = ((0, 0, 0), 0, 2, FULL, strided(4))
    report = analyze.analyze(_open(tmp_path, trace(launch(sites=sites, rows=rows)))).launches[0]
    assert [s.op_class for s in report.sites] == ["ld", "st", "atom", "ld", "st"]
    recorded = report.recorded
    assert [recorded[c]["instructions"] for c in analyze.CLASSES] == [1, 1, 1]
    matrix_wavefronts = {s.op_class: s.wavefronts for s in report.sites if s.site.op.endswith("matrix")}
    plain_wavefronts = {s.op_class: s.wavefronts for s in report.sites[:2]}
    for op_class in ("ld", "st"):
        assert recorded[op_class]["wavefronts"] == matrix_wavefronts[op_class] + plain_wavefronts[op_class]


def test_subset_of_blocks_is_scaled_to_the_launch(tmp_path):
    rows = [((1, 0, 0), 0, 0, FULL, strided(128)), ((1, 0, 0), 1, 0, FULL, strided(4))]
    doc = trace(launch(rows=rows, blocks_recorded=[[1, 0, 0]], counters=_counters(ld=(4, 66, 62))))
    report = analyze.analyze(_open(tmp_path, doc)).launches[0]
    assert report.scale == 2
    assert report.recorded["ld"] == analyze.Counters(2, 33, 31, addressed=33)
    assert report.predicted["ld"] == analyze.Counters(4, 66, 62, addressed=66)
    assert report.agrees() is True
    assert "1 of 2 blocks recorded" in report.scaling_note()
    assert all("scaled x2" in row.explanation for row in report.comparisons())


def _judged(tmp_path, counters):
    rows = [((0, 0, 0), 0, 0, FULL, strided(128))] * 2
    return analyze.analyze(_open(tmp_path, trace(launch(rows=rows, counters=counters)))).launches[0]


def test_agreement_follows_the_tolerance_table(tmp_path):
    assert _judged(tmp_path, _counters(ld=(2, 64, 62))).agrees() is True
    small = _judged(tmp_path, _counters(ld=(2, 65, 63)))
    assert analyze.TOLERANCE["wavefronts"].admits(65, 64) == small.agrees()
    wavefronts = next(c for c in small.comparisons() if c.metric == "wavefronts")
    assert "surplus of 1 wavefronts" in wavefronts.explanation
    not_as_conflict = _judged(tmp_path, _counters(ld=(2, 65, 62)))
    assert not_as_conflict.agrees() is False, "a surplus wavefront must also be a surplus conflict"
    assert _judged(tmp_path, _counters(ld=(2, 63, 62))).agrees() is False
    more = _judged(tmp_path, _counters(ld=(3, 64, 62)))
    assert more.agrees() is False
    assert "ncu counted 1 more ld instructions" in more.comparisons()[0].explanation


def test_allowance_arithmetic():
    allowance = analyze.Allowance(surplus=0.02)
    assert allowance.admits(100, 98)
    assert not allowance.admits(100, 97)
    assert not allowance.admits(100, 101)
    assert allowance.admits(0, 0)
    assert analyze.Allowance(surplus=0.0, deficit=0.1).admits(100, 110)


def test_no_counters_means_no_verdict(tmp_path):
    report = analyze.analyze(_open(tmp_path, trace(launch()))).launches[0]
    assert report.measured is None and report.comparisons() == [] and report.agrees() is None


def test_launch_selection(tmp_path):
    opened = _open(tmp_path, trace(launch(index=2), launch(index=5)))
    assert [item.index for item in analyze.analyze(opened, [5]).launches] == [5]
    with pytest.raises(BankismError, match="no launch 4"):
        analyze.analyze(opened, [4])


def test_engine_errors_name_launch_site_and_record(tmp_path):
    misaligned = strided(4)
    misaligned[5] += 2
    rows = [((0, 0, 0), 0, 0, FULL, strided(4)), ((0, 0, 0), 0, 0, FULL, misaligned)]
    doc = trace(launch(sites=[site(0)], rows=rows))
    with pytest.raises(BankismError, match=r"t.json: launch 0, record 1: lane 5 .*not aligned.*site 0"):
        analyze.analyze(_open(tmp_path, doc))


def test_progress_callback_counts_every_record(tmp_path):
    seen = []
    analyze.analyze(_open(tmp_path, trace(launch(rows=random_rows(25)))), chunk=10, on_records=seen.append)
    assert seen == [10, 10, 5]


def test_profiled_only_launch_is_not_judged(tmp_path):
    doc = trace(launch(sites=[], rows=[], counters=_counters(ld=(5, 5, 0))))
    report = analyze.analyze(_open(tmp_path, doc)).launches[0]
    assert not report.traced and report.agrees() is None
    assert all(row.within_tolerance is None and row.explanation.startswith("profiled only")
               for row in report.comparisons())


@pytest.mark.parametrize(
    ("sass", "expected"),
    [("ATOMS.ADD", "add"), ("ATOMS.EXCH", "exch"), ("ATOMS.CAS.64", "cas"),
     ("ATOMS.CAST.SPIN.64", "cas_spin"), ("ATOMS.POPC.INC.32", "popc_inc"), ("ATOMS.MIN.S32", "min"),
     ("ATOMS.XOR", "xor"), ("ATOMS.CAST.SPIN", "cas_spin"), ("ATOMS.ARRIVE.64", None),
     (None, analyze.DEFAULT_ATOMIC_OP)],
)
def test_atomic_op_comes_from_the_sass_opcode(sass, expected):
    assert analyze.atomic_op_of(site(0, op="atomic", sass=sass)) == expected
    assert analyze.atomic_op_of(site(0, op="load", sass="LDS")) is None


def test_atomic_sites_use_their_instruction_and_unmodelled_cycles_are_none(tmp_path):
    sites = [site(0, op="atomic", sass="ATOMS.CAS"), site(1, op="atomic", sass="ATOMS.ADD")]
    rows = [((0, 0, 0), 0, 0, FULL, strided(0)), ((0, 0, 0), 0, 1, FULL, strided(0))]
    report = analyze.analyze(_open(tmp_path, trace(launch(sites=sites, rows=rows)))).launches[0]
    for stats, atomic_op in zip(report.sites, ("cas", "add"), strict=True):
        direct = bankism.simulate(strided(0), width=4, op="atomic", atomic_op=atomic_op)
        assert stats.atomic_op == atomic_op
        assert (stats.wavefronts, stats.conflicts) == (direct.total_wavefronts, direct.total_conflicts)
        expected_cycles = None if np.isnan(direct.total_cycles) else direct.total_cycles
        assert stats.cycles == expected_cycles
    if any(s.cycles is None for s in report.sites):
        assert report.totals()["cycles"] is None


def test_the_comparisons_of_a_launch_are_computed_once(tmp_path, monkeypatch):
    """JSON, tables and headline all read the one list the report made (issue 18: it was up to four)."""
    from bankism.analyze import report as report_module
    from bankism.cli.analyze_render import print_report

    calls = []
    judge = report_module.comparisons
    monkeypatch.setattr(report_module, "comparisons", lambda launch: calls.append(1) or judge(launch))
    rows = [((0, 0, 0), 0, 0, FULL, strided(128))]
    doc = trace(launch(rows=rows, counters=_counters(ld=(1, 32, 31))))
    whole = analyze.analyze(_open(tmp_path, doc))
    whole.to_json()
    print_report(whole, Console(file=io.StringIO(), width=120))
    assert len(calls) == len(whole.launches) == 1


def _unequal_blocks(tmp_path, measured_instructions: int):
    """4 of 8 blocks recorded; block 0 issues 3 conflict-free loads, blocks 1-3 issue 2 (a grid-stride
    loop's last lap): 9 recorded, 18 scaled; unrecorded blocks doing 2 to 3 each allow 17 to 21."""
    rows = [((0, 0, 0), 0, 0, FULL, strided(4))] * 3 + [((b, 0, 0), 0, 0, FULL, strided(4)) for b in (1, 2, 3)
                                                        for _ in range(2)]
    n = measured_instructions
    recorded = [[b, 0, 0] for b in range(4)]
    doc = trace(launch(rows=rows, grid=[8, 1, 1], blocks_total=8, blocks_recorded=recorded,
                       counters=_counters(ld=(n, n, 0))))
    return analyze.analyze(_open(tmp_path, doc)).launches[0]


def test_a_sampled_count_within_what_unequal_blocks_allow_is_sampling_not_a_miss(tmp_path):
    report = _unequal_blocks(tmp_path, 17)  # all four unrecorded blocks do 2: 9 + 8
    assert report.predicted["ld"].instructions == 18
    assert report.instruction_range("ld") == (17, 21)
    assert report.sampling_advice() is None
    rows = {(r.op_class, r.metric): r for r in report.comparisons()}
    assert rows[("ld", "instructions")].within_tolerance is True
    assert "within what blocks like the recorded ones may issue" in rows[("ld", "instructions")].explanation
    assert rows[("ld", "wavefronts")].within_tolerance is True  # 17 measured: inside 17..21, one per load
    assert report.agrees() is True


def test_a_sampled_count_outside_that_range_still_gets_the_advice(tmp_path):
    report = _unequal_blocks(tmp_path, 16)  # fewer than every unrecorded block doing the least
    advice = report.sampling_advice()
    assert advice and "not representative" in advice
    assert report.agrees() is False
