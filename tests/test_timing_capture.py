"""The time block: what `profile`/`record` ask ncu for, how `ncu-import` reads it, how traces carry it.

The CSV exports are the H100 ones of traces/timing (ncu 2025.3.1, raw page, base units).
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest

from bankism import trace as traceio
from bankism.capture.ncu import all_metrics, parse_csv, read_csv
from bankism.errors import BankismError
from bankism.trace.timeblock import DEVICE_ATTRIBUTES, REQUIRED_FIELDS, TIME_METRICS, launch_time
from tests.helpers import ROOT, run_cli

TIMING = ROOT / "traces" / "timing"
RAW = TIMING / "ncu_base_raw.csv"


def test_profile_asks_ncu_for_every_time_metric_and_no_device_attribute() -> None:
    asked = all_metrics()
    assert set(TIME_METRICS.values()) <= set(asked)
    assert not set(DEVICE_ATTRIBUTES.values()) & set(asked)  # ncu refuses them in --metrics


def test_raw_page_gives_each_launch_its_time_block() -> None:
    rows = list(csv.reader(RAW.open()))
    header, values = rows[0], rows[2]
    column = dict(zip(header, values, strict=True))
    launch = read_csv(RAW)[0]
    block, why = launch.time("base")
    assert why is None and block["clock_control"] == "base"
    for field, metric in {**TIME_METRICS, **DEVICE_ATTRIBUTES}.items():
        if field == "l1_wavefronts_per_sm":
            continue
        assert block[field] == pytest.approx(float(column[metric].replace(",", ""))), field


def _details_csv(units: dict[str, str], values: dict[str, str]) -> str:
    """A details-page export of one launch with the given metrics, units and values (ncu's layout)."""
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_ALL)
    writer.writerow(["ID", "Kernel Name", "Grid Size", "Block Size", "Metric Name", "Metric Unit",
                     "Metric Value"])
    for name, value in values.items():
        writer.writerow(["0", "k(float*)", "(8, 1, 1)", "(32, 1, 1)", name, units.get(name, ""), value])
    return out.getvalue()


def _measured_values() -> dict[str, str]:
    """The time metrics of the first launch of the H100 raw page, as ncu printed them (base units)."""
    rows = list(csv.reader(RAW.open()))
    column = dict(zip(rows[0], rows[2], strict=True))
    return {metric: column[metric] for metric in TIME_METRICS.values()}


@pytest.mark.parametrize(("unit", "scale"), [("msecond", 1e-6), ("usecond", 1e-3), ("nsecond", 1.0)])
def test_a_duration_in_scaled_units_is_read_in_nanoseconds(unit: str, scale: float) -> None:
    values = _measured_values()
    duration = TIME_METRICS["duration_ns"]
    nanoseconds = float(values[duration].replace(",", ""))
    values[duration] = repr(nanoseconds * scale)
    clock = TIME_METRICS["sm_clock_hz"]
    hertz = float(values[clock].replace(",", ""))
    values[clock] = repr(hertz / 1e9)
    launch = parse_csv(_details_csv({duration: unit, clock: "Ghz"}, values))[0]
    block, why = launch.time(None)
    assert why is None
    assert block["duration_ns"] == pytest.approx(nanoseconds) and block["sm_clock_hz"] == pytest.approx(hertz)
    # a details page has no device attributes: the SM count comes from the L1 units' sum over their mean
    assert block["sm_count"] == 132 and block["max_clock_khz"] is None


def test_an_unknown_duration_unit_is_a_clear_error() -> None:
    values = _measured_values()
    with pytest.raises(BankismError, match="unknown unit 'fortnight'"):
        parse_csv(_details_csv({TIME_METRICS["duration_ns"]: "fortnight"}, values))


def test_missing_time_metrics_leave_the_block_null_with_the_reason() -> None:
    values = _measured_values()
    del values[TIME_METRICS["warp_cycles_per_issue"]]
    block, why = parse_csv(_details_csv({}, values))[0].time("base")
    assert block is None and TIME_METRICS["warp_cycles_per_issue"] in why
    assert "warp_cycles_per_issue" in REQUIRED_FIELDS


def test_ncu_import_adds_the_time_block_to_an_older_trace(tmp_path: Path) -> None:
    for suffix in (".json", ".npz"):
        shutil.copy(TIMING / f"transpose_conflict{suffix}", tmp_path / f"t{suffix}")
    doc = json.loads((tmp_path / "t.json").read_text())
    for launch in doc["launches"]:
        launch.pop("time")
    doc["launches"][0]["records_file"] = "t.npz"
    (tmp_path / "t.json").write_text(json.dumps(doc))
    assert launch_time(traceio.load(tmp_path / "t.json")["launches"][0])[0] is None
    ran = run_cli("ncu-import", RAW, "--into", tmp_path / "t.json", "--kernel", "^transpose_conflict$")
    assert ran.returncode == 0, ran.stderr
    assert "ms at 1.59 GHz" in ran.stdout
    launch = traceio.load(tmp_path / "t.json")["launches"][0]
    time, why = launch_time(launch)
    assert why is None and time.clock_control is None  # an import does not know how ncu held the clocks


def test_a_csv_without_time_metrics_imports_with_a_null_block(tmp_path: Path) -> None:
    smoke = ROOT / "tests" / "data" / "capture" / "smoke.ncu-raw.csv"
    ran = run_cli("ncu-import", smoke, "-o", tmp_path / "s.json")
    assert ran.returncode == 0, ran.stderr
    for launch in traceio.load(tmp_path / "s.json")["launches"]:
        assert launch["time"] is None and launch["time_missing"].startswith("ncu did not report")
        assert launch_time(launch) == (None, launch["time_missing"])


def test_the_schema_checks_the_time_block(tmp_path: Path) -> None:
    doc = traceio.load(TIMING / "chase_conflict.json")
    doc["launches"][0]["time"]["duration_ns"] = -1.0
    with pytest.raises(BankismError, match="duration_ns"):
        traceio.validate(doc)
    doc["launches"][0]["time"] = None
    traceio.validate(doc)
