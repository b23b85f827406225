"""`ncu-import REPORT.ncu-rep` through NVIDIA's ncu_report module gives the same trace as the CSV route,
on a report recorded on the H100 (traces/layouts/layouts_report.ncu-rep and its raw-page CSV export,
made by hw/layouts/run.sh); without the module the command says so in one line."""

from __future__ import annotations

import json
import sys

import pytest

from tests.helpers import ROOT, one_line_error, run_cli

REPORT = ROOT / "traces" / "layouts" / "layouts_report.ncu-rep"
CSV = ROOT / "traces" / "layouts" / "layouts_report.csv"


def imported(source, tmp_path):
    target = tmp_path / f"{source.suffix.lstrip('.')}.json"
    ran = run_cli("ncu-import", source, "-o", target)
    assert ran.returncode == 0, ran.stderr
    return json.loads(target.read_text())


def test_the_report_and_its_csv_give_the_same_trace(tmp_path):
    pytest.importorskip("ncu_report", reason="NVIDIA's ncu_report module is not installed (bankism[ncu])")
    from_report, from_csv = imported(REPORT, tmp_path), imported(CSV, tmp_path)
    assert from_report.pop("description").replace(REPORT.name, CSV.name) == from_csv.pop("description")
    for rep_launch, csv_launch in zip(from_report["launches"], from_csv["launches"], strict=True):
        # the report keeps every digit of the time figures (rates, percentages) the CSV prints rounded
        rep_time, csv_time = rep_launch.pop("time"), csv_launch.pop("time")
        assert rep_time.keys() == csv_time.keys()
        for key, value in rep_time.items():
            expected = csv_time[key]
            close = value is expected if None in (value, expected) else value == pytest.approx(
                expected, rel=1e-6, abs=0.006)
            assert close, (key, value, expected)
    assert from_report == from_csv
    assert len(from_report["launches"]) == 13
    assert from_report["environment"]["gpu"] == "NVIDIA H100 80GB HBM3"


def test_the_report_reader_numbers_launches_as_the_csv_ids():
    pytest.importorskip("ncu_report", reason="NVIDIA's ncu_report module is not installed (bankism[ncu])")
    from bankism.capture.ncu import read_csv
    from bankism.capture.ncu_rep import read_report

    rep, csv = read_report(REPORT), read_csv(CSV)
    shapes = [(r.id, r.kernel, r.grid, r.block) for r in rep]
    assert shapes == [(c.id, c.kernel, c.grid, c.block) for c in csv]
    assert [r.counters() for r in rep] == [c.counters() for c in csv]


def test_without_the_module_one_line_names_the_csv_route(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ncu_report", None)  # as if not installed: importing it fails
    monkeypatch.setattr("bankism.capture.ncu_rep.NSIGHT_PYTHON_DIRS", ())
    monkeypatch.delenv("BANKISM_NCU_REPORT_DIR", raising=False)
    line = one_line_error(run_cli("ncu-import", REPORT, "-o", tmp_path / "t.json"))
    assert "bankism[ncu]" in line and "--csv" in line
    assert not (tmp_path / "t.json").exists()


def test_a_file_that_is_not_a_report_is_one_error(tmp_path):
    pytest.importorskip("ncu_report", reason="NVIDIA's ncu_report module is not installed (bankism[ncu])")
    bad = tmp_path / "bad.ncu-rep"
    bad.write_bytes(b"not a report")
    assert "bad.ncu-rep" in one_line_error(run_cli("ncu-import", bad, "-o", tmp_path / "t.json"))
