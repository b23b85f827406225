"""ncu CSV parsing and matching, on exports recorded on an H100 (tests/data/capture/*.ncu-*.csv).

The raw-page exports name kernels mangled (as `bankism profile` exports them), the details-page exports
demangled; both come from the same ncu report of one launch, so they must give the same counters.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bankism.capture import ncu
from bankism.errors import BankismError
from bankism.trace import load, save

DATA = Path(__file__).parent / "data" / "capture"

# Counters as ncu printed them for these launches (the details-page CSVs, read by eye).
EXPECTED = {
    "transpose32": {
        "ld": {"instructions": 2048, "wavefronts": 65536, "conflicts": 63488},
        "st": {"instructions": 2048, "wavefronts": 2048, "conflicts": 0},
        "atom": {"instructions": 0, "wavefronts": 0, "conflicts": 0},
    },
    "smoke": {
        "ld": {"instructions": 10, "wavefronts": 16, "conflicts": 2},
        "st": {"instructions": 9, "wavefronts": 11, "conflicts": 0},
        "atom": {"instructions": 2, "wavefronts": 2, "conflicts": 0},
    },
}


@pytest.mark.parametrize("name", ["transpose32", "smoke", "ldmatrix_tile", "histogram64"])
def test_raw_and_details_pages_give_the_same_counters(name: str) -> None:
    raw = ncu.read_csv(DATA / f"{name}.ncu-raw.csv")
    details = ncu.read_csv(DATA / f"{name}.ncu-details.csv")
    assert len(raw) == len(details) == 1
    assert raw[0].counters() == details[0].counters()
    assert raw[0].grid == details[0].grid and raw[0].block == details[0].block
    assert raw[0].compute_capability == details[0].compute_capability == "9.0"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_counters_match_what_ncu_printed(name: str) -> None:
    (launch,) = ncu.read_csv(DATA / f"{name}.ncu-details.csv")
    assert launch.counters() == EXPECTED[name]


def test_raw_page_reads_launch_facts_and_mangled_names() -> None:
    (launch,) = ncu.read_csv(DATA / "transpose32.ncu-raw.csv")
    assert launch.id == 0
    assert launch.kernel == "_Z11transpose32ILi0EEvPfPKfi"
    assert launch.grid == (8, 8, 1) and launch.block == (32, 8, 1)
    assert launch.metrics["launch__shared_mem_per_block_static"] == 4096
    assert launch.metrics["launch__shared_mem_per_block_dynamic"] == 0


def test_details_page_reads_demangled_names() -> None:
    (launch,) = ncu.read_csv(DATA / "ldmatrix_tile.ncu-details.csv")
    assert launch.kernel.startswith("void ldmatrix_tile<0>(")  # ncu prints bool template arguments as 0/1
    assert ncu.base_name(launch.kernel) == "ldmatrix_tile"


def test_log_lines_before_the_csv_are_skipped() -> None:
    text = (DATA / "smoke.ncu-details.csv").read_text()
    noisy = "==PROF== Connected to process 1\n==PROF== Disconnected from process 1\n" + text
    assert ncu.parse_csv(noisy)[0].counters() == EXPECTED["smoke"]


def test_a_file_that_is_not_an_ncu_export_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "other.csv"
    path.write_text("a,b\n1,2\n")
    with pytest.raises(BankismError, match="not an ncu CSV export"):
        ncu.read_csv(path)
    with pytest.raises(BankismError, match="no such file"):
        ncu.read_csv(tmp_path / "missing.csv")


@pytest.mark.parametrize(
    ("text", "unit", "value"),
    [
        ("16,384", "", 16384.0), ("1.5", "Kinst", 1500.0), ("n/a", "", None), ("", "", None),
        ("7", "byte", 7.0),
    ],
)
def test_numbers_as_ncu_prints_them(text: str, unit: str, value: float | None) -> None:
    assert ncu.parse_number(text, unit) == value


@pytest.mark.parametrize(
    ("kernel", "base"),
    [
        ("void matmul32<0>(float const*, float const*, float*, int)", "matmul32"),
        ("multiply(double const*, double const*, double*)", "multiply"),
        ("cupy_sum", "cupy_sum"),
        ("void ns::k<(int)1, float>(float*)", "k"),
    ],
)
def test_base_name(kernel: str, base: str) -> None:
    assert ncu.base_name(kernel) == base


def _launch(index: int, kernel: str, mangled: str, grid: list[int]) -> dict:
    return {"index": index, "kernel": kernel, "mangled": mangled, "grid": grid, "block": [32, 8, 1]}


def test_match_by_index_then_by_name_and_shape_in_order() -> None:
    name, mangled = "void transpose32<0>(float*, float const*, int)", "_Z11transpose32ILi0EEvPfPKfi"
    a = _launch(0, name, mangled, [8, 8, 1])
    b = _launch(5, name, mangled, [8, 8, 1])
    profiled = [
        ncu.NcuLaunch(0, "_Z11transpose32ILi0EEvPfPKfi", (8, 8, 1), (32, 8, 1)),
        ncu.NcuLaunch(1, "void transpose32<0>(float *, const float *, int)", (8, 8, 1), (32, 8, 1)),
        ncu.NcuLaunch(2, "other", (8, 8, 1), (32, 8, 1)),
    ]
    matched = ncu.match_launches([a, b], profiled)
    assert matched[0].id == 0  # same ID, same mangled name
    assert matched[5].id == 1  # no ID 5: the next unused launch of the same kernel and shape


def test_a_launch_of_another_shape_is_not_matched() -> None:
    a = _launch(0, "k(int*)", "_Z1kPi", [4, 1, 1])
    assert ncu.match_launches([a], [ncu.NcuLaunch(0, "_Z1kPi", (8, 1, 1), (32, 8, 1))]) == {}


def test_fill_counters_into_the_recorded_smoke_trace(tmp_path: Path) -> None:
    doc = load(DATA / "smoke_trace.json")
    for launch in doc["launches"]:
        launch["counters"] = None
    missing = ncu.fill_counters(doc, ncu.read_csv(DATA / "smoke.ncu-raw.csv"), "smoke.ncu-raw.csv")
    assert missing == []
    assert doc["launches"][0]["counters"] == EXPECTED["smoke"]
    save(doc, tmp_path / "smoke.json")
    assert load(tmp_path / "smoke.json")["launches"][0]["counters"] == EXPECTED["smoke"]


def test_fill_counters_with_no_match_is_an_error() -> None:
    doc = load(DATA / "smoke_trace.json")
    with pytest.raises(BankismError, match="no profiled launch matches"):
        ncu.fill_counters(doc, ncu.read_csv(DATA / "transpose32.ncu-raw.csv"), "transpose32.csv")


def test_counters_only_launch_is_a_valid_trace_launch(tmp_path: Path) -> None:
    (profiled,) = ncu.read_csv(DATA / "transpose32.ncu-raw.csv")
    profiled.demangled = "void transpose32<0>(float *, const float *, int)"
    launch = ncu.counters_only_launch(profiled)
    assert launch["shared_bytes"] == {"static": 4096, "dynamic": 0}
    assert launch["mangled"] == "_Z11transpose32ILi0EEvPfPKfi"
    doc = {
        "format": "bankism-trace", "version": 1, "environment": {"arch": "sm_90"}, "launches": [launch],
    }
    save(doc, tmp_path / "counters.json")
    saved = json.loads((tmp_path / "counters.json").read_text())
    assert saved["launches"][0]["counters"] == EXPECTED["transpose32"]


def test_select_kernels_searches_every_name() -> None:
    (profiled,) = ncu.read_csv(DATA / "transpose32.ncu-raw.csv")
    profiled.demangled = "void transpose32<0>(float *, const float *, int)"
    assert ncu.select_kernels([profiled], "transpose32<0>") == [profiled]
    assert ncu.select_kernels([profiled], "^_Z11") == [profiled]
    assert ncu.select_kernels([profiled], "matmul") == []
    with pytest.raises(BankismError, match="not a valid regular expression"):
        ncu.select_kernels([profiled], "(")
