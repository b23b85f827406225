"""Constructs that kept public tensor-core kernels from explain (scout 6, /work/scout6 outside the
repository), each in a kernel of our own: a default template argument naming an earlier parameter, a
default member initializer of an array member, a local array of structs, a functional cast through a
type alias and ``__heq``."""

from __future__ import annotations

import numpy as np
import pytest

from bankism.errors import BankismError
from tests.test_explain_heldout import HELDOUT
from tests.test_explain_support import BASE, check_site, run, site


def test_each_construct_gives_the_stride_it_computes():
    report = run(HELDOUT / "scout6_constructs.cu", defines={"beta": "0"})
    wavefronts = {line: site(report, line, "s", "store")["wavefronts"] for line in (14, 16, 20, 22)}
    assert wavefronts == {14: 1, 16: 2, 20: 4, 22: 2}


def test_half_comparisons_follow_ieee(tmp_path):
    path = tmp_path / "cmp.cu"
    path.write_text(
        "#include <cuda_fp16.h>\n"
        "__global__ void k(float *out) {\n"
        "    __shared__ float s[512];\n"
        "    __half a = __float2half(1.f), b = __float2half(2.f);\n"
        "    int n = __hlt(a, b) + 2 * __hge(a, b) + 4 * __hne(a, b)\n"
        "            + 8 * __hbeq2(__half2(a, b), __half2(a, b));\n"
        "    s[threadIdx.x * n] = 1.f;\n"
        "}\n"
        "int main() { k<<<1, 32>>>(nullptr); }\n")
    lanes = np.arange(32)  # n = 1 (a < b) + 0 (a >= b) + 4 (a != b) + 8 (both halves equal) = 13
    check_site(site(run(path), 7, "s", "store"), {0: (BASE + 4 * 13 * lanes).reshape(1, 32)}, 4, "store")


def test_a_failure_without_a_node_names_the_statement_running(tmp_path):
    """It read `k.cu:?:` (scout 6): the line of the statement that was running is named instead."""
    path = tmp_path / "k.cu"
    path.write_text(
        "struct P { float *p; };\n"
        "__global__ void k(float *out) {\n"
        "    __shared__ float s[128];\n"
        "    P a;\n"
        "    float *q = a.p;\n"
        "    s[threadIdx.x] = q[0];\n"
        "}\n"
        "int main() { k<<<1, 32>>>(nullptr); }\n")
    with pytest.raises(BankismError, match=r"k\.cu:5: member p is used before it has a value"):
        run(path)


def test_an_unnamed_struct_or_union_declared_in_place_lays_out_its_members(tmp_path):
    """`__shared__ union { ... } u;` was refused as a union specifier (scout 6)."""
    path = tmp_path / "u.cu"
    path.write_text(
        "__global__ void k(unsigned *out) {\n"
        "    __shared__ union { unsigned a[64]; unsigned b[64]; } u;\n"
        "    __shared__ struct { unsigned a[64]; unsigned b[64]; } s;\n"
        "    u.a[threadIdx.x] = threadIdx.x;\n"
        "    s.b[threadIdx.x] = u.b[threadIdx.x];\n"
        "}\n"
        "int main() { k<<<1, 32>>>(nullptr); }\n")
    report = run(path)
    lane = np.arange(32)
    check_site(site(report, 5, "u", "load"), {0: (BASE + 4 * lane).reshape(1, 32)}, 4, "load")  # b over a
    check_site(site(report, 5, "s", "store"), {0: (BASE + 256 + 256 + 4 * lane).reshape(1, 32)}, 4, "store")


def test_a_static_member_function_called_through_its_type(tmp_path):
    """`L::off(r, k)` with L a type parameter or an alias was a call to an unknown function off()."""
    path = tmp_path / "k.cu"
    path.write_text(
        "struct RowMajor { __device__ static int off(int r, int k) { return r * 32 + k; } };\n"
        "int off(int r, int k);  // a free function of the same name is not the one called\n"
        "template <typename L>\n"
        "__global__ void k(float *out) {\n"
        "    __shared__ float s[32 * 32];\n"
        "    s[L::off(threadIdx.x, 0)] = 1.f;\n"
        "    using M = RowMajor;\n"
        "    s[M::off(0, threadIdx.x)] = 2.f;\n"
        "}\n"
        "int main() { k<RowMajor><<<1, 32>>>(nullptr); }\n")
    report = run(path)
    wavefronts = [site(report, line, "s", "store")["wavefronts"] for line in (6, 8)]
    assert wavefronts == [32, 1]


def test_overloads_told_apart_by_a_reference_to_array_parameter():
    """`mma(float (&c)[4], ...)` and `mma(uint32_t (&c)[2], ...)` tied: "several overloads match"."""
    report = run(HELDOUT / "array_reference_overloads.cu")
    assert site(report, 13, "s", "store")["wavefronts"] == 1


def test_a_member_alias_may_name_a_static_constant_declared_before_it(tmp_path):
    """`static constexpr int kBytes = B_; using Shape = Tile<kBytes>;` was "unknown name 'kBytes'"."""
    path = tmp_path / "k.cu"
    path.write_text(
        "template <int B> struct Tile { static constexpr int kRow = B / 4; };\n"
        "template <int B_> struct Layout {\n"
        "    static constexpr int kBytes = B_;\n"
        "    using Shape = Tile<kBytes>;\n"
        "    static constexpr int kStride = Shape::kRow;\n"
        "};\n"
        "__global__ void k(float *out) {\n"
        "    __shared__ float s[32 * 32];\n"
        "    s[threadIdx.x * Layout<128>::kStride] = 1.f;\n"
        "}\n"
        "int main() { k<<<1, 32>>>(nullptr); }\n")
    assert site(run(path), 9, "s", "store")["wavefronts"] == 32  # stride 32
