"""Kernels written the way public projects write them (tests/data/explain/styles): cooperative
groups, a SharedMemory<T> accessor struct, a training repository's common header, a
register-tiled SGEMM kept in a .cuh with a namespaced template helper, a helper called from
two call sites, kernel parameters nobody gave, and C++ features. Every site's per-warp
wavefronts, ideal and conflicts are checked against the engine run on addresses computed
here from the kernels' own index formulas."""

from __future__ import annotations

import numpy as np
import pytest

from bankism.errors import BankismError
from tests.test_explain_support import BASE, DATA, check_site, run

STYLES = DATA / "styles"


def _sites(report: dict, line: int, op: str, file_end: str | None = None) -> list[dict]:
    return [s for s in report["sites"] if s["line"] == line and s["op"] == op
            and (file_end is None or s["file"].endswith(file_end))]


def _one(report: dict, line: int, op: str, file_end: str | None = None) -> dict:
    found = _sites(report, line, op, file_end)
    assert len(found) == 1, [(s["file"], s["line"], s["op"]) for s in report["sites"]]
    return found[0]


def _rows(addresses: list[np.ndarray]) -> np.ndarray:
    return np.stack(addresses).astype(np.int64)


# --- cooperative groups and the SharedMemory<T> accessor ---------------------------------------


def test_cooperative_groups_reduction_through_a_shared_memory_accessor():
    report = run(STYLES / "cg_reduce.cu", kernel="blockReduce", grid=(64, 1, 1))
    assert report["launch"]["template"] == {"T": "double", "blockSize": 256}
    (array,) = report["shared_arrays"]
    assert (array["name"], array["dtype"], array["base_offset"], array["extern"]) == ("__smem_d", "double",
                                                                                      BASE, True)
    tid = np.arange(256)
    lane_block = tid.reshape(8, 32)
    check_site(
        _one(report, 38, "store"), {w: _rows([BASE + 8 * lane_block[w]]) for w in range(8)}, 8, "store"
    )
    executions: dict[int, list[np.ndarray]] = {}
    for s in (128, 64):
        for w in range(s // 32):
            executions.setdefault(w, []).append(BASE + 8 * (lane_block[w] + s))
    check_site(_one(report, 43, "load"), {w: _rows(a) for w, a in executions.items()}, 8, "load")
    stores = {
        w: _rows([a - 8 * s for a, s in zip(rows, (128, 64), strict=False)]) for w, rows in executions.items()
    }
    check_site(_one(report, 43, "store"), stores, 8, "store")
    check_site(_one(report, 50, "load"), {0: _rows([BASE + 8 * (lane_block[0] + 32)])}, 8, "load")


def test_the_primary_template_accessor_for_float():
    report = run(
        STYLES / "cg_reduce.cu",
        kernel="blockReduce",
        grid=(64, 1, 1),
        defines={"T": "float"},
        dynamic_shared=1024,
    )
    (array,) = report["shared_arrays"]
    assert (array["name"], array["dtype"]) == ("__smem", "int")
    lane_block = np.arange(256).reshape(8, 32)
    store = _one(report, 38, "store")
    assert store["dtype"] == "float"
    check_site(store, {w: _rows([BASE + 4 * lane_block[w]]) for w in range(8)}, 4, "store")


def test_tiles_meta_group_rank_and_cg_reduce():
    report = run(STYLES / "cg_reduce.cu", kernel="tileSums")
    lane0 = np.zeros(32, bool)
    lane0[0] = True
    stores = {w: _rows([np.full(32, BASE + 4 * w)]) for w in range(8)}
    check_site(_one(report, 65, "store"), stores, 4, "store", active={w: lane0[None] for w in range(8)})
    first8 = np.arange(32) < 8
    check_site(
        _one(report, 68, "load"), {0: _rows([BASE + 4 * np.arange(32)])}, 4, "load", active={0: first8[None]}
    )


def test_grid_sync_is_refused_only_when_it_runs():
    with pytest.raises(BankismError, match=r"grid_sync.cu:10: unsupported construct: grid-wide"):
        run(DATA / "unsupported" / "grid_sync.cu")


# --- a training repository's header ---------------------------------------------------------------


def test_common_header_struct_vector_accesses_and_broadcast():
    report = run(STYLES / "llm_kernels.cu", defines={"N": "64"})
    arrays = {a["name"]: a["base_offset"] for a in report["shared_arrays"]}
    assert arrays == {"warp_sums": BASE, "shared": BASE + 128}
    dyn = arrays["shared"]
    tid = np.arange(128).reshape(4, 32)
    check_site(_one(report, 15, "store"), {w: _rows([dyn + 16 * tid[w]]) for w in range(4)}, 16, "store")
    pairs = _one(report, 19, "load")
    check_site(pairs, {w: _rows([dyn + 8 * (2 * tid[w] + 1)]) for w in range(4)}, 8, "load")
    assert pairs["conflicts"] > 0
    lane0 = (np.arange(32) == 0)[None]
    check_site(
        _one(report, 25, "store"),
        {w: _rows([np.full(32, BASE + 4 * w)]) for w in range(4)},
        4,
        "store",
        active={w: lane0 for w in range(4)},
    )
    first4 = (np.arange(32) < 4)[None]
    check_site(
        _one(report, 27, "load"),
        {w: _rows([BASE + 4 * np.arange(32)]) for w in range(4)},
        4,
        "load",
        active={w: first4 for w in range(4)},
    )
    broadcast = _one(report, 28, "load")
    check_site(broadcast, {w: _rows([np.full(32, BASE)]) for w in range(4)}, 4, "load")
    assert broadcast["wavefronts"] == broadcast["ideal"] == 4


# --- a kernel in a header, with a namespaced template helper -----------------------------------------


def test_sgemm_in_a_header_with_namespaced_template_helper():
    report = run(
        STYLES / "sgemm_tiles.cu",
        defines={"CEIL_DIV(a,b)": "(((a)+(b)-1)/(b))", "M": "128", "N": "128", "K": "16"},
    )
    assert report["launch"]["template"] == {"BM": 64, "BN": 64, "BK": 8, "TM": 8, "TN": 8}
    a_base, b_base = BASE, BASE + 2048
    tid = np.arange(64).reshape(2, 32)
    for j, line in enumerate((12, 13, 14, 15)):
        site = _one(report, line, "store", "sgemm_tiles.cuh")
        assert site["source"].startswith(f"As[(innerColA * 4 + {j}) * BM")
        assert [
            (c["function"], c["line"], c["file"].endswith("sgemm_tiles.cuh")) for c in site["call_stack"]
        ] == [("loadFromGmem", 46, True)]
        expected = {
            w: _rows(
                [
                    a_base + 4 * ((tid[w] % 2 * 4 + j) * 64 + tid[w] // 2 + offset)
                    for _ in range(2)
                    for offset in (0, 32)
                ]
            )
            for w in range(2)
        }
        check_site(site, expected, 4, "store")
    expected = {
        w: _rows(
            [
                b_base + 4 * ((tid[w] // 16 + offset) * 64 + tid[w] % 16 * 4)
                for _ in range(2)
                for offset in (0, 4)
            ]
        )
        for w in range(2)
    }
    check_site(_one(report, 18, "store", "sgemm_tiles.cuh"), expected, 16, "store")
    loads_a = {
        w: _rows(
            [
                a_base + 4 * (d * 64 + tid[w] // 8 * 8 + i)
                for _ in range(2)
                for d in range(8)
                for i in range(8)
            ]
        )
        for w in range(2)
    }
    check_site(_one(report, 50, "load", "sgemm_tiles.cuh"), loads_a, 4, "load")
    loads_b = {
        w: _rows(
            [b_base + 4 * (d * 64 + tid[w] % 8 * 8 + i) for _ in range(2) for d in range(8) for i in range(8)]
        )
        for w in range(2)
    }
    check_site(_one(report, 51, "load", "sgemm_tiles.cuh"), loads_b, 4, "load")


def test_a_trip_count_that_needs_a_parameter_names_it():
    report = run(STYLES / "sgemm_tiles.cu", defines={"CEIL_DIV(a,b)": "(((a)+(b)-1)/(b))", "M": "128",
                                                     "N": "128"})
    assert any(u["line"] == 12 and "kernel parameter K (give -D K=VALUE)" in u["note"]
               for u in report["unmodelled"])


# --- helpers and call sites ----------------------------------------------------------------------


def test_one_helper_two_call_sites_two_sites():
    report = run(STYLES / "helpers.cu")
    padded, plain = BASE, BASE + 32 * 33 * 4
    found = _sites(report, 6, "load")
    stacks = {tuple((c["function"], c["line"]) for c in s["call_stack"]): s for s in found}
    assert set(stacks) == {(("ld_col", 10), ("sum_both", 21)), (("ld_col", 11), ("sum_both", 21))}
    tx = np.arange(32)
    clean = stacks[(("ld_col", 10), ("sum_both", 21))]
    check_site(clean, {w: _rows([padded + 4 * (tx * 33 + w)]) for w in range(8)}, 4, "load")
    conflicting = stacks[(("ld_col", 11), ("sum_both", 21))]
    check_site(conflicting, {w: _rows([plain + 4 * (tx * 32 + w)]) for w in range(8)}, 4, "load")
    assert clean["conflicts"] == 0 and conflicting["conflicts"] == 8 * 31


def test_text_report_names_the_call_stack():
    from bankism.explain import render

    text = render(run(STYLES / "helpers.cu"))
    assert "line 6 in ld_col, called from line 11 in sum_both, called from line 21: load" in text


# --- kernel parameters nobody gave ----------------------------------------------------------------


def test_parameters_that_only_touch_global_memory_need_no_value():
    report = run(STYLES / "unknown_sizes.cu", kernel="transposeTile", grid=(4, 4, 1))
    assert report["launch"]["parameters"] == {"width": None, "height": None}
    tx = np.arange(32)
    stores = {w: _rows([BASE + 4 * ((w + j) * 33 + tx) for j in (0, 8, 16, 24)]) for w in range(8)}
    check_site(_one(report, 11, "store"), stores, 4, "store")
    loads = {w: _rows([BASE + 4 * (tx * 33 + w + j) for j in (0, 8, 16, 24)]) for w in range(8)}
    check_site(_one(report, 16, "load"), loads, 4, "load")


def test_a_branch_that_decides_a_shared_access_names_the_parameter():
    guarded = run(STYLES / "unknown_sizes.cu", kernel="guardedCopy")
    why = "whether it runs depends on kernel parameter n (give -D n=VALUE)"
    assert any(u["line"] == 26 and why in u["note"] for u in guarded["unmodelled"])
    report = run(STYLES / "unknown_sizes.cu", kernel="guardedCopy", defines={"n": "100000"})
    lanes = np.arange(256).reshape(8, 32)
    check_site(_one(report, 26, "store"), {w: _rows([BASE + 4 * lanes[w]]) for w in range(8)}, 4, "store")
    check_site(
        _one(report, 27, "load"), {w: _rows([BASE + 4 * (255 - lanes[w])]) for w in range(8)}, 4, "load"
    )


# --- C++ features ---------------------------------------------------------------------------------


def test_cpp_features_kernel():
    report = run(STYLES / "cpp_features.cu")
    grid, wide = BASE, BASE + 32 * 33 * 4
    tx = np.arange(32)
    check_site(
        _one(report, 37, "store"), {w: _rows([grid + 4 * (w * 33 + tx)]) for w in range(8)}, 4, "store"
    )
    lam = _one(report, 26, "load")
    assert [(c["function"], c["line"]) for c in lam["call_stack"]] == [("operator()", 44), ("lambda", 46)]
    check_site(lam, {w: _rows([grid + 4 * (w * 33 + tx)]) for w in range(8)}, 4, "load")
    check_site(
        _one(report, 43, "store"), {w: _rows([wide + 8 * (tx * 3 % 64)]) for w in range(8)}, 8, "store"
    )
    check_site(_one(report, 48, "load"), {w: _rows([np.full(32, wide)]) for w in range(8)}, 8, "load")


def test_struct_array_in_shared_memory():
    report = run(STYLES / "struct_in_shared.cu")
    tx = np.arange(32)
    check_site(_one(report, 6, "store"), {0: _rows([BASE + 8 * tx])}, 4, "store")
    check_site(_one(report, 7, "load"), {0: _rows([BASE + 8 * tx])}, 4, "load")


def test_only_executed_code_is_refused_and_the_first_one_reported(tmp_path):
    source = tmp_path / "k.cu"
    source.write_text(
        "struct Odd { decltype(1) x; };\n"  # 1: never used
        "__device__ int never(int v) { switch (v) { default: return v; } }\n"  # 2: never called
        "__global__ void k(float *o) {\n"  # 3
        "  __shared__ float s[32];\n"  # 4
        '  if (threadIdx.x > 64) { asm("trap;"); }\n'  # 5: never runs
        "  again: s[threadIdx.x] = 1.0f;\n"  # 6
        "  if (threadIdx.x < 64) goto again;\n"  # 7: first to run (a backward goto)
        "  o[0] = s[0];\n"  # 8
        "}\n"
        "void run(float *o) { k<<<1, 32>>>(o); }\n"
    )
    with pytest.raises(BankismError, match=r"k.cu:7: unsupported construct: goto again jumps backwards"):
        run(source)


# --- reporting: files, FILE:LINE, assumptions -------------------------------------------------------


def _cli(*args: str):
    from typer.testing import CliRunner

    from bankism.cli import app

    return CliRunner().invoke(app, ["explain", *args])


SGEMM_DEFINES = ("-D", "CEIL_DIV(a,b)=(((a)+(b)-1)/(b))", "-D", "M=128", "-D", "N=128", "-D", "K=16")


def test_line_and_snapshot_take_file_colon_line():
    import json

    result = _cli(str(STYLES / "sgemm_tiles.cu"), *SGEMM_DEFINES, "--line", "sgemm_tiles.cuh:51",
                  "--snapshot", "sgemm_tiles.cuh:47", "--when", "bkIdx=8", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert [(s["file"].rsplit("/", 1)[-1], s["line"], s["op"]) for s in report["sites"]] == [
        ("sgemm_tiles.cuh", 51, "load")]
    assert report["sites"][0]["source"].startswith("for (uint i = 0; i < TN; ++i) regN[i] = Bs[")
    assert report["snapshot"]["line"] == 47 and report["snapshot"]["when"] == {"bkIdx": 8}
    missing = _cli(str(STYLES / "sgemm_tiles.cu"), *SGEMM_DEFINES, "--line", "sgemm_tiles.cu:51")
    assert isinstance(missing.exception, BankismError)
    assert "no shared-memory access ran on line 51 of sgemm_tiles.cu" in str(missing.exception)


def test_errors_in_a_header_name_the_header(tmp_path):
    (tmp_path / "kern.cuh").write_text(
        "__global__ void k(float *o) {\n  __shared__ float s[32];\n  s[threadIdx.x + 1] = 1.0f;\n"
        "  o[0] = s[0];\n}\n")
    (tmp_path / "main.cu").write_text('#include "kern.cuh"\nvoid run(float *o) { k<<<1, 32>>>(o); }\n')
    with pytest.raises(BankismError, match=r"kern.cuh:3: thread \(31,0,0\) accesses s at byte 128"):
        run(tmp_path / "main.cu")


def test_template_arguments_taken_from_the_first_launch_are_stated():
    report = run(DATA.parents[1].parent / "traces" / "kernels" / "accessor_struct.cu")
    assert report["launch"]["template"] == {"PITCH": 33}
    assert report["assumptions"] == [
        "template argument PITCH=33 taken from the first of the file's 2 launches of accessor_transpose "
        "(line 65); give -D PITCH=... for another"]
    given = run(DATA.parents[1].parent / "traces" / "kernels" / "accessor_struct.cu", defines={"PITCH": "32"})
    assert given["assumptions"] == []


# --- loops counted once -----------------------------------------------------------------------------


def _without_shortcut(monkeypatch, path, **options) -> dict:
    import bankism.explain.simt.repeat as repeat

    with monkeypatch.context() as patch:
        patch.setattr(repeat, "MIN_TRIPS", 10**9)
        return run(path, **options)


def _same_reports(fast: dict, slow: dict) -> None:
    fast, slow = dict(fast), dict(slow)
    fast.pop("assumptions")
    slow.pop("assumptions")
    assert fast == slow


def test_repeating_iterations_counted_once_give_the_same_report(monkeypatch):
    path = STYLES / "loops.cu"
    fast = run(path)
    _same_reports(fast, _without_shortcut(monkeypatch, path))
    notes = [n for n in fast["assumptions"] if "simulated once" in n]
    assert len(notes) == 2 and notes[0].startswith(f"{path}:10: the loop's iterations 4 to 64 make")
    # the double buffer repeats with a period of two iterations; the loop that changes once runs in full
    assert notes[1].startswith(f"{path}:17: the loop's iterations 5 to 64 make the shared-memory accesses of "
                               "iterations 3 and 4 in turn")
    tx = np.arange(32)
    stores = _one(fast, 11, "store")
    check_site(stores, {w: _rows([BASE + 4 * (w * 33 + tx)] * 64) for w in range(8)}, 4, "store")


def test_sgemm_block_with_the_shortcut_equals_the_full_run(monkeypatch):
    source = DATA.parents[1].parent / "traces" / "kernels" / "sgemm_regtile.cu"
    fast = run(source, defines={"n": "512"})
    assert any("iterations 4 to 64" in n for n in fast["assumptions"])
    _same_reports(fast, _without_shortcut(monkeypatch, source, defines={"n": "512"}))


def test_type_template_argument_deduced_from_the_launch(tmp_path):
    source = tmp_path / "ded.cu"
    source.write_text(
        "template <typename T>\n__global__ void scale(T *out, const T *in) {\n  __shared__ T buf[128];\n"
        "  buf[threadIdx.x] = in[threadIdx.x];\n  __syncthreads();\n"
        "  out[threadIdx.x] = buf[127 - threadIdx.x];\n"
        "}\nint main() {\n  double *d_out, *d_in;\n  scale<<<1, 128>>>(d_out, d_in);\n}\n"
    )
    report = run(source)
    assert report["launch"]["template"] == {"T": "double"}
    assert report["assumptions"] == [
        "template argument T=double deduced from the arguments of the launch on line 10"
    ]
    lanes = np.arange(128).reshape(4, 32)
    check_site(_one(report, 4, "store"), {w: _rows([BASE + 8 * lanes[w]]) for w in range(4)}, 8, "store")
    check_site(
        _one(report, 6, "load"), {w: _rows([BASE + 8 * (127 - lanes[w])]) for w in range(4)}, 8, "load"
    )


def test_texture_reference_reads_are_unknown_values():
    report = run(STYLES / "texture_ref.cu")
    lanes = np.arange(32)
    tx, ty = lanes % 16, lanes // 16
    stores = {w: _rows([BASE + 4 * ((2 * w + ty) * 17 + tx)]) for w in range(8)}
    check_site(_one(report, 7, "store"), stores, 4, "store")
    loads = {w: _rows([BASE + 4 * (tx * 17 + 2 * w + ty)]) for w in range(8)}
    check_site(_one(report, 9, "load"), loads, 4, "load")


def test_switch_with_fall_through_and_default():
    report = run(STYLES / "switch.cu")
    lane = np.arange(32)
    strides = {0: 32, 1: 33, 2: 33, 3: 2}
    stores = {w: _rows([BASE + 4 * (lane * strides[w] % (32 * 33))]) for w in range(4)}
    check_site(_one(report, 18, "store"), stores, 4, "store")
    assert [w["conflicts"] for w in _one(report, 18, "store")["warps"]] == [31, 0, 0, 1]


def test_bfloat16_data_through_shared_memory():
    report = run(STYLES / "bf16.cu")
    lanes = np.arange(64).reshape(2, 32)
    check_site(_one(report, 6, "store"), {w: _rows([BASE + 2 * lanes[w]]) for w in range(2)}, 2, "store")
    check_site(_one(report, 8, "load"), {w: _rows([BASE + 2 * (63 - lanes[w])]) for w in range(2)}, 2, "load")
