"""Fail soft: a site the engine cannot model is reported as unmodelled, with counts; the rest is analysed."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from bankism import analyze
from bankism.cli import app
from bankism.trace import open_trace, save
from tests.builders import FULL, launch, site, strided, trace
from tests.helpers import run_cli


def _doc(counters=None):
    sites = [site(0), site(1, op="atomic", sass="ATOMS.FROB.32"), site(2, op="atomic", width=16, sass=None),
             site(3, op="load", sass="STAS.128")]
    rows = [((0, 0, 0), 0, 0, FULL, strided(128)), ((0, 0, 0), 0, 1, FULL, strided(4)),
            ((1, 0, 0), 0, 1, FULL, strided(4)), ((0, 0, 0), 1, 2, FULL, strided(16)),
            ((0, 0, 0), 1, 3, FULL, strided(16))]
    return trace(launch(sites=sites, rows=rows, counters=counters))


def _save(tmp_path, doc):
    return save(doc, tmp_path / "t.json")


def test_unknown_opcodes_and_kinds_are_reported_not_fatal(tmp_path):
    report = analyze.analyze(open_trace(_save(tmp_path, _doc()))).launches[0]
    assert [s.id for s in report.sites] == [0]
    assert (report.sites[0].wavefronts, report.sites[0].conflicts) == (32, 31)
    unmodelled = {s.id: s for s in report.unmodelled}
    assert sorted(unmodelled) == [1, 2, 3]
    assert unmodelled[1].executions == 2 and "unknown atomic opcode ATOMS.FROB.32" in unmodelled[1].unmodelled
    assert unmodelled[2].executions == 1 and "16-byte atomic" in unmodelled[2].unmodelled
    assert "unknown shared-memory opcode STAS.128" in unmodelled[3].unmodelled
    coverage = report.coverage()
    assert (coverage["records"], coverage["simulated_records"], coverage["unmodelled_records"]) == (5, 1, 4)
    assert [row["records"] for row in coverage["unmodelled"]] == [2, 1, 1]
    assert [row["instructions"] for row in coverage["unmodelled"]] == [2.0, 1.0, 1.0]


def test_a_class_with_unmodelled_records_is_not_judged_and_the_others_are(tmp_path):
    counters = {"ld": {"instructions": 2, "wavefronts": 40, "conflicts": 31},
                "st": {"instructions": 0, "wavefronts": 0, "conflicts": 0},
                "atom": {"instructions": 3, "wavefronts": 9, "conflicts": 0}}
    report = analyze.analyze(open_trace(_save(tmp_path, _doc(counters)))).launches[0]
    rows = {(c.op_class, c.metric): c for c in report.comparisons()}
    assert report.predicted["atom"]["instructions"] == 0  # unknown opcodes: how ncu counts them is unknown
    for metric in ("instructions", "wavefronts", "conflicts"):
        assert rows[("atom", metric)].within_tolerance is None
        assert "could not be simulated" in rows[("atom", metric)].explanation
        assert rows[("ld", metric)].within_tolerance is None  # the STAS site is a load-class site
    counters["ld"]["instructions"] = 1
    doc = _doc(counters)
    doc["launches"][0]["sites"][3]["sass"] = "LDS"
    report = analyze.analyze(open_trace(_save(tmp_path, doc))).launches[0]
    rows = {(c.op_class, c.metric): c for c in report.comparisons()}
    assert rows[("ld", "instructions")].within_tolerance is False  # 2 LDS predicted, 1 measured


def test_cli_text_and_json_say_what_was_not_simulated(tmp_path):
    path = _save(tmp_path, _doc())
    runner = CliRunner()
    text = runner.invoke(app, ["analyze", str(path)])
    assert text.exit_code == 0, text.output
    assert "4 of 5 recorded warp-instructions could not be simulated" in " ".join(text.output.split())
    assert "ATOMS.FROB.32" in text.output
    result = runner.invoke(app, ["analyze", str(path), "--json"])
    assert result.exit_code == 0, result.output
    coverage = json.loads(result.stdout)["launches"][0]["coverage"]
    assert coverage["unmodelled_records"] == 4
    assert {row["id"] for row in coverage["unmodelled"]} == {1, 2, 3}


def test_show_on_an_unmodelled_site_is_a_clean_error(tmp_path, monkeypatch, capsys):
    code, out, err = run_cli("show", str(_save(tmp_path, _doc())), "--site", "1")
    assert code == 2 and out == ""
    assert err.startswith("error: ") and "cannot be simulated" in err and len(err.strip().splitlines()) == 1


def test_fully_modelled_launch_says_so(tmp_path):
    doc = trace(launch(sites=[site(0, op="atomic", sass="ATOMS.POPC.INC.32")],
                       rows=[((0, 0, 0), 0, 0, FULL, [1024] * 32)]))
    report = analyze.analyze(open_trace(_save(tmp_path, doc))).launches[0]
    assert report.unmodelled == [] and report.coverage()["unmodelled_records"] == 0
    assert (report.sites[0].wavefronts, report.sites[0].conflicts) == (1, 0)  # POPC.INC merges one address


def test_instructions_ncu_counted_but_the_trace_lacks_are_reported(tmp_path):
    counters = {"ld": {"instructions": 5, "wavefronts": 36, "conflicts": 31},
                "st": {"instructions": 0, "wavefronts": 0, "conflicts": 0},
                "atom": {"instructions": 0, "wavefronts": 0, "conflicts": 0}}
    doc = trace(launch(sites=[site(0)], rows=[((0, 0, 0), 0, 0, FULL, strided(128))], counters=counters))
    report = analyze.analyze(open_trace(_save(tmp_path, doc))).launches[0]
    assert report.coverage()["unrecorded"] == [
        {"class": "ld", "measured_instructions": 5, "predicted_instructions": 1, "missing": 4}]
    text = CliRunner().invoke(app, ["analyze", str(tmp_path / "t.json")]).output
    assert "ncu counted 4 more ld instructions than the trace holds" in " ".join(text.split())
