"""explain with the launch's grid not known (a grid the host computes at run time, or no launch in the
file and only --block given): the answer is per block, gridDim is an unknown value, and the launch totals
are left out instead of refusing the kernel."""

from __future__ import annotations

import pytest

from bankism.errors import BankismError
from bankism.explain import ExplainOptions, explain
from tests.helpers import one_line_error, run_cli
from tests.test_explain_support import DATA, listed, run, site

KERNEL = DATA / "heldout" / "grid_unknown.cu"


def test_a_grid_the_host_computes_at_run_time_gives_a_per_block_answer():
    report = run(KERNEL, kernel="tile_stride")
    launch = report["launch"]
    assert launch["grid"] is None and launch["block"] == [32, 32, 1] and launch["from"] == "line 39"
    assert "the grid `grid` on line 39 cannot be evaluated" in report["assumptions"][0]
    counted = {(s["line"], s["op"]): (s["instructions"], s["wavefronts"], s["conflicts"])
               for s in report["sites"]}
    assert counted == {(12, "store"): (32, 32, 0), (14, "store"): (2, 2, 0), (16, "load"): (32, 32, 0),
                       (20, "atomic"): (32, 32, 0), (23, "load"): (1, 2, 1)}
    # what depends on gridDim is listed with the option that would make it known
    assert listed(report, 18, "gridDim.x, the launch's grid (give --grid X,Y,Z)")["instructions"] == 32
    assert listed(report, 20, "gridDim.y")["op"] == "atomic"
    assert report["shared_pipe"] is None  # the shared atomics have no measured cycles


def test_the_grid_given_makes_the_same_kernel_fully_counted():
    report = run(KERNEL, kernel="tile_stride", grid=(4, 4, 1))
    assert report["launch"]["grid"] == [4, 4, 1] and not report.get("unmodelled")
    # block (0,0,0) is not in the last column of a 4-wide grid; with gridDim.y = 4 the warp of row y runs
    # ceil((64 - y) / 4) times: 4 x (16 + 15 + ... + 9) = 400 warp-instructions
    assert site(report, 20, "bins", "atomic")["instructions"] == 400


def test_a_kernel_without_a_launch_is_answered_from_block_alone():
    report = run(KERNEL, kernel="no_launch", block=(128, 1, 1))
    assert report["launch"]["grid"] is None and report["launch"]["from"] == "options"
    assert site(report, 30, "s", "store")["conflicts"] == 4 * 3  # 4 warps, 4-way: 3 extra each
    assert site(report, 32, "s", "load")["conflicts"] == 0
    pipe = report["shared_pipe"]  # per block only: no launch cycles without the grid
    assert pipe["blocks"] is None and pipe["launch_cycles"] is None and pipe["block_cycles"] == 4 * 4 + 4
    assert run(KERNEL, kernel="no_launch", block=(128, 1, 1), grid=(2, 1, 1))["shared_pipe"]["blocks"] == 2


def test_without_block_the_kernel_without_a_launch_is_refused_naming_the_option():
    with pytest.raises(BankismError, match=r"no launch of no_launch .* give --block X,Y,Z \(and --grid"):
        run(KERNEL, kernel="no_launch")


def test_every_block_needs_the_grid():
    """Regression: the error named an option that does not exist (--all-blocks), not --block-index."""
    with pytest.raises(BankismError, match="--block-index all needs the launch's grid: give --grid X,Y,Z"):
        run(KERNEL, kernel="no_launch", block=(128, 1, 1), all_blocks=True)
    ran = run_cli("explain", KERNEL, "--kernel", "no_launch", "--block", "128", "--block-index", "all")
    expected = f"error: {KERNEL}: --block-index all needs the launch's grid: give --grid X,Y,Z"
    assert one_line_error(ran) == expected


def test_the_grid_group_needs_the_grid():
    source = ("#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
              "__global__ void k(float *o) { __shared__ float s[64];\n"
              "  s[threadIdx.x] = cg::this_grid().size(); o[threadIdx.x] = s[threadIdx.x]; }\n")
    with pytest.raises(BankismError, match="k.cu:4: the grid group needs the launch's grid"):
        explain(source, "k.cu", ExplainOptions(block=(64, 1, 1)))


def test_a_loop_stepping_by_a_value_not_known_is_not_a_counted_loop():
    """Regression: a loop whose step was not known (gridDim, or a parameter not given) was an internal
    error (None times the step's sign) in the repeating-loop shortcut."""
    source = ("__global__ void k(float *o, int s) { __shared__ float t[256];\n"
              "  for (int i = threadIdx.x; i < 256; i += s * gridDim.x) t[i] = 0;\n"
              "  o[threadIdx.x] = t[threadIdx.x]; }\n")
    report = explain(source, "k.cu", ExplainOptions(block=(256, 1, 1)))
    assert site(report, 2, "t", "store")["instructions"] == 8
