"""Choosing launches: kernel names as users write them, ncu's kernel filter and launch window for
`bankism profile`, the exact selection `bankism record` profiles, and the traced program's environment.

The GPU parts cannot run here; these tests check the names matched, the command lines built and the
options refused, in process (the CLI through `bankism.cli.main`, as a user's shell would call it).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bankism.capture import ncu
from bankism.capture.build import TracerBuild
from bankism.capture.run import TraceOptions, program_environment
from bankism.errors import BankismError
from bankism.trace import load, save
from tests.helpers import run_cli

DATA = Path(__file__).parent / "data" / "capture"

NUMBA_OLD = "cudapy::__main__::transpose_tile$241(Array<float, 2, C, mutable, aligned>)"
NUMBA_NEW = (
    "cudapy::__main__::transpose_tile[abi:v1][abi:cw51cXTLSUwv1sCUt9](Array<float, 2, C, mutable, aligned>)"
)
TORCH = (
    "void at::native::(anonymous namespace)::cunn_SoftMaxForwardReg<float, float, float, "
    "at::native::(anonymous namespace)::SoftMaxForwardEpilogue, long, (int)4>(T3 *, const T1 *, T5)"
)


@pytest.mark.parametrize(
    ("kernel", "base"),
    [
        (NUMBA_OLD, "transpose_tile"),
        (NUMBA_NEW, "transpose_tile"),
        (TORCH, "cunn_SoftMaxForwardReg"),
        ("softmax_rows", "softmax_rows"),
    ],
)
def test_base_name_of_numba_pytorch_and_triton_kernels(kernel: str, base: str) -> None:
    assert ncu.base_name(kernel) == base


@pytest.mark.parametrize("name", [NUMBA_OLD, NUMBA_NEW, "softmax_rows"])
def test_anchored_names_match_the_bare_function_name(name: str) -> None:
    pattern = re.compile("^(transpose_tile|softmax_rows)$")
    assert ncu.kernel_matches(pattern, name)
    assert not ncu.kernel_matches(re.compile("^transpose$"), name)


def test_the_default_selection_profiles_every_launch() -> None:
    selection = ncu.check_selection(None, None, None)
    assert selection.arguments() == [] and selection.everything


def test_kernel_launch_and_count_become_ncu_options() -> None:
    selection = ncu.check_selection("SoftMax", 2, 3)
    assert selection.arguments() == [
        "--kernel-name-base",
        "demangled",
        "--kernel-name",
        "regex:SoftMax",
        "--launch-skip",
        "2",
        "--launch-count",
        "3",
    ]
    assert not selection.everything
    assert ncu.check_selection(None, 4, None).count == 1  # --launch alone: that one launch


def test_profile_command_puts_the_selection_before_the_program(tmp_path: Path) -> None:
    selection = ncu.Selection("k", "mangled", 1, 2)
    command = ncu.profile_command(
        "ncu", ["python3", "app.py", "--kernel", "x"], tmp_path / "r", ["m"], selection
    )
    assert command[command.index("--kernel-name") + 1] == "regex:k"
    assert command.index("--launch-count") < command.index("-o") < command.index("python3")
    assert command[-3:] == ["app.py", "--kernel", "x"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((None, -1, None), "--launch takes a 0-based index"),
        ((None, None, 0), "--launch-count must be at least 1"),
        (("(", None, None), "not a valid regular expression"),
        (("", None, None), "the regular expression is empty"),
    ],
)
def test_bad_selections_are_refused(args: tuple, message: str) -> None:
    with pytest.raises(BankismError, match=re.escape(message)):
        ncu.check_selection(*args)


def _seen(names: list[str]) -> list[dict]:
    return [{"index": i, "mangled": name, "kernel": name} for i, name in enumerate(names)]


def test_exact_selection_counts_launches_of_the_traced_kernels_only() -> None:
    seen = _seen(["fill", "softmax_rows", "fill", "matmul", "softmax_rows", "softmax_rows"])
    selection, indices = ncu.exact_selection(seen, [4])
    assert selection == ncu.Selection("^(softmax_rows)$", "mangled", 1, 1)
    assert indices == [4]
    selection, indices = ncu.exact_selection(seen, [1, 3, 5])
    assert selection.kernel == "^(matmul|softmax_rows)$" and (selection.skip, selection.count) == (0, 4)
    assert indices == [1, 3, 4, 5]


def test_exact_selection_escapes_the_names() -> None:
    name = "_ZN6cudapy8__main__14transpose_tile$241E5ArrayIfLi2E1C7mutable7alignedE"
    selection, _ = ncu.exact_selection(_seen([name]), [0])
    assert re.fullmatch(selection.kernel, name) and not re.fullmatch(selection.kernel, name + "x")


def test_exact_selection_needs_the_traced_launches_in_the_manifest() -> None:
    with pytest.raises(BankismError, match="does not list the traced launches"):
        ncu.exact_selection(_seen(["a"]), [3])


def test_the_tracer_is_preloaded_and_starts_when_loaded(tmp_path: Path) -> None:
    build = TracerBuild(tmp_path / "lib.so", tmp_path / "p.fatbin")
    env = program_environment(build, TraceOptions("k"), tmp_path, {"LD_PRELOAD": "/x.so", "PATH": "/bin"})
    assert env["LD_PRELOAD"] == f"{tmp_path / 'lib.so'}:/x.so"
    assert env["BANKISM_TRACE_INIT_AT_LOAD"] == "1"
    assert env["CUDA_INJECTION64_PATH"] == str(tmp_path / "lib.so")
    assert "CUDA_MODULE_LOADING" not in env  # the program's own module loading is kept
    plain = program_environment(build, TraceOptions("k"), tmp_path, {"BANKISM_TRACE_PRELOAD": "0"})
    assert "LD_PRELOAD" not in plain and "BANKISM_TRACE_INIT_AT_LOAD" not in plain




@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["profile", "--launch", "-1", "--", "./app"], "--launch takes a 0-based index"),
        (["profile", "--launch-count", "0", "--", "./app"], "--launch-count must be at least 1"),
        (["profile", "--kernel", "(", "--", "./app"], "not a valid regular expression"),
        (["record", "-o", "t.json", "--launch", "-2", "--", "./app"], "--launch takes 0-based indices"),
        (
            ["record", "-o", "t.json", "--blocks", "first:0", "--", "./app"],
            "first:K needs a positive integer",
        ),
        (["record", "-o", "t.json", "--kernel", "[", "--", "./app"], "not a valid regular expression"),
        (["record", "-o", "t.json"], "no program given"),
    ],
)
def test_bad_values_are_one_line_errors(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    args: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(*args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and message in err, err
    assert list(tmp_path.iterdir()) == []


def test_record_profiles_exactly_the_traced_launches(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """`record` on the smoke program's capture (recorded on an H100): the trace run saw three launches,
    traced the second smoke launch; ncu must be asked for exactly that one, and its counters land there."""
    from bankism.capture import convert, toolkit

    recorded = json.loads((DATA / "smoke_trace.json").read_text())
    recorded["launches"][0]["index"] = 2
    mangled = recorded["launches"][0]["mangled"]
    seen = [
        {"index": 0, "mangled": mangled},
        {"index": 1, "mangled": "_Z5otherv"},
        {"index": 2, "mangled": mangled},
    ]
    asked: list[ncu.Selection] = []

    def trace_program(command, output, options, source, note, keep_raw, timeout, seen_out):
        assert options == TraceOptions("smoke", (1,), "auto", 1_000_000)
        seen_out.extend(seen)
        save(recorded, output)
        return load(output)

    def run_profile(command, extra=(), keep_csv=None, keep_report=None, keep_details=None, selection=None):
        asked.append(selection)
        return ncu.read_csv(DATA / "smoke.ncu-raw.csv")  # one result: ncu's ID 0

    monkeypatch.setattr(convert, "trace_program", trace_program)
    monkeypatch.setattr(ncu, "run_profile", run_profile)
    monkeypatch.setattr(ncu, "find_ncu", lambda: "ncu")
    monkeypatch.setattr(toolkit, "ncu_version", lambda ncu_path=None: "2025.3.1.0")
    out = tmp_path / "t.json"
    code, stdout, err = run_cli(
        "record", "-o", str(out), "--kernel", "smoke", "--launch", "1", "--", "./smoke"
    )
    assert code == 0, err
    assert asked == [ncu.Selection(f"^({mangled})$", "mangled", 1, 1)]
    doc = load(out)
    assert doc["launches"][0]["counters"] == ncu.read_csv(DATA / "smoke.ncu-raw.csv")[0].counters()
    assert doc["environment"]["ncu"] == "2025.3.1.0"
    assert "launch 2: smoke" in stdout
