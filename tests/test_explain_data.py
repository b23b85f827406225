"""`explain --data`: kernels whose shared addresses or conditions depend on input data run on stated values
(uniform random, a constant, or a file's bytes). With the input a program really used, explain equals the
H100 trace of that program exactly (traces/histogram256.json: the corpus histogram's LCG bytes)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from bankism.explain.simt import ctype as C
from bankism.explain.simt.global_data import DataRule, GlobalData, parse_data
from tests.helpers import ROOT, run_cli
from tests.test_explain_support import not_counted, run, site

HISTOGRAM = ROOT / "traces" / "kernels" / "histogram256.cu"
DATA_KERNELS = ROOT / "hw" / "explain_data" / "data_kernels.cu"


def _lcg_bytes(count: int, skip: int = 0, skewed: bool = False) -> np.ndarray:
    """The corpus histogram's input: bytes of ``lcg(state) & 255`` (state 20261124), the skewed launch's
    ``(lcg & 1) ? lcg & 15 : lcg & 255`` after the uniform ones (traces/kernels/histogram256.cu)."""
    state = 20261124

    def lcg() -> int:
        nonlocal state
        state = (state * 1664525 + 1013904223) & 0xFFFFFFFF
        return state >> 8

    for _ in range(skip):
        lcg()
    out = np.zeros(count, np.uint8)
    for i in range(count):
        out[i] = ((lcg() & 15) if lcg() & 1 else (lcg() & 255)) if skewed else (lcg() & 255)
    return out


def _popc_site(report: dict) -> dict:
    return site(report, 27, "s_hist", "atomic")


@pytest.mark.parametrize("launch, skewed", [(0, False), (1, True)])
def test_the_programs_own_input_gives_the_h100s_count_exactly(tmp_path, launch, skewed):
    n = 1 << 18
    data = tmp_path / "input.bin"
    _lcg_bytes(n, skip=n if skewed else 0, skewed=skewed).tofile(data)
    ran = run_cli("explain", HISTOGRAM, "--data", f"data=file:{data}", "--trace",
                  ROOT / "traces" / "histogram256.json", "--launch", launch, "--block-index", "all", "--json")
    assert ran.returncode == 0, ran.stderr
    report = json.loads(ran.stdout)
    line = next(e for e in report["trace"]["lines"] if e["line"] == 27)
    assert line["same_addresses"] is True  # every recorded lane address equals the interpreted one
    measured = 22360 if skewed else 26928
    assert line["source"][0]["wavefronts"] == line["sass"][0]["wavefronts"] == measured
    assert _popc_site(report)["wavefronts"] == line["sass"][0]["wavefronts"]


def _expected_popc(bins: np.ndarray) -> float:
    """Plain reference: per warp-instruction, the most distinct words any bank holds (one 256-word row)."""
    return float(np.mean([max(np.bincount(np.unique(row) % 32, minlength=32)) for row in bins]))


def test_random_data_is_the_hash_the_report_names_and_counts_as_the_reference(tmp_path):
    report = run(HISTOGRAM, data=parse_data(["random"]), block_indices=[(b, 0, 0) for b in range(4)])
    assert any("uniform random integers in [0, 255]" in note and "seed 0" in note
               for note in report["assumptions"])
    found = _popc_site(report)
    # the same values, drawn here: block b, warp w, iteration k reads data[k * 8192 + b * 256 + w * 32 + lane]
    gd = GlobalData(parse_data(["random"]))
    rows = []
    for b in range(4):
        for w in range(8):
            for k in range(32):
                elements = k * 8192 + b * 256 + w * 32 + np.arange(32)
                rows.append(gd.values("data", DataRule(), elements, C.UCHAR)[0])
    assert found["instructions"] == len(rows)
    assert found["wavefronts"] == round(_expected_popc(np.array(rows)) * len(rows))
    # and near the expectation for independent uniform bins (3.152 per instruction by simulation)
    assert 3.0 < found["wavefronts"] / found["instructions"] < 3.3


def test_a_constant_sends_every_lane_to_one_counter():
    report = run(HISTOGRAM, data=parse_data(["data=7"]))
    found = _popc_site(report)
    assert found["wavefronts"] == found["instructions"] == found["ideal"]
    assert any("the constant 7" in note for note in report["assumptions"])


def test_a_sort_on_random_data_sorts_and_its_swaps_run_where_values_are_out_of_order():
    report = run(DATA_KERNELS, kernel="bitonic_sort", data=parse_data(["random"]), snapshot=(45, {}))
    cells = report["snapshot"]["arrays"]["s"]["cells"]
    sources = [int(cell["source"].split("[")[1].rstrip("]")) for cell in cells]
    values = GlobalData(parse_data(["random"])).values("in", DataRule(), np.array(sources), C.FLOAT)[0]
    assert sorted(sources) == list(range(1024))  # a permutation of the block's inputs
    assert np.all(np.diff(values) >= 0)  # ... in ascending order
    loads = next(s for s in report["sites"] if s["line"] == 34 and s["op"] == "load")["instructions"]
    stores = site(report, 37, "s", "store")["instructions"]
    assert 0 < stores < loads  # a warp with no pair out of order stores nothing


def test_without_data_the_bins_are_listed_not_counted_and_the_note_says_how_to_state_it():
    report = run(HISTOGRAM)
    entry = not_counted(report, 27)
    assert re.search(r"depend on values read from global memory \(data\).*--data random", entry["note"])
    assert entry["op"] == "atomic" and entry["instructions"] == 256  # 8 warps x 32 iterations of block 0
    assert {(s["line"], s["op"]) for s in report["sites"]} == {(24, "store"), (31, "load")}
    swaps = run(DATA_KERNELS, kernel="bitonic_sort")  # whether a swap runs depends on the keys: listed
    assert any(re.search(r"whether it runs depends on values in shared memory.*--data random", u["note"])
               for u in swaps["unmodelled"])


def test_a_file_shorter_than_the_reads_leaves_the_rest_unknown(tmp_path):
    short = tmp_path / "short.bin"
    short.write_bytes(bytes(range(64)))
    entry = not_counted(run(HISTOGRAM, data=parse_data([f"data=file:{short}"])), 27)
    assert "depend on values read from global memory" in entry["note"]


def test_a_file_path_may_hold_an_equals_sign(tmp_path):
    odd = tmp_path / "a=b.bin"
    _lcg_bytes(1 << 18).tofile(odd)
    report = run(HISTOGRAM, data=parse_data([f"file:{odd}"]))
    named = run(HISTOGRAM, data=parse_data([f"data=file:{odd}"]))
    one, two = _popc_site(report), _popc_site(named)
    assert one["wavefronts"] == two["wavefronts"] > two["instructions"]
    assert any(f"bytes of {odd}" in note and "seed" not in note for note in report["assumptions"])


def test_an_npy_file_is_read_as_its_array(tmp_path):
    n = 1 << 18
    raw, npy = tmp_path / "in.bin", tmp_path / "in.npy"
    values = _lcg_bytes(n)
    values.tofile(raw)
    np.save(npy, values)
    one = _popc_site(run(HISTOGRAM, data=parse_data([f"data=file:{raw}"])))
    two = _popc_site(run(HISTOGRAM, data=parse_data([f"data=file:{npy}"])))
    assert one["wavefronts"] == two["wavefronts"]


@pytest.mark.parametrize("spec, message", [
    ("foo", "expected [NAME=]random"),
    ("data=random:5:1", "LOW must not exceed HIGH"),
    ("1x=random", "is not a kernel pointer's name"),
    ("data=random:nan:1", "expected"),
    ("data=1e999", "out of range"),
    ("data=file:", "file: needs a path"),
    ("data=file:/nonexistent/input.bin", "/nonexistent/input.bin"),
    ("data=file:/dev/zero", "not a regular file"),
    ("bins=random", "histogram256 has no pointer or global array bins (its pointer parameters: data, out)"),
])
def test_bad_data_options_are_one_error_line(spec, message):
    ran = run_cli("explain", HISTOGRAM, "--data", spec)
    assert ran.returncode == 2
    lines = ran.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0], ran.stderr
    assert "Traceback" not in ran.stderr


def test_a_file_that_is_not_npy_is_one_error_line(tmp_path):
    bad = tmp_path / "bad.npy"
    bad.write_bytes(b"not an array")
    ran = run_cli("explain", HISTOGRAM, "--data", f"data=file:{bad}")
    assert ran.returncode == 2 and ran.stderr.startswith("error: --data")
    assert "not a NumPy .npy array" in ran.stderr


DEVICE = ROOT / "traces" / "explain_data"


@pytest.mark.parametrize("kernel, launch", [("bitonic_sort", 0), ("float_histogram", 1)])
def test_a_sort_and_a_float_histogram_on_their_own_input_equal_the_h100_line_by_line(kernel, launch):
    """hw/explain_data/data_kernels.cu on the H100 (traces/explain_data, every block recorded; the program
    wrote the input bytes it used, input.bin): the sort's compare-and-swap stores run in exactly the warps
    and lanes the hardware ran them, the histogram's atomics land on the same counters."""
    ran = run_cli("explain", DATA_KERNELS, "--kernel", kernel, "--data", f"in=file:{DEVICE / 'input.bin'}",
                  "--trace", DEVICE / "data_kernels.json", "--launch", launch, "--json")
    assert ran.returncode == 0, ran.stderr
    trace = json.loads(ran.stdout)["trace"]
    assert trace["lines"] and all(line["same_addresses"] is True for line in trace["lines"])
    for line in trace["lines"]:
        (source,), (sass,) = line["source"], line["sass"]
        assert (source["instructions"], source["wavefronts"]) == (sass["instructions"], sass["wavefronts"])
    if kernel == "bitonic_sort":  # the swaps: fewer stores than loads, data-dependent
        stores = next(line for line in trace["lines"] if line["line"] == 37)["sass"][0]["instructions"]
        assert stores == 23385  # in the 16 blocks compared (93,470 in all 64)
    else:
        atomics = next(line for line in trace["lines"] if line["line"] == 55)["sass"][0]
        assert (atomics["instructions"], atomics["wavefronts"]) == (256, 716)  # the 16 blocks compared


def test_a_seed_that_is_not_an_integer_is_one_error_line():
    ran = run_cli("explain", HISTOGRAM, "--data", "random", "--data-seed", "abc")
    assert ran.returncode == 2
    lines = ran.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "--data-seed" in lines[0]
