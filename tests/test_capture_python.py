"""The Python programs of hw/pytrace, traced and profiled on an H100 (`bankism record`, traces/python/).

For each: the predictions from the recorded addresses equal what ncu measured on the whole launch (to the
unit, after scaling from the recorded blocks), the kernel is the one `--kernel` names as a user writes it,
and the sites carry the Python (or CUDA) source lines the line info holds. docs/tracer.md, "Python
programs", shows how each was recorded.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bankism import analyze
from bankism.capture import ncu
from bankism.trace import load, open_trace

ROOT = Path(__file__).resolve().parents[1]
TRACES = ROOT / "traces" / "python"

# name: (the --kernel it was recorded with, the script, {(source file suffix, line)} of its sites)
PROGRAMS = {
    "torch_softmax": ("SoftMaxForward", "torch_softmax.py", {(None, None)}),
    "triton_softmax": (
        "^softmax_rows$",
        "triton_kernels.py",
        {("triton/language/standard.py", 191), ("triton/language/standard.py", 293)},
    ),
    "triton_matmul": (
        "^matmul_tile$",
        "triton_kernels.py",
        {
            ("hw/pytrace/triton_kernels.py", 33),
            ("hw/pytrace/triton_kernels.py", 34),
            ("hw/pytrace/triton_kernels.py", 36),
        },
    ),
    "ext_block_sum": (
        "block_sum_interleaved",
        "ext_inline.py",
        {
            ("bankism_block_sum/cuda.cu", 12),
            ("bankism_block_sum/cuda.cu", 16),
            ("bankism_block_sum/cuda.cu", 19),
        },
    ),
    "numba_transpose": (
        "^transpose_tile$",
        "numba_shared.py",
        {("hw/pytrace/numba_shared.py", 22), ("hw/pytrace/numba_shared.py", 26)},
    ),
}


def test_every_trace_in_traces_python_is_checked_here() -> None:
    assert sorted(p.stem for p in TRACES.glob("*.json")) == sorted(PROGRAMS)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_predictions_equal_the_measured_counters(name: str) -> None:
    report = analyze.analyze(open_trace(TRACES / f"{name}.json"))
    (launch,) = report.launches
    assert launch.records > 0 and launch.measured is not None
    rows = launch.comparisons()
    assert rows and all(row.difference == 0 for row in rows), [
        (row.op_class, row.metric, row.measured, row.predicted) for row in rows
    ]
    assert launch.agrees() is True


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_recorded_on_the_h100_with_its_script(name: str) -> None:
    doc = load(TRACES / f"{name}.json")
    kernel, script, _ = PROGRAMS[name]
    env = doc["environment"]
    assert env["gpu"] == "NVIDIA H100 80GB HBM3" and env["driver"] and env["ncu"] and env["cuda"]
    assert doc["program"]["command"] == ["python3", f"hw/pytrace/{script}"]
    assert (ROOT / "hw" / "pytrace" / script).is_file()
    (launch,) = doc["launches"]
    assert ncu.kernel_matches(re.compile(kernel), launch["kernel"], launch["mangled"])


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_sites_carry_the_source_lines_of_the_line_info(name: str) -> None:
    (launch,) = load(TRACES / f"{name}.json")["launches"]
    found = {(site["file"], site["line"]) for site in launch["sites"]}
    expected = PROGRAMS[name][2]
    assert len(found) == len(expected)
    for suffix, line in expected:
        assert any(
            (file is None if suffix is None else file is not None and file.endswith(suffix)) and got == line
            for file, got in found
        ), (suffix, line, found)


def test_numba_names_as_users_write_them() -> None:
    (launch,) = load(TRACES / "numba_transpose.json")["launches"]
    assert "[abi:" in launch["kernel"]  # numba-cuda's mangled name carries ABI tags
    assert ncu.base_name(launch["kernel"]) == "transpose_tile"
    assert not re.search("^transpose_tile$", launch["kernel"])  # the bare name is what makes it match


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_shared_traffic_the_tracer_cannot_see_is_listed(name: str) -> None:
    """The Triton tile product's two HGMMA (wgmma) read their operands from shared memory unrecorded;
    ncu's shared-memory LSU counters leave them out too (they equal the recorded LDS/STS above). The
    PyTorch trace was converted before the list existed (its 6 MB module is not kept), so it has none."""
    (launch,) = load(TRACES / f"{name}.json")["launches"]
    found = launch.get("unrecorded_shared")
    if name == "torch_softmax":
        assert found is None
    elif name == "triton_matmul":
        assert [(f["sass"], f["instructions"], f["file"], f["line"]) for f in found] == [
            ("HGMMA.64", 2, "hw/pytrace/triton_kernels.py", 35)
        ]
    else:
        assert found == []


def test_analyze_says_what_it_could_not_see(capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    import sys

    from bankism.cli import main

    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setattr(sys, "argv", ["bankism", "analyze", str(TRACES / "triton_matmul.json")])
    with pytest.raises(SystemExit) as exited:
        main()
    out = capsys.readouterr().out
    assert exited.value.code == 0
    assert "Not in the prediction" in out and "2 x HGMMA.64 at triton_kernels.py:35" in out
