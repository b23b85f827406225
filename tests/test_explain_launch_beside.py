"""explain on a file that does not launch its kernel: the launch is taken from a file of the same source
tree that does (a runner including a header of kernels, or a main.cu compiled apart that declares the
kernel), and the answer equals the one with that launch's shape given as options (launch_search.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bankism.errors import BankismError
from bankism.explain.frontend import launch_search
from tests.helpers import one_line_error, run_cli
from tests.test_explain_support import DATA, run, site

BESIDE = DATA / "beside"
HEADER = BESIDE / "kernels" / "tile_kernels.cuh"
BINS = BESIDE / "split" / "bins.cu"


def counts(report: dict) -> dict:
    return {(s["line"], s["op"]): (s["instructions"], s["wavefronts"], s["conflicts"])
            for s in report["sites"]}


def test_a_header_of_kernels_takes_the_launch_of_the_runner_that_includes_it():
    report = run(HEADER, kernel="column_read")
    launch = report["launch"]
    assert launch["grid"] == [32, 1, 1] and launch["block"] == [32, 32, 1]
    assert launch["from"] == f"{os.path.relpath(BESIDE / 'runner.cu')}:13"
    assert "does not launch column_read: the launch on" in report["assumptions"][0]
    assert site(report, 12, "tile", "load")["conflicts"] == 32 * 31  # 32 warps, 32-way
    given = run(HEADER, kernel="column_read", grid=(32, 1, 1), block=(32, 32, 1), defines={"TILE": "32"})
    assert counts(report) == counts(given)
    assert site(run(HEADER, kernel="padded_read"), 21, "tile", "load")["conflicts"] == 0


def test_a_kernel_compiled_apart_takes_the_launch_of_the_file_that_declares_it():
    """bins.cu has no #include of main.cu or back; a_other.cu, nearer in name order, launches a kernel of
    the same name that it defines itself, so its launch is not this kernel's and is passed over."""
    report = run(BINS, kernel="spread_bins")
    assert report["launch"]["grid"] == [64, 1, 1] and report["launch"]["block"] == [256, 1, 1]
    assert report["launch"]["from"].endswith("main.cu:12")
    assert site(report, 7, "bins", "atomic")["wavefronts"] == 8 * 8  # stride 8: 8 words a bank
    given = run(BINS, kernel="spread_bins", grid=(64, 1, 1), block=(256, 1, 1), defines={"stride": "8"})
    assert counts(report) == counts(given)


def test_a_kernel_no_file_launches_is_still_refused_naming_the_option():
    with pytest.raises(BankismError, match=r"no launch of never_launched .*give --block X,Y,Z"):
        run(BINS, kernel="never_launched")


def test_options_that_give_the_shape_win_and_no_search_is_made():
    report = run(HEADER, kernel="column_read", block=(32, 8, 1), defines={"TILE": "32", "n": "1024"})
    assert report["launch"]["from"] == "options" and report["launch"]["grid"] is None
    assert not any("does not launch" in a for a in report["assumptions"])


def test_source_that_is_not_the_named_files_text_is_not_searched_around():
    """The API may name a file it did not read: the search is only made for the file's own text."""
    from bankism.explain import ExplainOptions, explain

    text = HEADER.read_text() + "\n// edited in memory\n"
    with pytest.raises(BankismError, match="no launch of column_read"):
        explain(text, str(HEADER), ExplainOptions(kernel="column_read"))


def test_the_search_stops_at_the_repository_root_and_goes_nearest_first(tmp_path: Path):
    repo = tmp_path / "outer" / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "src" / "kernels").mkdir(parents=True)
    header = repo / "src" / "kernels" / "k.cuh"
    header.write_text("__global__ void k(float *p)\n"
                      "{ __shared__ float s[32]; s[threadIdx.x] = 1; p[0] = s[0]; }\n")
    (repo / "src" / "run.cu").write_text('#include "kernels/k.cuh"\nint main() { k<<<2, 32>>>(0); }\n')
    (repo / "z_far.cu").write_text("// a launch further away\nvoid f() { k<<<4, 64>>>(0); }\n")
    (tmp_path / "outer" / "above.cu").write_text("void g() { k<<<8, 128>>>(0); }\n")  # above the root
    assert launch_search.search_root(header) == str(repo)
    found = launch_search.launching_files(str(header), "k")
    assert found == [str(repo / "src" / "run.cu"), str(repo / "z_far.cu")]
    assert launch_search.launching_files(str(header), "other") == []


def test_the_launch_pattern_takes_template_arguments_and_no_longer_name():
    pattern = launch_search.launch_pattern("gemm")
    assert pattern.search("gemm<<<g, b>>>(x);") and pattern.search("ns::gemm<float, Tile<4>> <<<g, b>>>()")
    assert not pattern.search("my_gemm<<<g, b>>>(x);") and not pattern.search("gemm(x);")


def test_the_cli_answers_a_header_and_names_where_the_launch_came_from():
    ran = run_cli("explain", HEADER, "--kernel", "column_read")
    assert ran.returncode == 0, ran.stderr
    assert "runner.cu:13 (a file of the same source tree) is used" in ran.stdout
    refused = one_line_error(run_cli("explain", BINS, "--kernel", "never_launched"))
    assert refused.startswith(f"error: {BINS}: no launch of never_launched")


def test_cp_async_into_an_extern_array_without_a_size_asks_for_it():
    """Regression (scout 9: 13 public cp.async GEMMs): the refusal named shared address 1024 as outside every
    array; it names the extern array and the option, and with the option the copy is counted."""
    kernel = DATA / "heldout" / "cp_async_unsized.cu"
    with pytest.raises(BankismError, match=r":10: extern __shared__ array staged has no size: give --dyn"):
        run(kernel)
    report = run(kernel, dynamic_shared=2048)
    assert site(report, 10, "staged", "ldgsts")["wavefronts"] == 4 * 4  # 4 warps of 16-byte lanes: 4 each
    assert site(report, 13, "staged", "load")["conflicts"] == 0


def test_a_runner_that_does_not_preprocess_is_passed_over(tmp_path):
    """A runner with an #error (or any preprocessing failure) must not sink the answer: the kernel's own
    refusal (or the next runner) stands."""
    (tmp_path / "k").mkdir()
    header = tmp_path / "k" / "kk.cuh"
    header.write_text("__global__ void kk(float *o)\n"
                      "{ __shared__ float s[32]; s[threadIdx.x] = 1; o[0] = s[0]; }\n")
    (tmp_path / "a_run.cu").write_text('#include "k/kk.cuh"\n#error broken\n'
                                       "int main() { kk<<<1, 32>>>(0); }\n")
    with pytest.raises(BankismError, match="no launch of kk"):
        run(header)
    (tmp_path / "b_run.cu").write_text('#include "k/kk.cuh"\nint main() { kk<<<2, 32>>>(0); }\n')
    assert run(header)["launch"]["grid"] == [2, 1, 1]
