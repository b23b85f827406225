"""Constructs that kept public tensor-core kernels from explain (scout 6, /work/scout6 outside the
repository), each in a kernel of our own: a default template argument naming an earlier parameter, a
default member initializer of an array member, a local array of structs, a functional cast through a
type alias and ``__heq``."""

from __future__ import annotations

import numpy as np

from tests.test_explain_heldout import HELDOUT
from tests.test_explain_support import BASE, check_site, run, site


def test_each_construct_gives_the_stride_it_computes():
    report = run(HELDOUT / "scout6_constructs.cu", defines={"beta": "0"})
    wavefronts = {line: site(report, line, "s", "store")["wavefronts"] for line in (14, 16, 20, 22)}
    assert wavefronts == {14: 1, 16: 1, 20: 4, 22: 2}


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
