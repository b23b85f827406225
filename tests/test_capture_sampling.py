"""`--blocks auto`: every block when the records fit --max-records, else a spread of whole blocks over the
grid (every S-th block, S prime to the grid's x extent), traced again and scaled by analyze."""

from __future__ import annotations

import json
from math import gcd
from pathlib import Path

import pytest

from bankism.capture import convert
from bankism.capture.raw import RawCapture, read_capture
from bankism.capture.run import TraceOptions, parse_blocks, tracer_environment
from bankism.capture.sampling import (
    REPEATED_LAUNCHES,
    RecordsOverflow,
    blocks_recorded,
    repeated_launch_note,
    spread_stride,
)
from bankism.errors import BankismError

RAW = Path(__file__).parent / "data" / "capture" / "smoke_raw"


@pytest.mark.parametrize(("spec", "want"), [("auto", ("auto", None, [])), ("every:7", ("every", 7, [])),
                                            (" all ", ("all", None, []))])
def test_parse_blocks_modes(spec: str, want: tuple) -> None:
    assert parse_blocks(spec) == want


@pytest.mark.parametrize("spec", ["every:0", "every:", "first:²", "every:x", "first:-1", "1,²"])
def test_parse_blocks_refuses_non_ascii_and_non_positive_counts(spec: str) -> None:
    with pytest.raises(BankismError, match="--blocks"):
        parse_blocks(spec)


def test_auto_asks_the_tracer_for_every_block_and_every_for_a_stride(tmp_path: Path) -> None:
    class Build:
        library, patches = Path("lib.so"), Path("patches.fatbin")

    assert tracer_environment(Build(), TraceOptions(), tmp_path)["BANKISM_TRACE_BLOCKS"] == "all"
    every = TraceOptions(blocks="every:5")
    assert tracer_environment(Build(), every, tmp_path)["BANKISM_TRACE_BLOCKS"] == "every:5"


def test_every_keeps_linear_indices_that_are_multiples_of_the_stride() -> None:
    assert blocks_recorded("every:3", [4, 2, 1]) == [[0, 0, 0], [3, 0, 0], [2, 1, 0]]
    assert blocks_recorded("every:1", [4, 2, 1]) == "all"
    assert blocks_recorded("auto", [4, 2, 1]) == "all"


@pytest.mark.parametrize(("seen", "capacity", "grid"), [(10_000_000, 1_000_000, [128, 128, 1]),
                                                         (3_000_000, 1_000_000, [1, 90, 1]),
                                                         (1_000_001, 1_000_000, [6, 1, 1])])
def test_the_spread_fits_and_visits_every_column(seen: int, capacity: int, grid: list[int]) -> None:
    stride = spread_stride(seen, capacity, grid)
    assert seen / stride <= 0.8 * capacity  # blocks recording alike: the spread fits with room to spare
    extent = next(e for e in grid[:2] if e > 1)
    assert gcd(stride, extent) == 1
    columns = {b[0] if grid[0] > 1 else b[1] for b in blocks_recorded(f"every:{stride}", grid)}
    assert len(columns) == min(extent, len(range(0, grid[0] * grid[1], stride)))


def test_a_spread_that_still_overflows_widens() -> None:
    assert spread_stride(900_000, 1_000_000, [64, 1, 1], stride=3) > 3


def _capture_of_grid(seen_per_block: int, grid: list[int], stride: int, capacity: int) -> RawCapture:
    capture = read_capture(RAW)
    total = grid[0] * grid[1] * grid[2]
    seen = seen_per_block * len(range(0, total, stride))
    launch = dict(capture.launches[0], grid=grid, seen=seen, records=min(seen, capacity))
    return RawCapture(capture.directory, capture.modules, [launch])


def test_auto_overflow_names_the_stride_instead_of_failing() -> None:
    capture = _capture_of_grid(100, [64, 1, 1], 1, 2000)
    with pytest.raises(RecordsOverflow, match=r"every 5th block \(13 of 64, spread over the grid\)") as info:
        convert.traced_launches(capture, TraceOptions(max_records=2000), spread=1)
    assert info.value.stride == 5  # 6,400 / 1,600 = 4, then prime to 64
    with pytest.raises(BankismError, match="exceed --max-records 2000; record fewer blocks"):
        convert.traced_launches(capture, TraceOptions(blocks="all", max_records=2000))


def test_trace_program_runs_again_with_a_spread(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    runs: list[str] = []

    def fake_run(command, build, options, raw_dir, timeout):  # noqa: ANN001, ARG001
        runs.append(options.blocks)

    def fake_read(raw_dir):  # noqa: ANN001, ARG001
        stride = 1 if runs[-1] == "auto" else int(runs[-1].removeprefix("every:"))
        return _capture_of_grid(100, [64, 1, 1], stride, 2000)

    class Toolkit:
        nvcc = nvdisasm = None

    monkeypatch.setattr(convert, "find_toolkit", lambda: Toolkit())
    context = read_capture(RAW).directory / "context.json"
    recorded_env = json.loads(context.read_text())["environment"]
    monkeypatch.setattr(convert, "environment", lambda nvcc: recorded_env)
    monkeypatch.setattr(convert, "build_tracer", lambda toolkit: None)
    monkeypatch.setattr(convert, "run_traced", fake_run)
    monkeypatch.setattr(convert, "read_capture", fake_read)
    smoke = read_capture(RAW)
    smoke_records = smoke.records(smoke.launches[0])  # every run's records: the one-block smoke capture
    monkeypatch.setattr(convert.RawCapture, "records", lambda self, launch: smoke_records)
    doc = convert.trace_program(["./app"], tmp_path / "t.json", TraceOptions(max_records=2000))
    assert runs == ["auto", "every:5"]
    launch = doc["launches"][0]
    assert launch["blocks_total"] == 64 and len(launch["blocks_recorded"]) == 13
    assert "blocks every:5" in doc["description"]


def _launch(index: int, kernel: str = "sgemm(float*)", grid=(16, 16, 1), block=(16, 16, 1)) -> dict:
    return {"index": index, "kernel": kernel, "mangled": "_Z5sgemmPf" if kernel.startswith("sgemm") else None,
            "grid": list(grid), "block": list(block)}


def test_a_benchmark_loop_of_one_launch_shape_is_named_with_how_to_keep_one():
    launches = [_launch(i) for i in range(26)] + [_launch(26, "reduce(float*)", (1, 1, 1), (32, 1, 1))]
    note = repeated_launch_note(launches)
    assert note is not None and note.startswith("note: 26 launches of sgemm with grid [16, 16, 1] and block "
                                                "[16, 16, 1] were recorded")
    assert "--launch N keep one" in note


def test_a_few_launches_or_launches_of_other_shapes_get_no_note():
    assert repeated_launch_note([_launch(i) for i in range(REPEATED_LAUNCHES - 1)]) is None
    assert repeated_launch_note([_launch(i, grid=(i + 1, 1, 1)) for i in range(8)]) is None
    assert repeated_launch_note([]) is None
