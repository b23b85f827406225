"""Regressions from the second bad-input campaign (1,000 cases, 2026-11-25): each was a traceback, a hang,
a memory blow-up, a wrong answer or a mis-read option; each is now one `error:` line (exit 2), a right
answer, or bounded."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest

import bankism
import bankism.testing as testing
from bankism import inputs
from bankism.capture.ncu.exports import parse_number
from bankism.errors import BankismError
from bankism.explain.simt import ctype as C
from bankism.explain.simt.memory import SharedStore
from bankism.review import Access, SharedArray
from bankism.trace import load, save
from tests.helpers import ROOT, one_line_error, run_cli

COL32 = ROOT / "traces" / "timing" / "col32_conflict.json"
KERNEL = ROOT / "tests" / "data" / "explain" / "transpose.cu"


def _trace_copy(tmp_path: Path, change) -> Path:  # noqa: ANN001
    """traces/timing/col32_conflict.json (and its .npz) copied, its first launch changed by ``change``."""
    shutil.copy(COL32.with_suffix(".npz"), tmp_path / COL32.with_suffix(".npz").name)
    document = json.loads(COL32.read_text())
    change(document["launches"][0])
    path = tmp_path / COL32.name
    path.write_text(json.dumps(document))
    return path


def test_a_huge_but_valid_time_block_still_gets_an_answer(tmp_path: Path):
    """sm_cycles 1e300 overflowed the SM floor's p-norm (OverflowError)."""
    path = _trace_copy(tmp_path, lambda launch: launch["time"].update(sm_cycles=1e300, l1_wavefronts=1e300))
    ran = run_cli("analyze", path, "--no-progress")
    assert ran.returncode in (0, 1) and "Time: removing the conflicts saves" in ran.stdout, ran.stderr


@pytest.mark.parametrize("value, message", [
    ([{}], "unrecorded_shared[0]: 'sass' is a required property"),
    ("x", "unrecorded_shared: \"x\" is not of type 'array', 'null'"),
    ([{"sass": "UTMALDG", "instructions": -3}], "unrecorded_shared[0].instructions: -3 is less than"),
])
def test_a_malformed_unrecorded_shared_list_is_one_line(tmp_path: Path, value: object, message: str):
    path = _trace_copy(tmp_path, lambda launch: launch.update(unrecorded_shared=value))
    before = path.read_bytes()
    assert message in one_line_error(run_cli("analyze", path, "--no-progress"))
    assert path.read_bytes() == before


@pytest.mark.parametrize("value", ["busy", -1, True])
def test_a_bad_busiest_l2_slice_is_one_line(tmp_path: Path, value: object):
    """The time block's l2_slice_max_pct (new this session) is validated as every percent is."""
    path = _trace_copy(tmp_path, lambda launch: launch["time"].update(l2_slice_max_pct=value))
    before = path.read_bytes()
    assert "l2_slice_max_pct" in one_line_error(run_cli("analyze", path, "--no-progress"))
    assert path.read_bytes() == before


def test_a_non_finite_ncu_value_is_no_measurement_and_a_trace_never_holds_one(tmp_path: Path):
    """'inf' and '1e400' became time values written as Infinity, which no reader takes back."""
    assert parse_number("inf") is None and parse_number("1e400") is None and parse_number("1.5") == 1.5
    document = load(COL32)
    document["launches"][0]["time"]["duration_ns"] = math.inf
    with pytest.raises(BankismError, match="not finite"):
        save(document, tmp_path / "out.json")
    assert not (tmp_path / "out.json").exists()
    with pytest.raises(BankismError, match="needs a file name, not a directory"):
        save(load(COL32), tmp_path)


def test_limit_values_unlimited_huge_and_empty(tmp_path: Path):
    source = tmp_path / "k.cu"
    source.write_text(KERNEL.read_text())
    ran = run_cli("--limit", "source=unlimited", "explain", source)  # was MemoryError: the cap allocated
    assert ran.returncode == 0, ran.stderr
    refused = one_line_error(run_cli("--limit", "steps=1e400", "explain", source))
    assert "larger than any limit can be" in refused
    assert "expected NAME=VALUE" in one_line_error(run_cli("--limit", "", "explain", source))
    with pytest.raises(BankismError, match="expected a list of NAME=VALUE strings"):
        inputs.set_limits(None)  # type: ignore[arg-type]


def test_read_stream_reads_in_pieces_up_to_the_cap():
    import io

    inputs.set_limits(["source=unlimited"])
    try:
        assert inputs.read_stream(io.BytesIO(b"x" * 100), "source", "stdin") == b"x" * 100
    finally:
        inputs.reset_limits()


@pytest.mark.parametrize("value", ["", "３２", "32,１"])
def test_block_values_that_are_empty_or_not_ascii_digits_are_refused(value: str):
    assert "--block" in one_line_error(run_cli("explain", KERNEL, "--block", value))


def test_every_integer_option_reads_ascii_digits_only():
    """One reader (inputs.c_integer) for --block/--grid, --when, --addresses and --active."""
    assert inputs.c_integer("0x1f") == 31 and inputs.c_integer("-7") == -7
    with pytest.raises(ValueError):
        inputs.c_integer("３２")
    when = one_line_error(run_cli("explain", KERNEL, "--snapshot", "12", "--when", "i=４"))
    assert "--when i=４: VALUE must be an integer" in when
    active = one_line_error(run_cli("simulate", "--stride", "4", "--width", "4", "--active", "１"))
    assert "--active" in active


def test_control_characters_from_a_trace_are_printed_escaped(tmp_path: Path):
    def rename(launch: dict) -> None:
        for site in launch["sites"]:
            site["file"] = "a\rb\x1b[31mc.cu"
    ran = run_cli("analyze", _trace_copy(tmp_path, rename), "--no-progress", "--wide")
    assert "\x1b" not in ran.stdout and "\r" not in ran.stdout
    assert "\\x1b[31mc.cu" in ran.stdout


def test_the_report_console_does_not_highlight():
    """Rich's highlighter took quadratic time on a long name without spaces (100 k characters: 84 s)."""
    from bankism.cli.analyze_render import stdout_console

    assert stdout_console(100)._highlight is False


def test_the_review_api_raises_bankism_errors_for_bad_arguments():
    access = Access(SharedArray("float", (32, 32)), lambda t: (t.x % 32, 0))
    for bad in (5, None, "abc"):
        with pytest.raises(BankismError, match="expected an Access"):
            bankism.check(bad, block=32)  # type: ignore[arg-type]
    for limit in (float("nan"), "1", None, -1, 1.5):  # NaN passed every access: a wrong answer
        with pytest.raises(BankismError, match="must be a whole number"):
            testing.assert_max_wavefronts(access, limit, block=32)  # type: ignore[arg-type]
    with pytest.raises(AssertionError):
        testing.assert_max_wavefronts(access, 1, block=32)
    for grid in (2**80, (2**31, 1), (70000, 70000)):
        with pytest.raises(BankismError, match="past CUDA's limits"):
            bankism.check(access, block=32, grid=grid)
    assert bankism.check(access, block=32, grid=(2**31 - 1, 65535, 65535)).blocks > 0
    with pytest.raises(BankismError, match=r"shape \(32,\) or \(N, 32\)"):
        bankism.simulate([[0] * 32, [0] * 31], width=4)
    with pytest.raises(BankismError, match="1 index array"):
        SharedArray("float", (32, 32)).element_offsets(np.arange(4))  # zip() raised ValueError
    with pytest.raises(BankismError, match="chunk must be a whole number"):
        list(bankism.trace.iter_records(COL32, 0, chunk="5"))  # type: ignore[arg-type]


def test_a_long_loops_stores_keep_the_shared_store_bounded():
    """A one-warp loop storing to the same 128 bytes 10,000 times kept every store's record (the campaign's
    1e12-iteration loop used 1.27 GB); records no byte holds any more are dropped, reads unchanged."""
    store = SharedStore(4096)
    lanes = np.arange(32, dtype=np.int64) * 4
    for i in range(10_000):
        store.store(lanes, C.FLOAT, np.full(32, i, np.float32), np.ones(32, bool), np.full(32, -1, np.int64))
    assert store._capacity == 1024  # never grew: 320,000 stores, at most 1,024 records kept
    data, known, _ = store.load(np.array([8]), C.FLOAT)
    assert bool(known[0]) and float(np.asarray(data).reshape(-1)[0]) == 9_999.0
    first = SharedStore(8192)  # regression: a first store larger than the log's room compacted an empty log
    first.store(np.arange(4096, dtype=np.int64), C.UCHAR, np.zeros(4096, np.uint8), np.zeros(4096, bool),
                np.full(4096, -1, np.int64))
    assert first._count == 4096
