"""What explain does with inline PTX statement by statement, with switch and goto, and with
16- and 8-bit float types: small kernels written here, each checked against values and
addresses computed by hand."""

from __future__ import annotations

import pytest

from bankism.errors import BankismError
from tests.test_explain_support import BASE, not_counted, run

LAUNCH = "void r(float *o) { k<<<1, 32>>>(o); }\n"


def kernel(tmp_path, body: str, shared: str = "__shared__ __align__(16) unsigned int s[256];") -> object:
    source = tmp_path / "k.cu"
    source.write_text("#include <cstdint>\n__global__ void k(float *o) {\n"   # lines 1-2
                      f"  {shared}\n"                                          # line 3
                      "  const unsigned lane = threadIdx.x;\n"                 # line 4
                      "  const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(s));\n"  # 5
                      + body + "}\n" + LAUNCH)
    return source


def lanes(site: dict) -> list:
    return site["warps"][0]["lane_addresses"]


def test_st_and_ld_shared_vectors_with_a_guard_and_local_registers(tmp_path):
    source = kernel(tmp_path, (
        '  asm volatile("{ .reg .pred p; .reg .b32 t<2>; setp.lt.u32 p, %0, 16; mov.u32 t0, 7;"\n'     # 6
        '               "add.u32 t1, t0, %0; @p st.shared.v2.u32 [%1], {t0, t1}; }"\n'                # 7
        '               :: "r"(lane), "r"(base + lane * 8));\n'                                       # 8
        '  unsigned a, b; asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(a), "=r"(b)\n'      # 9
        '                              : "r"(base + 8 * (lane % 16)));\n'                             # 10
        "  o[lane] = s[b];\n"))                                                                        # 11
    report = run(source)
    store = next(s for s in report["sites"] if s["line"] == 6)
    assert store["op"] == "store" and store["width"] == 8
    assert lanes(store) == [BASE + 8 * i for i in range(16)] + [None] * 16
    load = next(s for s in report["sites"] if s["line"] == 9 and s["op"] == "load")
    assert load["width"] == 8 and lanes(load)[17] == BASE + 8
    read = next(s for s in report["sites"] if s["line"] == 11)
    assert lanes(read) == [BASE + 4 * (7 + i % 16) for i in range(32)]   # b = 7 + lane % 16, known


def test_in_out_operands_arithmetic_and_special_registers(tmp_path):
    source = kernel(tmp_path, (
        "  unsigned x = lane;\n"                                                              # 6
        '  asm("shl.b32 %0, %0, 2; add.u32 %0, %0, %1;" : "+r"(x) : "r"(base));\n'           # 7
        "  unsigned l;\n"                                                                     # 8
        '  asm("mov.u32 %0, %%laneid;" : "=r"(l));\n'                                         # 9
        '  asm volatile("st.shared.u32 [%0+4], %1;" :: "r"(x), "r"(l));\n'                    # 10
        '  asm volatile("atom.shared.add.u32 %0, [%1], 1;" : "=r"(l) : "r"(base));\n'          # 11
        "  o[lane] = 0;\n"))
    report = run(source, snapshot=(10, {}))
    store = next(s for s in report["sites"] if s["line"] == 10)
    assert lanes(store) == [BASE + 4 * i + 4 for i in range(32)]
    cells = report["snapshot"]["arrays"]["s"]["cells"]
    assert [c["source"] for c in cells[1:4]] == ["=0", "=1", "=2"]
    atomic = next(s for s in report["sites"] if s["line"] == 11)
    assert atomic["op"] == "atomic" and atomic["atomic_op"] == "add" and set(lanes(atomic)) == {BASE}


def test_instructions_without_shared_operands_do_nothing_and_their_results_are_unknown(tmp_path):
    source = kernel(tmp_path, (
        "  float d0 = 0, d1 = 0, d2 = 0, d3 = 0; unsigned a0 = 0, b0 = 0;\n"                # 6
        '  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%4,%4,%4}, '
        '{%5,%5}, {%0,%1,%2,%3};" : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "r"(a0), "r"(b0));\n'  # 7
        '  asm volatile("cp.async.commit_group; cp.async.wait_group 0; bar.sync 0; fence.proxy.async;");\n'
        "  s[(int)d0] = 1;\n"))                                                                    # 9
    entry = not_counted(run(source), 9)
    assert "inline PTX" in entry["note"]


@pytest.mark.parametrize(("statement", "line_words"), [
    ('asm volatile("tex.1d.v4.f32.s32 {%0,%0,%0,%0}, [t, {%1}];" : "=f"(f) : "r"(lane));',
     "PTX instruction tex.1d.v4.f32.s32 is not known to explain"),
    ('asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%0,%0,%0}, [%1];" : "=r"(u) : "l"(s));',
     "takes a shared-window address, not a generic pointer"),
    ('asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(u) : "r"(base + 4));',
     "16-byte access at shared byte 1028 is misaligned"),
    ('asm volatile("st.shared.u32 [%0], %1;" :: "r"(base + 1024 + lane * 4), "r"(lane));',
     "outside every __shared__ array"),
    ('asm volatile("bra.uni done; done:" ::);', "labels in inline PTX are not supported"),
    ('asm volatile("mov.u32 %0, %3;" : "=r"(u));', "%3 names no operand"),
    ('asm volatile("cvta.to.shared.u32 %0, %1;" : "=r"(u) : "r"(lane));',
     "needs a pointer to a __shared__ array"),
    ('asm volatile("ld.shared.u32 %0, [%1];" : "=r"(u) : "r"(u));', "the address depends on"),
])
def test_ptx_explain_cannot_model_is_a_one_line_error_at_its_line(tmp_path, statement, line_words):
    source = kernel(tmp_path, f"  float f; unsigned u;\n  {statement}\n  o[lane] = s[lane];\n")
    with pytest.raises(BankismError) as caught:
        run(source)
    message = str(caught.value)
    assert message.startswith(f"{source}:7: ") and line_words in message and "\n" not in message


def test_unknown_ptx_that_never_runs_is_no_error(tmp_path):
    source = kernel(tmp_path, '  if (lane > 64) asm volatile("trap;");\n  o[lane] = s[lane];\n')
    assert [s["line"] for s in run(source)["sites"]] == [7]


def test_bulk_copies_are_reported_unmodelled(tmp_path):
    source = kernel(tmp_path, (
        "  const float *g = o;\n"
        '  if (lane == 0) asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes '
        '[%0], [%1], 512, [%2];" :: "r"(base), "l"(g), "r"(base + 1016) : "memory");\n'))
    report = run(source)
    (entry,) = report["unmodelled"]
    assert entry["op"] == "bulk" and entry["bytes_per_lane"] == 512 and entry["line"] == 7
    assert entry["warps"][0]["lane_addresses"] == [BASE] + [None] * 31


# --- switch and goto -------------------------------------------------------------------------


SWITCH = """\
__global__ void k(float *out)
{
    __shared__ float s[64];
    for (int j = 0; j < 2; ++j) {
        switch (threadIdx.x % 4) {
        case 0: s[threadIdx.x] = 1.0f;
        case 1: s[threadIdx.x + 32] = 2.0f; break;
        case 2: if (j == 1) continue; s[threadIdx.x * 2] = 3.0f; break;
        default: s[63 - threadIdx.x] = 4.0f;
        }
        if (threadIdx.x < 8) goto skip;
        s[threadIdx.x] += 1.0f;
    skip:
        s[0] = 0.0f;
    }
    out[threadIdx.x] = s[threadIdx.x];
}
void run(float *o) { k<<<1, 32>>>(o); }
"""


def test_switch_falls_through_breaks_and_continues_the_loop_and_goto_skips(tmp_path):
    source = tmp_path / "s.cu"
    source.write_text(SWITCH)
    report = run(source)

    def active(line: int, op: str = "store") -> tuple[int, list[int]]:
        site = next(s for s in report["sites"] if s["line"] == line and s["op"] == op)
        return site["instructions"], [i for i, a in enumerate(lanes(site)) if a is not None]

    assert active(6) == (2, list(range(0, 32, 4)))                                  # case 0
    assert active(7) == (2, sorted(list(range(0, 32, 4)) + list(range(1, 32, 4))))  # 0 falls into 1
    assert active(8) == (1, list(range(2, 32, 4)))                                  # case 2, j = 0 only
    assert active(9) == (2, list(range(3, 32, 4)))                                  # default
    assert active(12, "load") == (2, list(range(8, 32)))                            # goto skips lanes < 8
    count, first = active(14)
    assert count == 2 and first == list(range(32))
    site = next(s for s in report["sites"] if s["line"] == 14)
    assert site["warps"][0]["executions"] == 2


# --- 16- and 8-bit floats ----------------------------------------------------------------------


def test_bf16_fp8_and_half2_values_are_rounded_like_the_device(tmp_path):
    source = tmp_path / "h.cu"
    source.write_text("""\
#include <cuda_bf16.h>
#include <cuda_fp8.h>
__global__ void k(const float *in, float *out)
{
    __shared__ __nv_bfloat16 b[64];
    __shared__ __nv_bfloat162 b2[32];
    __shared__ __nv_fp8_e4m3 f8[64];
    __shared__ half2 h2[32];
    b[threadIdx.x] = __float2bfloat16(in[threadIdx.x]);
    b[threadIdx.x + 32] = __float2bfloat16(1.00390625f);
    b2[threadIdx.x] = __floats2bfloat162_rn(1.0f, 3.0f);
    f8[threadIdx.x] = __nv_fp8_e4m3(0.3f);
    f8[threadIdx.x + 32] = __nv_fp8_e4m3(1000.0f);
    h2[threadIdx.x] = __hadd2(__float2half2_rn(1.5f), __half2half2(__float2half(0.25f)));
    out[threadIdx.x] = __bfloat162float(b[threadIdx.x + 32]) + float(f8[threadIdx.x]);
}
void run(const float *i, float *o) { k<<<1, 32>>>(i, o); }
""")
    report = run(source, snapshot=(15, {}))
    arrays = report["snapshot"]["arrays"]

    def cell(name: str, index: int) -> str:
        return arrays[name]["cells"][index]["source"]

    assert cell("b", 0) == "in[0]"          # provenance survives the conversion
    assert cell("b", 32) == "=1"            # 1 + 2^-8 rounds to even in bf16
    assert (cell("b2", 0), cell("b2", 1)) == ("=1", "=3")
    assert cell("f8", 0) == "=0.3125"       # e4m3: 3 mantissa bits
    assert cell("f8", 32) == "=448"         # saturates to the largest finite e4m3
    assert cell("h2", 0) == "=1.75"
    widths = {s["shared_array"]: s["width"] for s in report["sites"] if s["op"] == "store"}
    assert widths == {"b": 2, "b2": 4, "f8": 1, "h2": 4}


@pytest.mark.parametrize(("body", "words"), [
    ("  switch ((int)o[threadIdx.x]) { case 0: s[threadIdx.x] = 1; }\n",
     "the switch condition depends on values read from global memory (o)"),
    ("  int n = threadIdx.x; switch (1) { case n: s[0] = 1; }\n", "case label differs between threads"),
    ("  for (int i = 0; i < 2; ++i) { if (i) goto out; s[i] = 1; }\n out: s[1] = 2;\n",
     "goto out: its label is not later in the same loop body"),
    ("  wmma::fragment<wmma::accumulator, 16, 16, 16, float> f[2];\n"
     "  wmma::fill_fragment(f[threadIdx.x % 2], 0.0f);\n",
     "the index of an array of fragments differs between threads"),
    ("  wmma::fragment<wmma::accumulator, 16, 16, 16, float> f;\n  s[0] = f.y;\n",
     "member .y of a WMMA fragment"),
])
def test_control_flow_and_fragments_explain_cannot_model_are_one_line_errors(tmp_path, body, words):
    source = tmp_path / "e.cu"
    source.write_text("#include <mma.h>\nusing namespace nvcuda;\n__global__ void k(float *o) {\n"
                      "  __shared__ float s[64];\n" + body + "}\nvoid r(float *o) { k<<<1, 32>>>(o); }\n")
    with pytest.raises(BankismError) as caught:
        run(source)
    message = str(caught.value)
    assert message.startswith(f"{source}:") and words in message and "\n" not in message
