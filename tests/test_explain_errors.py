"""What bankism explain refuses: one-line errors naming the file, the line and the construct,
never a wrong answer or a traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bankism.errors import BankismError
from bankism.explain import ExplainOptions, explain
from tests.test_explain_support import DATA, run

UNSUPPORTED = DATA / "unsupported"


@pytest.mark.parametrize(("name", "line", "words"), [
    ("goto_backwards.cu", 6, "unsupported construct: goto again jumps backwards"),
    ("inline_asm.cu", 6, "unsupported construct: PTX instruction st.async.shared::cluster"),
    ("grid_sync.cu", 10, "unsupported construct: grid-wide synchronization"),
    ("out_of_bounds.cu", 4, "thread (31,0,0) accesses s at byte 128, outside its 128 bytes"),
    ("syntax_error.cu", 4, "cannot parse this code: `s[threadIdx.x] = (1.0f + ;`"),
])
def test_unsupported_constructs_are_one_line_errors(name, line, words):
    path = UNSUPPORTED / name
    with pytest.raises(BankismError) as caught:
        explain(path.read_text(), str(path))
    message = str(caught.value)
    assert message.startswith(f"{path}:{line}: ")
    assert words in message
    assert "\n" not in message


def test_a_missing_value_given_with_d_makes_it_work():
    report = run(UNSUPPORTED / "unknown_param.cu", defines={"stride": "2"})
    (store,) = [s for s in report["sites"] if s["op"] == "store"]
    assert store["warps"][0]["lane_addresses"][:3] == [1024, 1032, 1040]


@pytest.mark.parametrize(("options", "words"), [
    (ExplainOptions(kernel="nope"), "no __global__ function named nope; it defines multiply"),
    (ExplainOptions(block_indices=[(16, 0, 0)]), "--block-index 16,0,0 is outside the grid (16, 16, 1)"),
    (ExplainOptions(block=(64, 32, 1)), "has 2048 threads; CUDA allows 1024"),
    (ExplainOptions(arch="sm_00"), "unknown arch 'sm_00'"),
])
def test_bad_options(options, words):
    path = DATA / "dgemm_tile_quiz.cu"
    with pytest.raises(BankismError, match=words.replace("(", r"\(").replace(")", r"\)")):
        explain(path.read_text(), str(path), options)


def test_snapshot_that_never_happens():
    from bankism.explain import SnapshotRequest

    path = DATA / "dgemm_tile_quiz.cu"
    cases = ((SnapshotRequest(34, (("tileNUM", 99),)), "no statement ending on line 34 ran with"),
             (SnapshotRequest(34, (("nothing", 1),)), "no variable nothing in scope at this line"),
             (SnapshotRequest(37, ()), "no statement ending on line 37 ran"))
    for request, words in cases:
        with pytest.raises(BankismError, match=words):
            explain(path.read_text(), str(path), ExplainOptions(snapshot=request))


def test_no_launch_and_no_grid():
    source = "__global__ void k(float *o) { __shared__ float s[32]; s[threadIdx.x] = 1; o[0] = s[0]; }"
    words = r"no launch of k .* give --block X,Y,Z \(and --grid X,Y,Z for the launch's totals\)"
    with pytest.raises(BankismError, match=words):
        explain(source, "k.cu")
    report = explain(source, "k.cu", ExplainOptions(grid=(1, 1, 1), block=(32, 1, 1)))
    assert report["launch"]["from"] == "options"


def test_several_kernels_need_kernel_option():
    source = ("__global__ void a(float *o) { __shared__ float s[32]; s[threadIdx.x] = 1; o[0] = s[0]; }\n"
              "__global__ void b(float *o)\n"
              "{ __shared__ float t[64]; t[threadIdx.x * 2] = 1; o[0] = t[0]; }\n")
    words = r"defines several kernels \(a, b\): choose one with --kernel NAME"
    with pytest.raises(BankismError, match=words):
        explain(source, "two.cu", ExplainOptions(grid=(1, 1, 1), block=(32, 1, 1)))
    report = explain(source, "two.cu", ExplainOptions(kernel="b", grid=(1, 1, 1), block=(32, 1, 1)))
    assert [s["shared_array"] for s in report["sites"]] == ["t", "t"]


def test_cli_error_is_one_line_with_exit_code_2():
    result = subprocess.run(
        [sys.executable, "-m", "bankism", "explain", str(UNSUPPORTED / "goto_backwards.cu")],
        capture_output=True, text=True, check=False,
    )
    assert result.returncode == 2
    assert result.stderr.startswith("error: ")
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr


def test_an_endless_loop_is_an_error_not_a_hang(monkeypatch):
    import bankism.explain.simt.statements as statements

    monkeypatch.setattr(statements, "MAX_LOOP_ITERATIONS", 100)
    source = ("__global__ void k(float *o) { __shared__ float s[32]; int i = 0;\n"
              "while (i >= 0) { i = (i + 1) % 7; }\ns[threadIdx.x] = 1; o[0] = s[0]; }\n")
    with pytest.raises(BankismError, match=r"k.cu:2: this loop did not end after 100 iterations"):
        explain(source, "k.cu", ExplainOptions(grid=(1, 1, 1), block=(32, 1, 1)))
