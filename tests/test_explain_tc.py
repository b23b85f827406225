"""explain on the tensor-core and synchronisation constructs of issue 19: the WMMA shapes
besides m16n16k16 (traces/kernels/wmma_shapes.cu, traced on the H100), arrays of fragments
and fragments typed by template parameters, "n" asm operands, cuda::memcpy_async /
cooperative_groups::memcpy_async / __pipeline_memcpy_async with cuda::pipeline and
cuda::barrier (traces/kernels/memcpy_async_tiles.cu, traced on the H100), and a split
__syncthreads(). Every expected count is worked out in the comment beside it (banks of the
lanes' addresses), not taken from the tool."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bankism.analyze import TOLERANCE
from bankism.analyze.verdict import conflicts_agree
from bankism.errors import BankismError
from bankism.explain import ExplainOptions, explain
from tests.test_explain_ptx import counts
from tests.test_explain_support import BASE, run

ROOT = Path(__file__).resolve().parent.parent
TRACES = ROOT / "traces"
KERNELS = TRACES / "kernels"
TC = "tc_constructs.cu"


# --- the WMMA shapes ------------------------------------------------------------------------

#: line: (warp-instructions, wavefronts, ideal, conflicts) for the 2 warps of wmma_shapes.cu.
WMMA_SHAPES = {
    # m32n8k16 half: matrix_a row-major, 2 LDSM.x4 per warp from 32-byte rows: the 8 rows of a
    # matrix fall on 2 groups of 4 banks (rows i, i+4 collide): 8 wavefronts per x4
    59: (4, 32, 16, 16),
    60: (4, 64, 16, 48),   # a col-major, 64-byte rows: rows i, i+2, i+4, i+6 collide, 4-way
    61: (2, 16, 4, 12),    # b row-major: one LDSM.x2 (64-byte rows, 4-way)
    62: (2, 4, 4, 0),      # b col-major, 48-byte rows: 12i words, 8 distinct 4-bank groups
    65: (8, 32, 16, 16),   # float accumulator row-major, 4 STS.64: 48-byte rows 0 and 3 share banks 4-7
    67: (16, 16, 16, 0),   # col-major, 8 STS: word (2t + k) * 36 + g -> bank 8t + g (+ 4k)
    # m8n32k16 half = the transpose of m32n8k16 (same instructions with a/b and layouts swapped)
    75: (2, 4, 4, 0),      # a row-major = m32n8 b col-major, 48-byte rows
    76: (2, 8, 4, 4),      # a col-major = m32n8 b row-major, 32-byte rows: 2-way
    77: (4, 32, 16, 16),   # b row-major = m32n8 a col-major, 32-byte rows
    78: (4, 32, 16, 16),   # b col-major = m32n8 a row-major
    81: (8, 8, 8, 0),      # half accumulator row-major (= m32n8 col-major): 4 STS, word 20g + t + 4i
    82: (8, 16, 8, 8),     # col-major into 16-half rows: word 8(g + 8i) + t: g, g+4 collide
    84: (8, 16, 8, 8),     # loaded back col-major: the same addresses
    86: (8, 8, 8, 0),
    # bf16 m16n16k16: 4 generic 32-bit LD per warp at (g + 8i, c + 8j) of the stored tile
    94: (8, 8, 8, 0),      # 48-byte rows: bank 12g + t (+4j) all distinct
    95: (8, 8, 8, 0),
    96: (8, 8, 8, 0),
    97: (8, 16, 8, 8),     # 32-byte rows: bank 8g + t, g and g+4 collide
    101: (8, 32, 16, 16),  # float accumulator row-major (LDS path), 64-byte rows: rows g, g+2 collide
    # tf32 m16n16k8: 4 generic LD per warp
    109: (8, 32, 8, 24),   # a row-major (g + 8i, t + 4j), 64-byte rows: bank 16g + t, 4-way
    110: (8, 16, 8, 8),    # a col-major (t + 4j, g + 8i): bank 16t + g, t and t+2 collide
    111: (8, 16, 8, 8),    # b row-major: as a col-major
    112: (8, 16, 8, 8),    # b col-major (g + 8i, t + 4j) with ldm 8: bank 8g + t, 2-way
    115: (8, 32, 16, 16),  # float accumulator row-major: 4 ST.E.64, 80-byte rows 0 and 3 collide
    117: (16, 16, 16, 0),  # col-major: 8 LD.E, bank 8t + g (+20k + 8i)
    119: (16, 16, 16, 0),
    # double m8n8k4: one LD.E.64 per warp for a and b
    127: (2, 8, 4, 4),     # a row-major (g, t), 64-byte rows: lanes 0-15 rows 0-3, rows 0 and 2 collide
    128: (2, 8, 4, 4),     # a col-major (t, g): 2-way the same way
    129: (2, 8, 4, 4),
    130: (2, 4, 4, 0),     # b col-major (g, t) with ldm 4: 32-byte rows, conflict-free
    133: (2, 16, 8, 8),    # accumulator row-major: one 16-byte ST.E.128 at (g, 2t): word 20g + 4t
    135: (4, 8, 8, 0),     # col-major: 2 LD.E.64 at (2t + k, g): bank 8t + 20k + 2g
    137: (4, 8, 8, 0),
}


def test_every_wmma_shape_counts_as_its_instructions_do():
    report = run(KERNELS / "wmma_shapes.cu")
    for line, expected in WMMA_SHAPES.items():
        assert counts(report, line) == [expected], line


def test_wmma_shapes_use_ldmatrix_for_half_and_generic_loads_for_bf16_tf32_and_double():
    report = run(KERNELS / "wmma_shapes.cu")
    sites = {s["line"]: s for s in report["sites"] if s["line"] in WMMA_SHAPES}
    assert {line for line, s in sites.items() if s["op"] == "ldmatrix"} == {59, 60, 61, 62, 75, 76, 77, 78}
    assert [sites[line]["matrices"] for line in (59, 61, 75, 77)] == [4, 2, 2, 4]
    generic = {line for line, s in sites.items() if s["sass"] and "generic" in s["sass"]}
    assert generic == {94, 95, 96, 97, 109, 110, 111, 112, 115, 117, 119, 127, 128, 129, 130, 133, 135, 137}
    assert sites[133]["width"] == 16 and sites[127]["width"] == 8 and sites[101]["sass"] is None


def test_m32n8k16_matrix_a_lanes_are_row_addresses_down_the_tile():
    report = run(KERNELS / "wmma_shapes.cu")
    (site,) = [s for s in report["sites"] if s["line"] == 59]
    ha = next(a for a in report["shared_arrays"] if a["name"] == "Ha")["base_offset"]
    warp0 = next(w for w in site["warps"] if w["warp"] == 0)
    # LDSM.x4 down the 32-byte rows: lane l -> row l % 16, column 8 (l / 16); the second x4 16 rows on
    assert warp0["lane_addresses"] == [ha + (lane % 16) * 32 + (lane // 16) * 16 for lane in range(32)]


GENERIC_LINES = {94, 95, 96, 97, 109, 110, 111, 112, 115, 117, 119, 127, 128, 129, 130, 133, 135, 137}


def _trace_report(name: str) -> dict:
    trace = TRACES / name
    doc = json.loads(trace.read_text())
    source = ROOT / doc["program"]["source"]
    return explain(source.read_text(), str(source), ExplainOptions(trace=str(trace)))


def test_memcpy_async_tiles_agrees_with_the_h100_on_every_line():
    report = _trace_report("memcpy_async_tiles.json")
    lines = report["trace"]["lines"]
    assert lines and all(e["same_instructions"] and e["same_addresses"] for e in lines), [
        (e["line"], e["note"]) for e in lines if not (e["same_instructions"] and e["same_addresses"])]
    totals = report["trace"]["totals"]
    for metric in ("instructions", "wavefronts", "conflicts"):
        assert totals["source"]["ld"][metric] == totals["measured"]["ld"][metric], metric
    for metric in ("instructions", "wavefronts"):  # ncu's ldgsts conflicts vary between runs (16, 14)
        assert totals["source"]["ldgsts"][metric] == totals["measured"]["ldgsts"][metric], metric


def test_wmma_shapes_agree_with_the_h100():
    """Every line is compiled as written (recorded addresses = interpreted ones): the LDSM/LDS/STS of half
    fragments and the generic LD/ST (LD.E, .64; ST.E, .64, .128) of bf16, tf32 and double fragments, which
    the tracer records on their shared addresses and the engine simulates as LDS/STS of their width. ncu
    counts them as shared loads and stores: the launch totals agree."""
    report = _trace_report("wmma_shapes.json")
    lines = report["trace"]["lines"]
    assert all(e["sass"] for e in lines)
    assert all(e["same_instructions"] and e["same_addresses"] for e in lines), [
        (e["line"], e["note"]) for e in lines if not (e["same_instructions"] and e["same_addresses"])]
    generic = {e["line"] for e in lines if any(s["sass"].split(".")[0] in ("LD", "ST") for s in e["sass"])}
    assert generic == GENERIC_LINES
    totals = report["trace"]["totals"]
    for op_class in ("ld", "st"):
        source, measured = totals["source"][op_class], totals["measured"][op_class]
        assert source["instructions"] == measured["instructions"], op_class
        assert TOLERANCE["wavefronts"].admits(measured["wavefronts"], source["wavefronts"]), op_class
        assert conflicts_agree(measured["conflicts"] - source["conflicts"],
                               measured["wavefronts"] - source["wavefronts"]), op_class
    assert totals["source"]["st"] == {k: totals["measured"]["st"][k] for k in totals["source"]["st"]}


# --- fragments typed by template parameters, arrays of fragments -----------------------------


def test_arrays_of_fragments_typed_by_template_parameters():
    report = run(TC, kernel="fragment_arrays")
    assert counts(report, 61) == [(2, 8, 8, 0)]     # a[0], a[1]: LDSM.x4 from 48-byte rows
    assert counts(report, 62) == [(1, 4, 4, 0)]     # b
    assert counts(report, 70) == [(4, 16, 8, 8)]    # STS.64 into 80-byte rows: rows 0 and 3 share banks 0-3
    assert counts(report, 71) == [(8, 8, 8, 0)]     # col-major: bank 8t + g (+20k)
    assert report["launch"]["template"] == {"M": 16, "T": "__half", "Layout": "row_major"}


def test_an_array_of_fragments_indexed_in_a_helper_that_only_some_warps_run():
    """Two pipelines of warps (leimao's double-buffered WMMA GEMM): only the running threads'
    loop counter says which fragment (the other pipeline's threads hold other values)."""
    report = run(TC, kernel="pipelines")
    sites = [s for s in report["sites"] if s["line"] == 141]
    assert [sorted(w["warp"] for w in s["warps"]) for s in sites] == [[0, 1], [2, 3]]
    # 2 LDSM.x4 per warp from 48-byte rows: rows start at words 12r, 8 disjoint 4-bank groups
    assert [(s["instructions"], s["wavefronts"], s["ideal"], s["conflicts"]) for s in sites] == [
        (4, 16, 16, 0), (4, 16, 16, 0)]
    tiles = next(a for a in report["shared_arrays"] if a["name"] == "tiles")["base_offset"]
    for s, buffer in zip(sites, (0, 1), strict=True):
        first = next(w for w in s["warps"] if w["warp"] == 2 * buffer)
        assert first["lane_addresses"] == [tiles + buffer * 32 * 24 * 2 + (lane % 16) * 48 + (lane // 16) * 16
                                           for lane in range(32)]


def test_fragment_elements_and_an_unexecuted_int8_fragment_cost_nothing(tmp_path):
    source = tmp_path / "x.cu"
    source.write_text(
        "#include <mma.h>\nusing namespace nvcuda;\n"
        "template <bool USE_INT8> __global__ void k(float *o) {\n"
        "  __shared__ __align__(128) float s[16 * 16];\n"
        "  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;\n"
        "  wmma::fill_fragment(acc, 1.0f);\n"
        "  if (USE_INT8) {\n"
        "    __shared__ signed char b[256];\n"
        "    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> f;\n"
        "    wmma::load_matrix_sync(f, b, 16);\n"
        "  }\n"
        "  float first = acc.x[0];\n"
        "  for (int t = 0; t < acc.num_elements; t++) acc.x[t] = first * 3.0f;\n"
        "  wmma::store_matrix_sync(s, acc, 16, wmma::mem_row_major);\n"
        "  o[threadIdx.x] = s[threadIdx.x * acc.num_elements];\n"   # num_elements = 8: stride 8 words
        "}\nvoid r(float *o) { k<false><<<1, 32>>>(o); }\n")
    report = explain(source.read_text(), str(source), ExplainOptions())
    assert counts(report, 15) == [(1, 8, 1, 7)]     # words 8l: banks 0, 8, 16, 24 with 8 words each: 8-way
    with pytest.raises(BankismError, match="WMMA fragment matrix_a m16n16k16 of signed char"):
        explain(source.read_text(), str(source), ExplainOptions(defines={"USE_INT8": "true"}))


# --- "n" operands ----------------------------------------------------------------------------


def test_an_n_operand_from_a_template_constant_is_the_cp_async_size():
    report = run(TC, kernel="n_operand")
    (site,) = report["sites"]
    assert (site["line"], site["call_stack"][0]["line"], site["op"], site["width"]) == (17, 32, "ldgsts", 16)
    # 8 threads per 128-byte row, 16 bytes each: each quarter-warp writes one row: 4 wavefronts per warp
    assert (site["instructions"], site["wavefronts"], site["conflicts"]) == (2, 8, 0)
    tile = report["shared_arrays"][0]["base_offset"]
    assert site["warps"][0]["lane_addresses"] == [tile + 16 * lane for lane in range(32)]


def test_an_n_operand_that_is_not_a_constant_is_refused(tmp_path):
    source = tmp_path / "n.cu"
    source.write_text("__global__ void k(const float *g, int n) {\n  __shared__ float s[128];\n"
                      "  unsigned d = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x * 4]);\n"
                      "  asm volatile(\"cp.async.ca.shared.global [%0], [%1], %2;\"\n"
                      "               :: \"r\"(d), \"l\"(g), \"n\"(n));\n"
                      "}\nvoid r(const float *g, int n) { k<<<1, 32>>>(g, n); }\n")
    with pytest.raises(BankismError, match=":5: \"n\" asm operand must be a constant"):
        explain(source.read_text(), str(source), ExplainOptions())


# --- asynchronous copies ------------------------------------------------------------------------


def test_cpp_async_copies_are_the_ldgsts_nvcc_emits():
    report = run(KERNELS / "memcpy_async_tiles.cu")
    ldgsts = {s["line"]: (s["width"], s["instructions"], s["wavefronts"], s["ideal"], s["conflicts"])
              for s in report["sites"] if s["op"] == "ldgsts"}
    assert ldgsts == {
        40: (16, 4, 16, 16, 0),   # aligned_size_t<16>: one 16-byte copy per thread, 512 contiguous bytes
        41: (4, 4, 16, 4, 12),    # sizeof(float) into T[(t % 32) * 4 + t / 32]: banks 4l % 32, 4-way
        46: (4, 16, 16, 16, 0),   # cg::memcpy_async of 512 floats by 128 threads: 4 rounds of 4 bytes
        49: (8, 4, 8, 8, 0),      # __pipeline_memcpy_async 8 bytes
        53: (8, 4, 8, 8, 0),      # with a cuda::barrier and aligned_size_t<8>
    }
    (bulk,) = report["unmodelled"]  # aligned_size_t<16> with a barrier: a bulk copy per thread (UBLKCP)
    assert (bulk["line"], bulk["op"], bulk["bytes_per_lane"], bulk["instructions"]) == (54, "bulk", 16, 4)


def test_barriers_swapped_through_pointers_and_a_copy_helper_taking_the_barrier():
    report = run(TC, kernel="barrier_swap")
    copies = [(s["call_stack"][0]["line"], s["instructions"], s["wavefronts"]) for s in report["sites"]
              if s["op"] == "ldgsts"]
    # 256 floats by 128 threads: 2 copies per thread per call; the loop runs for k = 256 and 512
    assert copies == [(97, 8, 8), (100, 16, 16)]
    assert counts(report, 102) == [(8, 16, 8, 8)]   # word 2l % 256: lanes l and l+16 share a bank
    names = [(a["name"], a["base_offset"], a["size_bytes"]) for a in report["shared_arrays"]]
    assert names[:3] == [("front_bar", BASE, 8), ("back_bar", BASE + 8, 8), ("buf", BASE + 16, 2048)]


def test_a_shared_pipeline_state_and_a_tile_copy():
    report = run(TC, kernel="shared_pipeline")
    names = {a["name"]: (a["base_offset"], a["size_bytes"]) for a in report["shared_arrays"]}
    # pipeline_shared_state<block, 2> is 40 bytes (8 + 16 per stage, nvcc 13.0), float4 arrays 16-aligned
    assert names == {"state": (BASE, 40), "stage": (BASE + 48, 4096), "per_tile": (BASE + 48 + 4096, 2560)}
    assert counts(report, 124) == [(8, 32, 32, 0)]  # 2 stages x 4 warps, 16 bytes per thread, contiguous
    (tile_copy,) = [s for s in report["sites"] if s["line"] == 128]
    # 40 float4 per tile of 32: a round of elements 0-31 (4 contiguous quarter-warps), then a round in
    # which thread r copies element 32 + min(r, 7): lanes 0-7 one 128-byte line (1 wavefront), lanes
    # 8-31 all element 39, which cp.async serialises (8 per quarter-warp, docs/rules.md): 25
    assert tile_copy["warps"][0]["wavefronts"] == [4, 25]
    assert tile_copy["warps"][0]["lane_addresses"] == [names["per_tile"][0] + 16 * lane for lane in range(32)]


def test_a_two_byte_cooperative_groups_copy_is_refused_with_the_reason(tmp_path):
    source = tmp_path / "c.cu"
    source.write_text("#include <cooperative_groups.h>\n#include <cuda_fp16.h>\n"
                      "namespace cg = cooperative_groups;\n"
                      "__global__ void k(const half *g) {\n  __shared__ half s[256];\n"
                      "  auto b = cg::this_thread_block();\n"
                      "  cg::memcpy_async(b, s, g, sizeof(half) * 256);\n"
                      "  cg::wait(b);\n}\nvoid r(const half *g) { k<<<1, 64>>>(g); }\n")
    with pytest.raises(BankismError, match=r":7: unsupported construct: cooperative_groups::memcpy_async "
                                           r"with 2-byte alignment"):
        explain(source.read_text(), str(source), ExplainOptions())


# --- __syncthreads() reached by different code paths -----------------------------------------


def test_a_split_barrier_runs_both_halves_phase_by_phase():
    report = run("split_barrier.cu")
    loads = {s["call_stack"][0]["line"]: (s["instructions"], s["wavefronts"], s["ideal"])
             for s in report["sites"] if s["op"] == "load"}
    # sum_column: 8 reads of words (r % 8) * 8 + k: rows r and r + 4 share banks, 2-way; two tile
    # steps (K = 256, 128 per step) -> 16 reads per warp, 2 warps per half
    assert loads == {33: (32, 64, 32), 35: (32, 64, 32), 42: (32, 64, 32), 44: (32, 64, 32)}
    stores = {s["call_stack"][0]["line"]: s["instructions"] for s in report["sites"] if s["op"] == "store"}
    assert stores == {29: 2, 38: 2, 40: 4}   # line 38 only while k + 128 < 256


def test_a_barrier_only_one_branch_reaches_is_still_refused(tmp_path):
    source = tmp_path / "b.cu"
    source.write_text("__global__ void k(float *o) {\n  __shared__ float s[64];\n"
                      "  if (threadIdx.x < 32) {\n    s[threadIdx.x] = 1.0f;\n    __syncthreads();\n"
                      "  } else {\n    s[threadIdx.x] = 2.0f;\n  }\n"
                      "  o[threadIdx.x] = s[63 - threadIdx.x];\n}\n"
                      "void r(float *o) { k<<<1, 64>>>(o); }\n")
    with pytest.raises(BankismError, match=":5: __syncthreads\\(\\) reached by only part of the block"):
        explain(source.read_text(), str(source), ExplainOptions())


def test_the_launch_dynamic_size_may_use_sizeof_of_a_half(tmp_path):
    """``sizeof(half)`` parses as sizeof of a parenthesized name: the host evaluator reads it as the
    type (HGEMMs size their dynamic shared memory so)."""
    source = tmp_path / "h.cu"
    source.write_text("#include <cuda_fp16.h>\n"
                      "__global__ void k(const half *a) { extern __shared__ half smem[];\n"
                      "  smem[threadIdx.x * 40] = a[threadIdx.x]; }\n"
                      "void run(const half *a, int algo) {\n  if (algo == 1) {\n"
                      "    const int BM = 32, BK = 32;\n"
                      "    unsigned int dsmem = BM * (BK + 8) * sizeof(half);\n"
                      "    k<<<1, 32, dsmem>>>(a);\n  }\n}\n")
    report = explain(source.read_text(), str(source), ExplainOptions())
    assert report["launch"]["dynamic_shared_bytes"] == 32 * 40 * 2
    # lane l writes half 40 l: word 20 l, bank 20 l % 32: lanes l and l + 8 collide (160 = 5 * 32), 4-way
    assert counts(report, 3) == [(1, 4, 1, 3)]
