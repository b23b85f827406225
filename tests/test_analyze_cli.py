"""`bankism analyze` and `bankism show` from the command line: output shapes, exit codes, one-line errors."""

from __future__ import annotations

import csv
import io
import json
import sys

import pytest

from bankism import analyze
from bankism.cli import analyze_cmd
from bankism.cli.analyze_cmd import CSV_COLUMNS
from bankism.trace import open_trace, save
from tests.builders import FULL, launch, random_rows, site, strided, trace
from tests.helpers import run_cli


@pytest.fixture
def clean(tmp_path):
    """A trace without bank conflicts (every lane in its own bank)."""
    rows = [((0, 0, 0), w, 0, FULL, strided(4)) for w in range(2)]
    return save(trace(launch(rows=rows)), tmp_path / "clean.json")


@pytest.fixture
def conflicted(tmp_path):
    """Two launches; the second has a 32-way conflict at site 1 and (synthetic) counters."""
    rows = [((0, 0, 0), 0, 0, FULL, strided(4)), ((1, 0, 0), 1, 1, FULL, strided(128))]
    counters = {"ld": {"instructions": 1, "wavefronts": 1, "conflicts": 0},
                "st": {"instructions": 1, "wavefronts": 32, "conflicts": 31},
                "atom": {"instructions": 0, "wavefronts": 0, "conflicts": 0}}
    second = launch(index=1, sites=[site(0), site(1, op="store", sass="STS")], rows=rows, counters=counters)
    return save(trace(launch(), second), tmp_path / "conflicted.json")


def test_table_for_a_clean_trace(monkeypatch, capsys, clean):
    code, out, err = run_cli("analyze", str(clean))
    assert code == 0 and err == ""
    assert "synthetic_kernel(float*)" in out and "synthetic.cu:10" in out and "load" in out
    code, out, err = run_cli("analyze", str(clean), "--by", "site")
    assert code == 0 and "LDS" in out and "synthetic.cu:10" in out
    assert "No bank conflicts" in out
    assert "no measured counters" in out


def test_table_shows_conflicts_and_the_comparison(monkeypatch, capsys, conflicted):
    code, out, _ = run_cli("analyze", str(conflicted))
    assert code == 0
    assert "1 of 2 sites have bank conflicts" in out
    assert "bankism show TRACE --site 1 --launch 1" in out
    assert "Prediction agrees with the measured ncu counters" in out


def test_fail_on_conflict_exit_codes(monkeypatch, capsys, clean, conflicted):
    assert run_cli("analyze", str(clean), "--fail-on-conflict")[0] == 0
    code, _, err = run_cli("analyze", str(conflicted), "--fail-on-conflict", "--json")
    assert code == 1
    assert "1 site(s) have excess wavefronts" in err
    assert run_cli("analyze", str(conflicted), "--fail-on-conflict", "--launch", "0")[0] == 0


def test_json_shape(monkeypatch, capsys, conflicted):
    code, out, _ = run_cli("analyze", str(conflicted), "--json")
    assert code == 0
    report = json.loads(out)
    assert report["format"] == "bankism-analysis" and report["version"] == 1
    assert [item["index"] for item in report["launches"]] == [0, 1]
    first, second = report["launches"]
    assert first["measured"] is None
    for item in (first, second):
        assert item["kernel"] == "synthetic_kernel(float*)"
        assert set(item["predicted"]) == {"ld", "st", "atom"}
        for counts in item["predicted"].values():
            # addressed: the wavefronts of the sites ncu's SASS-instrumented count covers (docs/analyze.md)
            assert set(counts) == {"instructions", "wavefronts", "conflicts", "addressed"}
    assert second["measured"]["st"] == {"instructions": 1, "wavefronts": 32, "conflicts": 31}
    assert second["predicted"]["st"] == {**second["measured"]["st"], "addressed": 32}
    assert second["agrees"] is True
    conflicted_site = second["sites"][1]
    assert {"id", "sass", "file", "line", "op", "width", "class", "executions", "wavefronts", "ideal",
            "excess", "conflicts", "cycles", "worst"} <= set(conflicted_site)
    assert conflicted_site["class"] == "st"
    assert conflicted_site["worst"] == {"record": 1, "block": [1, 0, 0], "warp": 1, "wavefronts": 32,
                                        "ideal": 1, "excess": 31}


def test_csv_has_one_row_per_site(monkeypatch, capsys, conflicted):
    code, out, _ = run_cli("analyze", str(conflicted), "--csv")
    assert code == 0
    rows = list(csv.reader(io.StringIO(out)))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert [(r[0], r[2]) for r in rows[1:]] == [("0", "0"), ("1", "0"), ("1", "1")]
    last = dict(zip(CSV_COLUMNS, rows[-1], strict=True))
    picked = (last["wavefronts"], last["excess"], last["worst_block_x"], last["worst_warp"])
    assert picked == ("32", "31", "1", "1")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["analyze", "{dir}/missing.json"], "error: {dir}/missing.json: no such file"),
        (["analyze", "{bad}"], "error: {bad}: launch 0, record 0: lane 3 address 300000 is outside"),
        (["analyze", "{clean}", "--json", "--csv"], "error: --json and --csv exclude each other"),
        (["analyze", "{clean}", "--launch", "7"], "error: {clean}: no launch 7 (the trace holds launches 0)"),
        (["show", "{clean}", "--site", "9"], "error: {clean}: no launch has a site 9"),
        (["show", "{clean}", "--site", "9", "--launch", "0"], "error: {clean}: launch 0 has no site 9"),
    ],
)
def test_errors_are_one_line_with_exit_code_2(monkeypatch, capsys, tmp_path, clean, args, expected):
    addresses = strided(4)
    addresses[3] = 300000
    bad = tmp_path / "bad.json"
    doc = trace(launch(rows=[((0, 0, 0), 0, 0, FULL, strided(4))]))
    doc["launches"][0]["records"] = {k: v.tolist() for k, v in doc["launches"][0]["records"].items()}
    doc["launches"][0]["records"]["addresses"][0] = addresses
    bad.write_text(json.dumps(doc))
    names = {"dir": str(tmp_path), "bad": str(bad), "clean": str(clean)}
    code, out, err = run_cli(*[a.format(**names) for a in args])
    assert code == 2
    assert err.startswith(expected.format(**names))
    assert err.count("\n") == 1 and "Traceback" not in err


def test_show_draws_the_worst_warp(monkeypatch, capsys, conflicted):
    code, out, _ = run_cli("show", str(conflicted), "--site", "1", "--launch", "1")
    assert code == 0
    assert "worst of 1 executions is record 1, block (1,0,0), warp 1" in out
    assert "32 wavefront(s)" in out
    assert "w256(L0)  w288(L1)  w320(L2)" in out


def test_show_png(monkeypatch, capsys, tmp_path, conflicted):
    pytest.importorskip("matplotlib")
    picture = tmp_path / "map.png"
    code, out, _ = run_cli("show", str(conflicted), "--site", "1", "--png", str(picture))
    assert code == 0 and picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_show_png_without_matplotlib(monkeypatch, capsys, tmp_path, clean):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    picture = str(tmp_path / "x.png")
    code, _, err = run_cli("show", str(clean), "--site", "0", "--png", picture)
    assert code == 2
    assert err == "error: --png needs matplotlib: pip install 'bankism[png]'\n"
    assert not (tmp_path / "x.png").exists()


def test_no_progress_bar_when_not_a_terminal(monkeypatch, capsys, tmp_path):
    path = save(trace(launch(rows=random_rows(50))), tmp_path / "t.json")
    code, _, err = run_cli("analyze", str(path), "--csv")
    assert code == 0 and err == ""


def test_progress_bar_runs_over_every_record(tmp_path):
    path = save(trace(launch(rows=random_rows(30)), launch(index=2, rows=random_rows(12))),
                        tmp_path / "t.json", binary=True)
    opened = open_trace(path)
    assert [opened.record_count(item) for item in opened.launches] == [30, 12]
    seen = []
    with analyze_cmd._progress(opened, None, enabled=True) as advance:
        report = analyze.analyze(opened, chunk=8, on_records=lambda n: (seen.append(n), advance(n)))
    assert sum(seen) == sum(item.records for item in report.launches) == 42
