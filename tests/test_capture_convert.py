"""The tracer's raw output -> trace converter, on a capture recorded on an H100.

tests/data/capture/smoke_raw is what `bankism trace --keep-raw` kept of hw/corpus/smoke.cu (one block of
64 threads whose shared-memory accesses are known address by address); smoke_trace.json is the trace the
device wrote from it (with ncu counters added by `bankism profile`); smoke_sass.txt is ``nvdisasm -gi -c``
of the module's cubin. The smoke program printed the shared-window offsets of its arrays: f at 1024,
d at 1280, counters at 1792, m at 1920, dynamic shared memory at 2048.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bankism.capture.build import TRACER_DIR
from bankism.capture.convert import (
    blocks_recorded,
    classify_site,
    convert_raw_folder,
    traced_launches,
    without_duplicate_matrix_records,
)
from bankism.capture.disasm import SassInstruction, parse_nvdisasm
from bankism.capture.raw import KIND_MATRIX, KIND_SHARED, RECORD_DTYPE, RawCapture, read_capture
from bankism.capture.run import TraceOptions
from bankism.errors import BankismError
from bankism.trace import RECORD_FIELDS, load, validate

DATA = Path(__file__).parent / "data" / "capture"
RAW = DATA / "smoke_raw"
F, D, COUNTERS, M, DYN = 1024, 1280, 1792, 1920, 2048
LANES = np.arange(32)


@pytest.fixture(scope="module")
def sass() -> dict:
    return parse_nvdisasm((DATA / "smoke_sass.txt").read_text())


@pytest.fixture(scope="module")
def launch(sass: dict) -> dict:
    doc = convert_raw_folder(RAW, None, sass)
    validate(doc)
    return doc["launches"][0]


def _site(launch: dict, sass_name: str, line: int) -> int:
    (site,) = [s for s in launch["sites"] if s["sass"] == sass_name and s["line"] == line]
    return site["id"]


def _records(launch: dict, site: int, warp: int) -> tuple[np.ndarray, np.ndarray]:
    records = launch["records"]
    chosen = (np.asarray(records["site"]) == site) & (np.asarray(records["warp"]) == warp)
    (row,) = np.flatnonzero(chosen)
    return np.asarray(records["addresses"])[row], int(np.asarray(records["active"])[row])


def test_launch_header(launch: dict) -> None:
    assert launch["kernel"] == "smoke(unsigned int*)"
    assert launch["mangled"] == "_Z5smokePj"
    assert launch["grid"] == [1, 1, 1] and launch["block"] == [64, 1, 1]
    assert launch["shared_bytes"] == {"static": 1024, "dynamic": 256}
    assert launch["blocks_total"] == 1 and launch["blocks_recorded"] == "all"
    assert len(launch["records"]["warp"]) == 23  # warp 0: 12 (it also zeroes counters), warp 1: 11


def test_sites_have_opcode_op_width_and_line(launch: dict) -> None:
    shapes = [(s["sass"], s["op"], s["width"], s["matrices"], s["line"]) for s in launch["sites"]]
    assert shapes == [
        ("STS", "store", 4, None, 19),
        ("STS", "store", 4, None, 20),
        ("STS.64", "store", 8, None, 21),
        ("STS", "store", 4, None, 22),
        ("STS.U16", "store", 2, None, 23),
        ("LDS.64", "load", 8, None, 26),
        ("LDS", "load", 4, None, 25),
        ("LDS", "load", 4, None, 27),
        ("ATOMS.POPC.INC.32", "atomic", 4, None, 28),
        ("LDS", "load", 4, None, 32),
        ("LDSM.16.M88", "ldmatrix", 16, 1, 31),
        ("LDS", "load", 4, None, 34),
    ]
    assert all(Path(s["file"]).name == "smoke.cu" for s in launch["sites"])
    assert [s["pc"] for s in launch["sites"]] == sorted(s["pc"] for s in launch["sites"])


@pytest.mark.parametrize("warp", [0, 1])
def test_addresses_are_the_shared_window_offsets_the_program_printed(launch: dict, warp: int) -> None:
    t = warp * 32 + LANES
    cases = [
        ("STS", 20, F + 4 * t),                        # f[t]
        ("STS.64", 21, D + 8 * t),                     # d[t]
        ("STS", 22, DYN + 4 * t),                      # dyn[t]
        ("STS.U16", 23, M + 2 * t),                    # m[t]
        ("LDS.64", 26, D + 8 * (t ^ 1)),               # d[t ^ 1]
        ("LDS", 25, F + 4 * ((2 * t) % 64)),           # f[(2t) % 64]
        ("ATOMS.POPC.INC.32", 28, COUNTERS + 4 * (t % 4)),
        ("LDS", 32, DYN + 4 * (63 - t)),               # dyn[63 - t]
    ]
    for name, line, want in cases:
        addresses, active = _records(launch, _site(launch, name, line), warp)
        assert active == 0xFFFFFFFF
        np.testing.assert_array_equal(addresses, want, err_msg=f"{name} line {line} warp {warp}")


def test_partial_active_mask_and_zeroed_inactive_lanes(launch: dict) -> None:
    for warp in (0, 1):
        t = warp * 32 + LANES
        lanes = t % 3 == 0  # c = (t % 3 == 0) ? f[63 - t] : 0
        addresses, active = _records(launch, _site(launch, "LDS", 27), warp)
        assert active == int(np.sum(1 << LANES[lanes]))
        np.testing.assert_array_equal(addresses[lanes], F + 4 * (63 - t[lanes]))
        assert not addresses[~lanes].any()


def test_ldmatrix_row_addresses(launch: dict) -> None:
    addresses, active = _records(launch, _site(launch, "LDSM.16.M88", 31), 0)
    assert active == 0xFFFFFFFF
    np.testing.assert_array_equal(addresses[:8], M + 16 * np.arange(8))  # &m[(lane % 8) * 8]


def test_only_warp_0_zeroes_the_counters(launch: dict) -> None:
    site = _site(launch, "STS", 19)
    records = launch["records"]
    assert np.asarray(records["warp"])[np.asarray(records["site"]) == site].tolist() == [0]
    addresses, active = _records(launch, site, 0)
    assert active == 0xF
    np.testing.assert_array_equal(addresses[:4], COUNTERS + 4 * np.arange(4))


def test_records_are_sorted_by_warp_in_program_order(launch: dict) -> None:
    warps = np.asarray(launch["records"]["warp"])
    assert (np.diff(warps) >= 0).all()


def test_conversion_matches_the_trace_written_on_the_device(launch: dict) -> None:
    device = load(DATA / "smoke_trace.json")["launches"][0]
    assert [(s["pc"], s["sass"], s["op"], s["width"], s["line"]) for s in device["sites"]] == [
        (s["pc"], s["sass"], s["op"], s["width"], s["line"]) for s in launch["sites"]
    ]
    for field in RECORD_FIELDS:
        want, got = np.asarray(device["records"][field]), np.asarray(launch["records"][field])
        np.testing.assert_array_equal(want, got)


def test_without_sass_the_op_comes_from_the_sanitizer_flags() -> None:
    doc = convert_raw_folder(RAW, None, {})
    ops = [(s["op"], s["width"]) for s in doc["launches"][0]["sites"]]
    assert ops[:5] == [("store", 4), ("store", 4), ("store", 8), ("store", 4), ("store", 2)]
    assert ("ldmatrix", 16) in ops and ("load", 8) in ops
    assert all(s["sass"] is None and s["line"] is None for s in doc["launches"][0]["sites"])


def test_block_subset_keeps_only_listed_blocks(sass: dict, tmp_path: Path) -> None:
    context = json.loads((RAW / "context.json").read_text())
    context["options"]["blocks"] = "first:1"
    copy = tmp_path / "raw"
    copy.mkdir()
    for item in RAW.iterdir():
        (copy / item.name).write_bytes(item.read_bytes())
    (copy / "context.json").write_text(json.dumps(context))
    doc = convert_raw_folder(copy, None, sass)
    assert doc["launches"][0]["blocks_recorded"] == "all"  # first:1 of a one-block grid is every block


def test_truncated_and_failed_launches_are_refused() -> None:
    capture = read_capture(RAW)
    launch = capture.launches[0]
    options = TraceOptions(max_records=10)
    too_many = dict(launch, seen=launch["records"] + 5)
    with pytest.raises(BankismError, match="exceed --max-records 10"):
        traced_launches(RawCapture(RAW, capture.modules, [too_many]), options)
    failed = dict(launch, ok=False)
    with pytest.raises(BankismError, match="could not copy its records back"):
        traced_launches(RawCapture(RAW, capture.modules, [failed]), options)
    with pytest.raises(BankismError, match="the tracer reported: boom"):
        traced_launches(RawCapture(RAW, capture.modules, [launch], ["boom"]), options)
    untraced = dict(launch, traced=False)
    with pytest.raises(BankismError, match="no kernel launch matched --kernel 'x'; launches seen: smoke"):
        only_untraced = RawCapture(RAW, capture.modules, [untraced])
        traced_launches(only_untraced, TraceOptions("x"))


def test_a_missing_manifest_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(BankismError, match="the tracer wrote nothing"):
        read_capture(tmp_path)


@pytest.mark.parametrize(
    ("spec", "grid", "want"),
    [
        ("all", [4, 4, 1], "all"),
        ("first:2", [4, 4, 1], [[0, 0, 0], [1, 0, 0]]),
        ("first:5", [4, 4, 1], [[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0], [0, 1, 0]]),
        ("first:99", [4, 4, 1], "all"),
        ("1,1;0,0;1,1", [4, 4, 1], [[1, 1, 0], [0, 0, 0]]),
        ("0;1", [2, 1, 1], "all"),
    ],
)
def test_blocks_recorded(spec: str, grid: list[int], want: object) -> None:
    assert blocks_recorded(spec, grid) == want


@pytest.mark.parametrize("spec", ["first:0", "first:x", "1,2,3,4", "a,b", ";", "9,9"])
def test_bad_block_specs(spec: str) -> None:
    with pytest.raises(BankismError, match="--blocks"):
        blocks_recorded(spec, [4, 4, 1])


@pytest.mark.parametrize(
    ("opcode", "kind", "flags", "width", "matrices", "want"),
    [
        ("LDS.128", 1, 1, 16, 0, ("load", 16, None, False)),
        ("STS.U16", 1, 2, 2, 0, ("store", 2, None, False)),
        ("ATOMS.CAST.SPIN.64", 1, 3, 8, 0, ("atomic", 8, None, False)),
        ("LDSM.16.MT88.2", 2, 1, 16, 2, ("ldmatrix", 16, 2, True)),
        ("LDSM.16.M88", 2, 1, 16, 1, ("ldmatrix", 16, 1, False)),
        ("STSM.16.M88.4", 2, 2, 16, 4, ("stmatrix", 16, 4, False)),
        (None, 2, 2, 16, 4, ("stmatrix", 16, 4, False)),
        (None, 1, 3, 4, 0, ("atomic", 4, None, False)),
        (None, 1, 1, 8, 0, ("load", 8, None, False)),
    ],
)
def test_classify_site(opcode, kind, flags, width, matrices, want) -> None:
    shape = classify_site(opcode, kind, flags, width, matrices)
    assert (shape["op"], shape["width"], shape["matrices"], shape["trans"]) == want


def test_matrix_accesses_reported_twice_keep_the_matrix_record() -> None:
    records = np.zeros(3, RECORD_DTYPE)
    records["pc"] = [100, 100, 200]
    records["kind"] = [KIND_SHARED, KIND_MATRIX, KIND_SHARED]
    kept = without_duplicate_matrix_records(records)
    assert kept["pc"].tolist() == [100, 200]
    assert kept["kind"].tolist() == [KIND_MATRIX, KIND_SHARED]


def test_parse_nvdisasm_takes_the_users_line_of_inlined_code() -> None:
    header = "/usr/local/cuda-13.0/bin/../targets/x86_64-linux/include/sm_20_atomic_functions.hpp"
    text = f"""
.text._Z1kPj:
	//## File "/x/k.cu", line 7
        /*0000*/                   LDC R1, c[0x0][0x28] ;
	//## File "{header}", line 9 inlined at "/x/k.cu", line 12
	//## File "/x/k.cu", line 12
        /*0010*/              @!P0 ATOMS.ADD RZ, [R2], R3 ;
        /*0020*/                   LDS.64 R4, [R2+0x8] ;
"""
    functions = parse_nvdisasm(text)
    assert functions["_Z1kPj"][0x10] == SassInstruction("ATOMS.ADD", "/x/k.cu", 12)
    assert functions["_Z1kPj"][0x20] == SassInstruction("LDS.64", "/x/k.cu", 12)
    assert functions["_Z1kPj"][0x0].line == 7


def test_record_layout_matches_the_tracer_header() -> None:
    header = (Path(TRACER_DIR) / "tracer_records.h").read_text()
    assert f"sizeof(RawRecord) == {RECORD_DTYPE.itemsize}" in header
    size = (RAW / "launch_0.bin").stat().st_size
    assert size == 23 * RECORD_DTYPE.itemsize
