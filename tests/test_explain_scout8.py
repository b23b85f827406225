"""Constructs a held-out scout (scout 8: 131 public kernels of 37 repositories) met, each checked on a kernel
of our own (tests/data/explain/heldout/scout8_constructs.cu): PTX whose opcode runs into its operands' brace,
erff, __nvvm_get_smem_pointer, cg::this_thread(), function templates told apart by a parameter's type, a
member function of one element of an array of barriers, and an extern array without a size that only
listed accesses touch."""

from __future__ import annotations

import pytest

from bankism.errors import BankismError
from bankism.explain import ExplainOptions, explain
from tests.test_explain_support import DATA, listed, run, site

KERNELS = DATA / "heldout" / "scout8_constructs.cu"


def _counts(report: dict, line: int, array: str, op: str) -> tuple[int, int, int]:
    found = site(report, line, array, op)
    return found["instructions"], found["wavefronts"], found["conflicts"]


def test_ptx_without_a_space_before_its_operands_and_the_math_that_sets_strides():
    report = run(KERNELS, kernel="ptx_math")
    assert _counts(report, 15, "s", "load") == (1, 2, 0)  # ld.shared.v2.u32{...}: one LDS.64, 256 bytes
    assert _counts(report, 16, "s", "store") == (1, 2, 1)  # stride 2 words: 2-way
    assert _counts(report, 18, "s", "store") == (1, 8, 7)  # (int)(erff(1) * 10) = 8: 8-way
    assert _counts(report, 21, "s", "store") == (1, 4, 3)  # __nvvm_get_smem_pointer differences: stride 4
    assert _counts(report, 23, "s", "store") == (1, 1, 0)  # this_thread(): size 1, rank 0


def test_the_overload_whose_parameter_type_matches_the_argument_exactly_is_called():
    report = run(KERNELS, kernel="overloads")
    assert _counts(report, 31, "s", "load") == (1, 2, 1)  # step(T *, unsigned): stride 2, not 32
    assert not [s for s in report["sites"] if s["line"] == 30]


def test_a_member_function_of_an_element_of_an_array_of_barriers():
    """Regression: ``bars[stage].arrive_and_wait()`` read the barrier as a value (an internal error)."""
    report = run(KERNELS, kernel="barrier_array")
    assert _counts(report, 50, "s", "ldgsts") == (8, 8, 0)
    assert _counts(report, 53, "s", "load") == (4, 4, 0)


def test_an_extern_array_without_a_size_is_named_where_its_accesses_are_listed():
    """A store into a 0-byte extern array, under a bound nobody gave, is listed as not counted and the listing
    says the array has no size (it read as accesses into an array of no bytes); counted accesses refuse."""
    source = ("__global__ void k(int *data, int size) { extern __shared__ int shared[];\n"
              "  int *tail = shared + size;\n"
              "  for (int i = threadIdx.x; i < size; i += blockDim.x) tail[i] = data[i]; }\n")
    report = explain(source, "k.cu", ExplainOptions(grid=(1, 1, 1), block=(128, 1, 1)))
    assert listed(report, 3, "extern __shared__ array shared has no size: give --dynamic-smem BYTES")
    counted = source.replace("tail[i] = data[i]", "shared[threadIdx.x] = data[i]")
    counted = counted.replace("i < size", "i < 128")
    with pytest.raises(BankismError, match="k.cu:3: extern __shared__ array shared has no size"):
        explain(counted, "k.cu", ExplainOptions(grid=(1, 1, 1), block=(128, 1, 1)))


def test_a_toolkit_header_written_with_quotes_is_not_named_missing():
    source = ('#include "cuda_fp16.h"\n#include "mma.h"\n#include "tiles.cuh"\n'
              "__global__ void k(float *o) { __shared__ float s[32]; s[threadIdx.x] = 1; o[0] = s[0]; }\n")
    words = r'no __global__ function named nope; it defines k; #include "tiles.cuh" not found'
    with pytest.raises(BankismError, match=words):
        explain(source, "k.cu", ExplainOptions(kernel="nope", block=(32, 1, 1)))


def test_a_wgmma_step_runs_with_its_descriptor_and_says_what_it_does_not_count():
    """A generic address of shared memory turned into an integer (a wgmma descriptor) is an unknown value, a
    `.reg.pred` declared without a space is read, and wgmma.mma_async's operand reads are named as not
    counted; the threads' own stores of the tile are counted (nvcc 13.0, sm_90a: STS.U16, one HGMMA)."""
    report = run(DATA / "heldout" / "wgmma_descriptor.cu")
    assert _counts(report, 17, "tile", "store") == (16, 16, 0)  # 512 halves by 128 threads: 4 per warp
    assert any("wgmma.mma_async reads its shared-memory operands through matrix descriptors" in note
               for note in report["assumptions"])


def test_a_generic_shared_address_used_as_an_index_is_listed_not_counted():
    source = ("#include <cstdint>\n__global__ void k(float *o) { __shared__ float s[64];\n"
              "  uint64_t a = reinterpret_cast<uint64_t>(&s[threadIdx.x]);\n"
              "  s[(a >> 2) % 64] = 1.f; o[threadIdx.x] = s[threadIdx.x]; }\n")
    report = explain(source, "k.cu", ExplainOptions(grid=(1, 1, 1), block=(32, 1, 1)))
    assert listed(report, 4, "the generic address of shared memory (s)")["instructions"] == 1


def test_a_specialization_for_a_type_explain_does_not_know_is_passed_over():
    """Regression (scout 5 after partial specializations landed): `Tile<wmma::precision::tf32>` among the full
    specializations refused every use of Tile with 'unknown name tf32'."""
    source = ("#include <mma.h>\ntemplate <typename T> struct Tile { static const int K = 16; };\n"
              "template <> struct Tile<nvcuda::wmma::precision::tf32> { static const int K = 8; };\n"
              "template <> struct Tile<float> { static const int K = 4; };\n"
              "__global__ void k(float *o) { __shared__ float s[256];\n"
              "  s[threadIdx.x * Tile<float>::K] = 1.f; o[threadIdx.x] = s[threadIdx.x]; }\n")
    report = explain(source, "k.cu", ExplainOptions(grid=(1, 1, 1), block=(32, 1, 1)))
    assert _counts(report, 6, "s", "store") == (1, 4, 3)  # stride 4 words: 4-way
