"""Reach of explain on public kernels (issue 19, reach-misc): per-thread arrays read back as
other types, references to arrays, pre-CUDA-9 shuffles, ... Each site's per-warp addresses,
wavefronts and ideal are checked against the engine run on addresses computed here with NumPy
from the kernel's own formulas (the bytes as the GPU holds them), and the simple ones against
the wavefront count that follows from the bank arithmetic."""

from __future__ import annotations

import numpy as np
import pytest

from bankism.errors import BankismError
from tests.test_explain_support import BASE, DATA, check_site, not_counted, run, site

MISC = DATA / "misc"


def _half_bits(values: np.ndarray) -> np.ndarray:
    return values.astype(np.float16).view(np.uint16).astype(np.int64)


def _rows(words: np.ndarray, warps: int = 2) -> dict[int, np.ndarray]:
    """warp -> (1, 32) byte addresses of float words ``words`` (one per thread) in ``s``."""
    return {w: (BASE + 4 * words[32 * w: 32 * w + 32]).reshape(1, 32).astype(np.int64) for w in range(warps)}


def test_local_arrays_read_as_other_types_use_the_gpus_bytes():
    report = run(MISC / "punning.cu")
    t = np.arange(64)
    expected = {
        21: _half_bits(t + 3) & 2047,  # u[1] >> 16: h[3] of the float4 copy
        26: _half_bits(3 * t) & 2047,  # rc[1]: rh[2] (low half) and rh[3]
        28: 2 * t,  # rc[0] read as half2: .y is rh[1] = 2t
        33: _half_bits(4 * t + 2) & 2047,  # f[1] holds fh[2], fh[3]
        34: 4 * t + 3,
        39: (np.float32(1) * (t + 1)).astype(np.float32).view(np.uint32).astype(np.int64) >> 16 & 2047,
        43: 5 * t,  # float bits kept in an unsigned int, read as the float
        47: 3 * t,  # fill_2d through a reference to int[3][2]: g[2][1] = 3t + 5
    }
    for line, words in expected.items():
        check_site(site(report, line, "s", "store"), _rows(words), 4, "store")
    # bank arithmetic: s[2t] is 2-way, s[4t+3] 4-way, s[5t] and s[3t] conflict-free (2 warps)
    wavefronts = {s["line"]: s["wavefronts"] for s in report["sites"] if s["op"] == "store"}
    assert (wavefronts[28], wavefronts[34], wavefronts[43], wavefronts[47]) == (4, 8, 2, 2)


def test_pre_cuda9_shuffles_and_votes_run_over_the_lanes_that_run():
    report = run(MISC / "shfl_legacy.cu")
    lane = np.arange(64) % 32
    down = np.where(lane + 8 < 32, lane + 8, lane)
    up = np.where(lane % 16 >= 4, lane - 4, lane)
    expected = {
        8: lane ^ 16,
        9: 2 * down,
        10: up,
        11: 32 * lane,  # __shfl(t, 0) % 32 is 0 in both warps
        13: 8 * lane,  # __popc(__ballot(lane < 8)) = 8
        14: lane + 64,  # __any and __all both hold
    }
    for line, words in expected.items():
        check_site(site(report, line, "s", "store"), _rows(words), 4, "store")
    # bank arithmetic, per warp: a permutation 1, 2*down 2 (words 16+2k and 48+2k share a bank),
    # the shifted segments 1, one bank for 32 words 32, 8*lane 8 (4 banks of 8 words), lane + 64 1
    per_warp = {s["line"]: s["wavefronts"] // 2 for s in report["sites"] if s["op"] == "store"}
    assert [per_warp[line] for line in expected] == [1, 2, 1, 32, 8, 1]


def test_a_shuffle_from_a_lane_that_does_not_run_is_not_known(tmp_path):
    path = tmp_path / "idle_lane.cu"
    path.write_text(
        "__global__ void k(int *out) {\n"
        "  __shared__ int s[64];\n"
        "  int lane = threadIdx.x % 32;\n"
        "  if (lane < 16) {\n"
        "    s[__shfl_xor_sync(0xffffffff, lane, 16)] = 1;\n"
        "  }\n"
        "  out[lane] = s[lane];\n"
        "}\n"
    )
    report = run(path, grid=(1, 1, 1), block=(32, 1, 1))
    entry = not_counted(report, 5)
    assert ("the addresses depend on a value __shfl_xor_sync() read from a lane that does not run"
            in entry["note"])
    assert entry["instructions"] == 1 and entry["warps"][0]["active_lanes"] == 16


def test_asm_operands_without_commas_and_special_registers():
    report = run(MISC / "asm_forms.cu")
    t = np.arange(64)
    check_site(site(report, 13, "s", "store"), {w: BASE + 8 * t[32 * w: 32 * w + 32].reshape(1, 32)
                                                for w in range(2)}, 8, "store")
    check_site(site(report, 20, "s", "store"), _rows(32 * (t % 32)), 4, "store")  # popc(lanemask_lt) = lane
    per_warp = {s["line"]: s["wavefronts"] // 2 for s in report["sites"] if s["op"] == "store"}
    assert (per_warp[13], per_warp[20]) == (2, 32)  # 256 bytes of v2 stores; one bank, 32 words


def test_a_helper_explain_cannot_read_is_refused_with_its_reason(tmp_path):
    path = tmp_path / "function_pointer.cu"
    path.write_text(
        "__device__ void zero(float *row, void (*visit)(float)) { row[0] = 0.0f; }\n"
        "__global__ void k(float *out) {\n"
        "  __shared__ float s[32];\n"
        "  float r[2][4];\n"
        "  zero(r[0], 0);\n"
        "  s[threadIdx.x] = r[0][0];\n"
        "  out[threadIdx.x] = s[threadIdx.x];\n"
        "}\n"
    )
    with pytest.raises(BankismError, match=r"function_pointer.cu:1: unsupported construct: function "
                                           r"declaration"):
        run(path, grid=(1, 1, 1), block=(32, 1, 1))


def test_comparisons_misread_as_template_arguments_are_comparisons():
    report = run(MISC / "comparisons.cu")  # the launch passes rows = 4, cols = 5
    t = np.arange(64)
    row, col = t // 8 - 1, t % 8 - 2
    guarded = (row >= 0) & (row < 4) & (col >= 0) & (col < 5)
    words = row * 33 + col
    addresses = {w: BASE + 4 * words[32 * w: 32 * w + 32][guarded[32 * w: 32 * w + 32]] for w in range(2)}
    active = {w: guarded[32 * w: 32 * w + 32].reshape(1, 32) for w in range(2)}
    rows = {}
    for w in range(2):
        full = np.zeros((1, 32), np.int64)
        full[0, active[w][0]] = addresses[w]
        rows[w] = full
    check_site(site(report, 7, "s", "store"), rows, 4, "store", active)
    pick = np.where((row < 4) & (col > 2), 32 * col, t)
    check_site(site(report, 10, "s", "store"), _rows(pick), 4, "store")
    # bank 2 gets (row, col) = (0, 2), (1, 1), (2, 0) in warp 0; bank 0 gets four words in each warp
    stores = [s for s in report["sites"] if s["op"] == "store"]
    per_warp = {s["line"]: [w["wavefronts"][0] for w in s["warps"]] for s in stores}
    assert per_warp == {7: [3, 1], 10: [4, 4]}


def test_a_loop_carried_through_shared_memory_is_not_taken_as_repeating():
    # iteration k stores with a stride of (k % 2 + 1) words, read back from shared memory that
    # the previous iteration wrote: 20 stores of 1 wavefront and 20 of 2 (words w, w + 32 share
    # a bank); taking iteration 3 for all 38 others gave 41 wavefronts before
    report = run(MISC / "carried.cu")
    lane = np.arange(32)
    rows = np.array([BASE + 4 * lane * (k % 2 + 1) for k in range(40)], np.int64)
    check_site(site(report, 11, "s", "store"), {0: rows}, 4, "store")
    assert site(report, 11, "s", "store")["wavefronts"] == 60
    assert not any("simulated once" in n for n in report.get("assumptions", []))


@pytest.mark.parametrize("k", [64, 65])
def test_a_double_buffer_repeats_in_pairs(k):
    report = run(MISC / "double_buffer.cu", defines={"K": str(k)})
    lane = np.arange(32)
    rows = np.array([BASE + 4 * ((i % 2) * 32 * 33 + lane * (32 + i % 2)) for i in range(k)], np.int64)
    check_site(site(report, 11, "tiles", "load"), {0: rows}, 4, "load")
    # even iterations: stride 32 words, one bank, 32 wavefronts; odd ones: stride 33, one
    evens = (k + 1) // 2
    assert site(report, 11, "tiles", "load")["wavefronts"] == 32 * evens + (k - evens)
    notes = [n for n in report["assumptions"] if "a period of two" in n]
    assert len(notes) == 1 and f"to {k} make" in notes[0]


def test_punned_values_equal_the_h100s():
    """Every address explain computes for the punning kernels' sites is the index the H100
    computed from the same expressions (traces/explain_misc/values.txt)."""
    measured: dict[str, dict[int, int]] = {}
    values = DATA.parents[1].parent / "traces" / "explain_misc" / "values.txt"
    for line in values.read_text().splitlines():
        name, thread, value = line.split()
        measured.setdefault(name, {})[int(thread)] = int(value)
    reports = {"punning": run(MISC / "punning.cu"), "asm_forms": run(MISC / "asm_forms.cu")}
    assert len(measured) == 9
    for name, per_thread in measured.items():
        kernel, line = name.split(":")
        found = site(reports[kernel], int(line), "s", "store")
        got = {32 * w["warp"] + lane: (a - BASE) // 4 for w in found["warps"]
               for lane, a in enumerate(w["lane_addresses"])}
        assert got == per_thread, name


def test_correctly_rounded_reciprocal_and_square_root_give_strides():
    report = run(MISC / "reciprocal.cu")
    lane = np.arange(32)
    check_site(site(report, 7, "s", "store"), {0: (BASE + 4 * 8 * lane).reshape(1, 32)}, 4, "store")
    check_site(site(report, 8, "s", "store"), {0: (BASE + 4 * 33 * lane).reshape(1, 32)}, 4, "store")
    assert site(report, 7, "s", "store")["wavefronts"] == 8
    assert site(report, 8, "s", "store")["wavefronts"] == 1


def test_32_byte_vectors_move_as_two_16_byte_accesses():
    """double4 / longlong4 in shared memory: nvcc splits each access into two 16-byte ones at offsets 0
    and 16 (STS.128 / LDS.128; a public n-body kernel's SASS and its H100 trace: 8 wavefronts per
    instruction for a 32-byte stride, as here)."""
    report = run(MISC / "wide_vectors.cu")
    t = np.arange(64)

    def rows(base: int, elements: np.ndarray) -> dict[int, np.ndarray]:
        return {w: np.stack([base + 32 * elements[32 * w: 32 * w + 32] + piece for piece in (0, 16)])
                for w in range(2)}

    key_base = BASE + 64 * 32
    check_site(site(report, 10, "tile", "store"), rows(BASE, t), 16, "store")
    check_site(site(report, 11, "key_tile", "store"), rows(key_base, 63 - t), 16, "store")
    check_site(site(report, 13, "tile", "load"), rows(BASE, t ^ 1), 16, "load")
    check_site(site(report, 15, "key_tile", "load"), rows(key_base, t), 16, "load")
    assert all(s["instructions"] == 4 and s["wavefronts"] == 32 for s in report["sites"])


def test_12_and_24_byte_vectors_move_component_by_component(tmp_path):
    """float3 / double3 in shared memory (12- and 24-byte strides): three 32-bit or three 64-bit accesses,
    as nvcc copies a struct of three floats or doubles (a public n-body kernel's H100 trace: three STS and
    three LDS per float3, equal to explain on every line)."""
    source = (MISC / "wide_vectors.cu").read_text()
    source = source.replace("double4", "double3").replace("longlong4", "float3")
    path = tmp_path / "three.cu"
    path.write_text(source)
    report = run(path)
    t = np.arange(64)

    def rows(base: int, elements: np.ndarray, size: int, width: int) -> dict[int, np.ndarray]:
        return {w: np.stack([base + size * elements[32 * w: 32 * w + 32] + piece
                             for piece in range(0, size, width)]) for w in range(2)}

    key_base = BASE + 64 * 24
    check_site(site(report, 10, "tile", "store"), rows(BASE, t, 24, 8), 8, "store")
    check_site(site(report, 11, "key_tile", "store"), rows(key_base, 63 - t, 12, 4), 4, "store")
    check_site(site(report, 13, "tile", "load"), rows(BASE, t ^ 1, 24, 8), 8, "load")
    check_site(site(report, 15, "key_tile", "load"), rows(key_base, t, 12, 4), 4, "load")


def test_a_shared_window_address_kept_in_a_pointer_feeds_inline_ptx():
    """reinterpret_cast<half2 *>(__cvta_generic_to_shared(p)) as the "l" operand of cp.async and ldmatrix
    (a public cp.async HGEMM writes it so; explain then equals the H100's address-level counts per block of
    that kernel: 49,152 ld, 16,384 st and 4,096 ldgsts wavefronts). Pointer arithmetic on it steps by the
    element (window + 4 is 16 bytes on)."""
    report = run(MISC / "window_pointer.cu")
    lane = np.arange(32)
    copy = next(s for s in report["sites"] if s["op"] == "ldgsts")
    check_site(copy, {0: (BASE + 80 * (lane // 4) + 16 * (lane % 4)).reshape(1, 32)}, 16, "ldgsts")
    matrix = next(s for s in report["sites"] if s["op"] == "ldmatrix")
    assert matrix["instructions"] == 1 and matrix["wavefronts"] == 4
    assert matrix["warps"][0]["lane_addresses"] == [int(a) for a in BASE + 80 * lane + 16]


def test_a_shared_window_pointer_cast_back_to_an_integer_is_the_address(tmp_path):
    source = (MISC / "window_pointer.cu").read_text().replace(
        '"l"(window + 4));', '"r"(static_cast<unsigned>(reinterpret_cast<size_t>(window + 4))));')
    path = tmp_path / "back.cu"
    path.write_text(source)
    matrix = next(s for s in run(path)["sites"] if s["op"] == "ldmatrix")
    assert matrix["warps"][0]["lane_addresses"] == [int(a) for a in BASE + 80 * np.arange(32) + 16]


def test_c_cannot_dereference_a_shared_window_address_kept_in_a_pointer(tmp_path):
    source = (MISC / "window_pointer.cu").read_text().replace(
        "(float)(r0 ^ r1 ^ r2 ^ r3);", "(float)(r0 ^ r1 ^ r2 ^ r3) + __low2float(window[1]);")
    path = tmp_path / "deref.cu"
    path.write_text(source)
    with pytest.raises(BankismError, match="through a shared-window address .* cast to a pointer"):
        run(path)


def test_an_integer_that_is_no_shared_window_address_stays_refused_as_a_pointer(tmp_path):
    """Only a known address inside the block's shared arrays may become a pointer (a kernel parameter
    cast to a pointer, or an address past the arrays, is refused as before)."""
    source = (MISC / "window_pointer.cu").read_text().replace(
        "reinterpret_cast<half2*>(__cvta_generic_to_shared(&tile[threadIdx.x][0]))",
        "reinterpret_cast<half2*>(__cvta_generic_to_shared(&tile[threadIdx.x][0]) + 65536)")
    path = tmp_path / "far.cu"
    path.write_text(source)
    with pytest.raises(BankismError, match="integer converted to a pointer"):
        run(path)
