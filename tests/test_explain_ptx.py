"""explain on tensor-core kernels (issue 15): inline PTX, WMMA, cp.async pipelines, headers
found through -I. The kernels are in tests/data/explain; the H100 traces of the ldmatrix
HGEMM pair and of the WMMA kernel are in traces/ (see also test_explain_traces)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import bankism
from bankism.errors import BankismError
from bankism.explain import ExplainOptions, explain
from tests.test_explain_support import BASE, DATA, run

ROOT = Path(__file__).resolve().parent.parent
TRACES = ROOT / "traces"
INCLUDE = DATA / "include_only"


def counts(report: dict, line: int, op: str | None = None) -> list[tuple]:
    """(instructions, wavefronts, ideal, conflicts) of every site on ``line``."""
    return [(s["instructions"], s["wavefronts"], s["ideal"], s["conflicts"]) for s in report["sites"]
            if s["line"] == line and (op is None or s["op"] == op)]


# --- HGEMM with ldmatrix in inline PTX -------------------------------------------------------


@pytest.mark.parametrize(("permuted", "ldmatrix"), [("false", (64, 1024, 256, 768)),
                                                    ("true", (64, 256, 256, 0))])
def test_hgemm_ldmatrix_on_64_byte_rows_conflicts_and_the_permuted_layout_does_not(permuted, ldmatrix):
    report = run("hgemm_ldmatrix.cu", defines={"PERMUTED": permuted})
    assert counts(report, 43) == [(32, 128, 128, 0)]          # the STS.128 of the A tile
    assert counts(report, 44) == [(32, 128, 128, 0)]          # and of the B tile
    assert counts(report, 52, "ldmatrix") == [ldmatrix]       # A fragments: ldmatrix.x4
    assert counts(report, 58, "ldmatrix") == [ldmatrix]       # B fragments
    site = next(s for s in report["sites"] if s["line"] == 52)
    assert site["split"]["unit"] == "matrix" and site["width"] == 16
    assert site["expression"].startswith("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {a[mi][0], a[mi][1]")


def test_hgemm_ldmatrix_lane_addresses_are_the_row_addresses_the_source_computes():
    """Warp 0, first execution (mi = 0, kk = 0, k0 = 0): lane l gives row l % 16, chunk l / 16
    of the A tile; the engine, given those addresses here, counts what explain reports."""
    report = run("hgemm_ldmatrix.cu", defines={"PERMUTED": "false"})
    site = next(s for s in report["sites"] if s["line"] == 52)
    lanes = np.arange(32)
    expected = BASE + (lanes % 16) * 64 + (lanes // 16) * 16
    warp0 = next(w for w in site["warps"] if w["warp"] == 0)
    assert warp0["lane_addresses"] == expected.tolist()
    result = bankism.simulate(expected, width=16, op="ldmatrix", matrices=4)
    assert warp0["wavefronts"][0] == int(result.wavefronts[0]) == 16
    permuted = run("hgemm_ldmatrix.cu", defines={"PERMUTED": "true"})
    site = next(s for s in permuted["sites"] if s["line"] == 52)
    rows, chunks = lanes % 16, lanes // 16
    expected = BASE + rows * 64 + (chunks ^ ((rows >> 1) & 3)) * 16
    assert next(w for w in site["warps"] if w["warp"] == 0)["lane_addresses"] == expected.tolist()


@pytest.mark.parametrize("name", ["hgemm_ldmatrix.json", "hgemm_ldmatrix_permuted.json", "wmma_tiles.json",
                                  "ldmatrix_tile.json", "ldmatrix_tile_swizzled.json"])
def test_explain_trace_agrees_with_the_h100_on_every_line(name):
    trace = TRACES / name
    doc = json.loads(trace.read_text())
    source = ROOT / doc["program"]["source"]
    report = explain(source.read_text(), str(source), ExplainOptions(trace=str(trace)))
    lines = report["trace"]["lines"]
    assert lines and all(e["same_instructions"] and e["same_addresses"] for e in lines), [
        (e["line"], e["note"]) for e in lines if not e["same_addresses"]]
    totals = report["trace"]["totals"]
    for op_class in ("ld", "st"):
        for metric in ("instructions", "wavefronts", "conflicts"):
            measured = totals["measured"][op_class][metric]
            assert totals["source"][op_class][metric] == measured, (op_class, metric)


# --- WMMA ------------------------------------------------------------------------------------


def test_wmma_fragments_from_unpadded_tiles_conflict_and_from_padded_ones_do_not():
    report = run("wmma_tiles.cu")
    assert counts(report, 43) == [(2, 16, 8, 8)]    # matrix_a row-major from As: 32-byte rows, 2-way
    assert counts(report, 44) == [(2, 8, 8, 0)]     # matrix_a row-major from Ap: 48-byte rows
    assert counts(report, 45) == [(2, 8, 8, 0)]     # matrix_a col-major from Ap (LDSM .trans)
    assert counts(report, 46) == [(2, 16, 8, 8)]    # matrix_b col-major from Bs
    assert counts(report, 47) == [(2, 16, 8, 8)]    # matrix_b row-major from Bs (LDSM .trans)
    assert counts(report, 53) == [(8, 32, 16, 16)]  # float accumulator, row-major: 4 STS.64 per warp
    assert counts(report, 54) == [(8, 8, 8, 0)]     # half accumulator, col-major: 4 STS per warp
    assert counts(report, 56) == [(16, 64, 16, 48)]  # float accumulator loaded col-major: 8 LDS
    assert counts(report, 57) == [(16, 16, 16, 0)]  # stored col-major with ldm 20
    ops = {s["line"]: (s["op"], s["width"]) for s in report["sites"] if 43 <= s["line"] <= 57}
    assert ops == {43: ("ldmatrix", 16), 44: ("ldmatrix", 16), 45: ("ldmatrix", 16),
                   46: ("ldmatrix", 16), 47: ("ldmatrix", 16), 53: ("store", 8), 54: ("store", 4),
                   56: ("load", 4), 57: ("store", 4)}


LOAD = "wmma::load_matrix_sync(f, s, 16);"


@pytest.mark.parametrize(("declaration", "call", "words"), [
    ("wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::row_major> f;", LOAD, "WMMA shape m32n8k16"),
    ("wmma::fragment<wmma::matrix_a, 16, 16, 16, float, wmma::row_major> f;", LOAD, "WMMA matrix_a of float"),
    ("wmma::fragment<wmma::accumulator, 16, 16, 16, float> f;", "wmma::load_matrix_sync(f, s, 16);",
     "needs wmma::mem_row_major or mem_col_major"),
    ("wmma::fragment<wmma::accumulator, 16, 16, 16, float> f;",
     "wmma::store_matrix_sync(s + 1, f, 16, wmma::mem_row_major);", "misaligned"),
    ("wmma::fragment<wmma::accumulator, 16, 16, 16, float> f;",
     "wmma::store_matrix_sync(s, f, 16, wmma::mem_row_major);", "outside every __shared__ array"),
])
def test_wmma_that_cannot_be_modelled_is_a_one_line_error(tmp_path, declaration, call, words):
    source = tmp_path / "w.cu"
    source.write_text("#include <mma.h>\nusing namespace nvcuda;\n__global__ void k(float *o) {\n"
                      "  __shared__ __align__(128) float s[8 * 16];\n"
                      f"  {declaration}\n  {call}\n}}\nvoid r(float *o) {{ k<<<1, 32>>>(o); }}\n")
    with pytest.raises(BankismError) as caught:
        run(source)
    assert str(caught.value).startswith(f"{source}:6: ") and words in str(caught.value)


# --- cp.async pipeline --------------------------------------------------------------------


def test_cp_async_pipeline_copies_are_ldgsts_sites_per_call_site():
    report = run("cp_async_pipeline.cu")
    assert counts(report, 40) == [(192, 6144, 192, 5952)]    # the column read: 32-way
    copies = [s for s in report["sites"] if s["op"] == "ldgsts"]
    seen = [(c["line"], c["call_stack"][0]["line"], c["width"]) for c in copies]
    assert seen == [(18, 29, 16), (18, 35, 16), (20, 35, 16)]
    # 16-byte copies by quarter-warps of consecutive 16-byte chunks: 4 wavefronts per warp
    assert [(c["instructions"], c["wavefronts"], c["conflicts"]) for c in copies] == [
        (16, 64, 0), (24, 96, 0), (8, 32, 0)]
    assert copies[0]["warps"][0]["lane_addresses"] == [BASE + 16 * lane for lane in range(32)]
    assert "lower bound" in copies[0]["verdict"]


def test_cp_async_is_reported_unmodelled_where_the_architecture_has_no_ldgsts_model(monkeypatch):
    from bankism.explain.cuda import unmodelled

    monkeypatch.setattr(unmodelled, "OPS", tuple(op for op in unmodelled.OPS if op != "ldgsts"))
    report = run("cp_async_pipeline.cu")
    assert all(s["op"] in ("load", "store") for s in report["sites"])
    copies = report["unmodelled"]
    seen = [(c["line"], c["instructions"], c["bytes_per_lane"], c["call_stack"][0]["line"]) for c in copies]
    assert seen == [(18, 16, 16, 29), (18, 24, 16, 35), (20, 8, 16, 35)]
    assert all(c["note"] == "wavefronts not modelled yet" and c["op"] == "ldgsts" for c in copies)
    assert "wavefronts" not in copies[0]
    assert copies[0]["warps"][0]["lane_addresses"] == [BASE + 16 * lane for lane in range(32)]
    from bankism.explain import render

    text = render(report)
    assert "line 18 in issue, called from line 29: cp.async.cg.shared.global [dst], [src], 16" in text
    assert "wavefronts not modelled yet" in text


def test_cp_async_copies_carry_the_global_elements_and_src_size_zero_fills():
    report = run("cp_async_pipeline.cu", snapshot=(44, {}))
    cells = report["snapshot"]["arrays"]["buf"]["cells"]
    by_index = {tuple(c["index"]): c["source"] for c in cells}
    assert by_index[(0, 0, 0)] == "in[3072]"      # tile 3 went to stage 0
    assert by_index[(2, 0, 1)] == "in[5121]"      # tile 5 (src-size 8) to stage 2: first 8 bytes copied
    assert by_index[(2, 0, 2)] == "=0" and by_index[(2, 0, 3)] == "=0"   # the rest zero-filled


def test_the_text_report_names_each_copy_with_its_call_stack():
    from bankism.explain import render

    text = render(run("cp_async_pipeline.cu"))
    assert "line 18 in issue, called from line 29: ldgsts cp.async.cg.shared.global [dst], [src], 16" in text


# --- headers through -I ----------------------------------------------------------------------


def test_headers_found_only_through_include_dirs():
    source = INCLUDE / "src" / "transpose_inc.cu"
    with pytest.raises(BankismError, match="cannot evaluate the launch's block"):
        run(source)
    report = run(source, include_dirs=[str(INCLUDE / "include")])
    (array,) = report["shared_arrays"]
    assert array["shape"] == [32, 33]
    assert counts(report, 11) == [(32, 32, 32, 0)]
    unpadded = run(source, include_dirs=[str(INCLUDE / "include")], defines={"PAD": "0"})
    assert counts(unpadded, 11) == [(32, 1024, 32, 992)]


def test_a_quoted_include_is_not_searched_for_with_angle_brackets(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "k.h").write_text("#define N 7\n")
    (tmp_path / "k.h").write_text("#define N 3\n")
    source = tmp_path / "k.cu"
    body = "__global__ void k(float *o) { __shared__ float s[64]; s[threadIdx.x * N % 64] = 1; }\n" \
           "void r(float *o) { k<<<1, 32>>>(o); }\n"
    source.write_text('#include "k.h"\n' + body)
    quoted = run(source, include_dirs=[str(tmp_path / "inc")])
    source.write_text("#include <k.h>\n" + body)
    angled = run(source, include_dirs=[str(tmp_path / "inc")])
    assert quoted["sites"][0]["warps"][0]["lane_addresses"][1] == BASE + 4 * 3   # next to the file
    assert angled["sites"][0]["warps"][0]["lane_addresses"][1] == BASE + 4 * 7   # from -I only


def test_pre_include_and_undefine(tmp_path):
    header = tmp_path / "pre.h"
    header.write_text("#define STRIDE 2\n")
    source = tmp_path / "k.cu"
    source.write_text("#ifdef NARROW\n#define W 1\n#else\n#define W 4\n#endif\n"
                      "__global__ void k(float *o) {\n"
                      "  __shared__ float s[256]; s[threadIdx.x * STRIDE * W] = 1; }\n"
                      "void r(float *o) { k<<<1, 32>>>(o); }\n#define NARROW\n")
    report = run(source, pre_includes=[str(header)])
    assert report["sites"][0]["warps"][0]["lane_addresses"][1] == BASE + 4 * 8
    source.write_text("#define NARROW\n" + source.read_text())
    assert run(source, pre_includes=[str(header)])["sites"][0]["warps"][0]["lane_addresses"][1] == BASE + 8
    undefined = run(source, pre_includes=[str(header)], undefines=["NARROW"])
    assert undefined["sites"][0]["warps"][0]["lane_addresses"][1] == BASE + 32


@pytest.mark.parametrize(("options", "words"), [
    ({"include_dirs": ["/no/such/dir"]}, "-I /no/such/dir: no such directory"),
    ({"pre_includes": ["nope.h"]}, "-include nope.h: file not found"),
    ({"defines": {"PAD": "1"}, "undefines": ["PAD"]}, "-D PAD and -U PAD: give one of them"),
])
def test_bad_include_options_are_one_line_errors(options, words):
    with pytest.raises(BankismError) as caught:
        run(INCLUDE / "src" / "transpose_inc.cu", **options)
    assert words in str(caught.value) and "\n" not in str(caught.value)


def test_cli_include_options(tmp_path):
    from tests.helpers import run_cli

    source = INCLUDE / "src" / "transpose_inc.cu"
    good = run_cli("explain", source, "-I", INCLUDE / "include", "--json")
    assert good.returncode == 0, good.stderr
    assert json.loads(good.stdout)["shared_arrays"][0]["shape"] == [32, 33]
    bad = run_cli("explain", source, "-I", tmp_path / "none")
    assert bad.returncode == 2
    assert bad.stderr.startswith("error: -I ") and bad.stderr.count("\n") == 1
    assert "no such directory" in bad.stderr
    header = tmp_path / "pad.h"
    header.write_text("#define PAD 0\n")
    narrow = run_cli("explain", source, "-I", INCLUDE / "include", "-include", header, "--json")
    assert json.loads(narrow.stdout)["shared_arrays"][0]["shape"] == [32, 32]
