"""Refusals a fifth held-out scout of public kernels found (30 repositories, /work/scout5 outside the
repository), each fixed and checked here on a kernel of our own: a struct reached through its conversion
operator and indexed directly (the CUDA samples' SharedMemory<T>), `unsigned const &`, inline PTX that
only touches registers, the advice for a type argument a host template passes on, and a functor called
through a temporary (`Op()(a, b)`, `Op{}(a, b)`)."""

from __future__ import annotations

import numpy as np
import pytest

from bankism.errors import BankismError
from tests.test_explain_heldout import HELDOUT
from tests.test_explain_support import BASE, check_site, run, site


def test_a_struct_indexed_through_its_conversion_operator_is_the_pointer_it_converts_to():
    report = run(HELDOUT / "conversion_operator.cu")
    t = np.arange(128)
    # partial[t]: doubles from the start of dynamic shared memory, four warps
    check_site(site(report, 22, "raw_words", "store"),
               {w: (BASE + 8 * t[32 * w:32 * w + 32]).reshape(1, 32) for w in range(4)}, 8, "store")
    # tally[64 + 2t] (as unsigned, the same words): warp 0 only, stride 2 words: 2-way
    words = {0: (BASE + 4 * (64 + 2 * np.arange(32))).reshape(1, 32)}
    check_site(site(report, 29, "raw_words", "store"), words, 4, "store")
    check_site(site(report, 31, "raw_words", "load"), words, 4, "load")
    # the interleaved tree: 7 strides, the same lanes read partial[t] and partial[t + stride]
    loads = [s for s in report["sites"] if s["line"] == 25 and s["op"] == "load"]
    assert len(loads) == 2 and loads[0]["instructions"] == loads[1]["instructions"] == 23
    assert loads[0]["wavefronts"] == loads[1]["wavefronts"] == 39


def test_inline_ptx_on_registers_only_leaves_its_outputs_unknown_and_counts_the_rest():
    report = run(HELDOUT / "register_ptx.cu")
    lane = np.arange(32)
    rows = np.stack([BASE + 4 * (9 * lane + k) for k in range(8)])
    check_site(site(report, 25, "tile", "load"), {0: rows}, 4, "load")
    assert {s["line"] for s in report["sites"]} == {21, 25, 26}


def test_ptx_with_an_address_operand_that_explain_does_not_know_is_still_refused(tmp_path):
    path = tmp_path / "tex.cu"
    path.write_text((HELDOUT / "register_ptx.cu").read_text().replace(
        '"wmma.mma.sync.aligned.row.col.m16n16k16.f32.f16 "', '"suld.b.1d.v4.b32.trap "'))
    with pytest.raises(BankismError, match="PTX instruction suld.b.1d.v4.b32.trap is not known to explain"):
        run(path)


def test_a_host_templates_type_argument_asks_for_a_d(tmp_path):
    path = tmp_path / "host_template.cu"
    path.write_text(
        "template <typename T, int TILE> __global__ void tile_copy(T *out, const T *in) {\n"
        "    __shared__ T s[TILE][TILE + 1];\n"
        "    s[threadIdx.y][threadIdx.x] = in[threadIdx.y * TILE + threadIdx.x];\n"
        "    __syncthreads();\n"
        "    out[threadIdx.x * TILE + threadIdx.y] = s[threadIdx.x][threadIdx.y];\n"
        "}\n"
        "template <typename Elem> void run(Elem *out, const Elem *in) {\n"
        "    tile_copy<Elem, 32><<<dim3(1), dim3(32, 32)>>>(out, in);\n"
        "}\n")
    with pytest.raises(BankismError, match=r"template argument Elem is not a type bankism knows .*give "
                                           r"-D T=TYPE, e.g. -D T=float"):
        run(path)
    report = run(path, defines={"T": "float"})
    assert site(report, 5, "s", "load")["wavefronts"] == 32  # the padded tile read by columns


def test_a_functor_called_through_a_temporary_runs_its_call_operator():
    report = run(HELDOUT / "functor_temporary.cu")
    lane = np.arange(32)
    # Copy()(&tile[0][t], ...): one word per lane; copy_strided{2}(&tile[1][2t], ...): stride 2, 2-way
    check_site(site(report, 4, "tile", "store"), {0: (BASE + 4 * lane).reshape(1, 32)}, 4, "store")
    strided = site(report, 9, "tile", "store")
    check_site(strided, {0: (BASE + 4 * (64 + 2 * lane)).reshape(1, 32)}, 4, "store")
    assert strided["wavefronts"] == 2
