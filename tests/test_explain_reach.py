"""Constructs public kernels use that never decide a shared access (tests/data/explain/reach):
clock readings, braced cooperative-groups function objects, half2 arithmetic, ... Every site's
per-warp addresses, wavefronts and ideal are checked against the engine run on addresses
computed here from the kernels' own index formulas."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from bankism.errors import BankismError
from tests.test_explain_support import BASE, DATA, check_site, listed, not_counted, run, site

REACH = DATA / "reach"


def _lanes(addresses: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """One execution whose first len(addresses) lanes are active at ``addresses``:
    ((1, 32) addresses, (1, 32) active mask)."""
    row = np.zeros((1, 32), np.int64)
    row[0, : len(addresses)] = addresses
    active = np.zeros((1, 32), bool)
    active[0, : len(addresses)] = True
    return row, active


def _check(found: dict, per_warp: dict[int, list[int]], width: int, op: str) -> None:
    expected = {w: _lanes(a) for w, a in per_warp.items()}
    addresses = {w: e[0] for w, e in expected.items()}
    check_site(found, addresses, width, op, {w: e[1] for w, e in expected.items()})


def test_clock_values_and_braced_function_objects_do_not_refuse():
    report = run(REACH / "library_values.cu")
    totals, maxes = BASE, BASE + 32
    _check(site(report, 17, "warpTotals", "store"), {w: [totals + 4 * w] for w in range(8)}, 4, "store")
    _check(site(report, 18, "maxes", "store"), {w: [maxes + 4 * (7 - w)] for w in range(8)}, 4, "store")
    _check(site(report, 21, "warpTotals", "load"), {0: [totals + 4 * i for i in range(8)]}, 4, "load")
    _check(site(report, 21, "maxes", "load"), {0: [maxes + 4 * (i ^ 1) for i in range(8)]}, 4, "load")
    assert sum(s["conflicts"] for s in report["sites"]) == 0


def _ffs(x: int) -> int:
    return 0 if x == 0 else (x & -x).bit_length()


def _usad4(a: int, b: int, c: int) -> int:
    return c + sum(abs(((a >> 8 * i) & 255) - ((b >> 8 * i) & 255)) for i in range(4))


def _byte_perm(x: int, y: int, s: int) -> int:
    pool = x | (y << 32)
    return sum(((pool >> 8 * ((s >> 4 * n) & 7)) & 255) << 8 * n for n in range(4))


def test_bit_intrinsics_and_half2_arithmetic():
    report = run(REACH / "bit_half.cu")
    slots, prods = BASE, BASE + 1024
    t = range(32)
    formulas = {
        8: [_ffs(i + 1) * 8 + (i & 7) for i in t],
        9: [32 - (i + 1).bit_length() + 64 for i in t],
        10: [(int(f"{i:032b}"[::-1], 2) >> 27) * 3 for i in t],
        11: [bin((i * 2654435761) & 0xFFFFFFFF).count("1") + 128 for i in t],
        12: [_usad4(i, 0x01020304, 5) & 255 for i in t],
        13: [_byte_perm(i, 0x55, 0x3210) & 63 for i in t],
        14: [((((i << 28) & 0xFFFFFFFF) | (i << 32)) << 4 >> 32) & 0xFFFFFFFF & 255 for i in t],
        15: [(_ffs(1 << (i & 31)) + 64 - 41) & 255 for i in t],
    }
    for line, words in formulas.items():
        rows = np.array([[slots + 4 * w for w in words]], np.int64)
        check_site(site(report, line, "slots", "store"), {0: rows}, 4, "store")
    check_site(site(report, 16, "prods", "store"), {0: np.array([[prods + 4 * i for i in t]])}, 4, "store")
    reversed_rows = np.array([[prods + 4 * (63 - i) for i in t]])
    check_site(site(report, 18, "prods", "load"), {0: reversed_rows}, 4, "load")


def test_a_store_whose_lanes_depend_on_shared_values_is_refused_in_one_plain_sentence(tmp_path):

    source = tmp_path / "swap.cu"
    source.write_text(
        "__device__ void order(int &x, int &y) { if (x > y) { int t = x; x = y; y = t; } }\n"
        "__global__ void k(const int *g) {\n"
        "  __shared__ int v[64];\n"
        "  v[threadIdx.x] = g[threadIdx.x];\n"
        "  v[threadIdx.x + 32] = g[threadIdx.x + 32];\n"
        "  __syncthreads();\n"
        "  order(v[2 * threadIdx.x], v[2 * threadIdx.x + 1]);\n"
        "}\n"
        "int main() { k<<<1, 32>>>(0); }\n"
    )
    entry = listed(run(source), 7, "whether it runs depends on values in shared memory, which bankism "
                                   "does not know")
    assert entry["note"].count("bankism does not know") == 1


def test_tiles_of_a_block_that_is_not_a_multiple_of_the_tile_size():
    report = run(REACH / "partial_tile.cu")
    grid2d, counts = BASE, BASE + 4 * 33 * 4
    tid = np.arange(120)
    stores = {}
    for w in range(4):
        lanes = tid[32 * w: 32 * w + 32]
        stores[w] = [grid2d + 4 * (33 * (t // 32) + t % 32) for t in lanes]
    _check(site(report, 11, "grid2d", "store"), stores, 4, "store")
    heads = np.zeros((4, 1, 32), np.int64)
    active = np.zeros((4, 1, 32), bool)
    for w in range(4):  # each warp holds two 16-thread tiles; their heads are lanes 0 and 16
        heads[w, 0, [0, 16]] = [counts + 4 * ((32 * w + lane) // 16 + 8) for lane in (0, 16)]
        active[w, 0, [0, 16]] = True
    found = site(report, 12, "counts", "store")
    check_site(found, dict(enumerate(heads)), 4, "store", dict(enumerate(active)))
    loads = {w: [grid2d + 4 * (33 * (t % 32 % 4) + 4) for t in tid[32 * w: 32 * w + 32]] for w in range(4)}
    _check(site(report, 14, "grid2d", "load"), loads, 4, "load")


# --- __shared__ arrays outside the kernel body ---------------------------------------------

PLACEMENT = Path(__file__).parent.parent / "traces" / "shared_placement"


def test_outer_shared_arrays_are_placed_where_the_h100_put_them():
    """traces/shared_placement/placement.txt: the shared-window offsets probe.cu printed on the
    H100 (file-scope arrays, __device__-function arrays, the kernels' own, one extern)."""
    measured = {}
    for line in (PLACEMENT / "placement.txt").read_text().splitlines():
        if line.startswith("k") and "=" in line:
            kernel, *pairs = line.split()
            measured[kernel] = {name: int(offset) for name, offset in (p.split("=") for p in pairs)}
    assert set(measured) == {"k1", "k2", "k3", "k4"}
    for kernel, offsets in measured.items():
        report = run(PLACEMENT / "probe.cu", kernel=kernel)
        got = {a["name"]: a["base_offset"] for a in report["shared_arrays"]}
        assert got == offsets, kernel


def test_file_scope_and_helper_arrays_sites():
    report = run(REACH / "outer_shared.cu", kernel="outerUser")
    offsets = {a["name"]: a["base_offset"] for a in report["shared_arrays"]}
    # staged and lanes2 are used by this kernel only (moved ahead of `own`); common is shared
    # with otherUser (kept after it).
    assert offsets == {"staged": BASE, "lanes2": BASE + 256, "own": BASE + 512, "common": BASE + 640}
    lane = np.arange(32)
    for_warps = {w: np.array([BASE + 256 + 4 * 2 * lane]) for w in range(2)}
    check_site(site(report, 7, "lanes2", "store"), for_warps, 4, "store")
    reversed_rows = {w: np.array([BASE + 4 * (63 - (32 * w + lane))]) for w in range(2)}
    check_site(site(report, 21, "staged", "load"), reversed_rows, 4, "load")
    rotated = {w: np.array([BASE + 640 + 4 * ((lane + 1) % 32)]) for w in range(2)}
    check_site(site(report, 15, "common", "load"), rotated, 4, "load")


def test_a_static_shared_array_in_a_template_helper_is_one_array_per_instantiation():
    report = run(REACH / "outer_shared.cu", kernel="templated")
    placed = [(a["name"], a["base_offset"]) for a in report["shared_arrays"]]
    assert placed == [("perInstance<8>::cell", BASE)]
    lane = np.arange(32)
    rows = {w: np.array([BASE + 4 * ((32 * w + lane) % 8)]) for w in range(2)}
    check_site(site(report, 29, "perInstance<8>::cell", "store"), rows, 4, "store")


def test_a_null_test_that_guards_only_per_thread_work_does_not_refuse():
    report = run(REACH / "null_guard.cu", kernel="biasedTile")
    x = np.arange(32)
    rows = {y: np.array([BASE + 4 * (32 * y + x)] * 4) for y in range(8)}
    check_site(site(report, 8, "tile", "load"), rows, 4, "load")
    check_site(site(report, 8, "tile", "store"), rows, 4, "store")
    columns = {y: np.array([BASE + 4 * (32 * x + y)]) for y in range(8)}
    found = site(report, 10, "tile", "load")
    check_site(found, columns, 4, "load")
    assert found["wavefronts"] == 8 * 32


def test_a_null_test_that_decides_a_shared_access_is_refused_unless_the_launch_or_d_decides_it(tmp_path):
    """The launch passes 0 for bias: a null pointer, the guarded stores do not run; -D bias=1 makes them
    run; a launch argument explain cannot evaluate leaves it unknown, and the access is refused."""
    report = run(REACH / "null_guard.cu", kernel="guardedShared")
    assert [s["line"] for s in report["sites"] if s["op"] == "store"] == []
    given = run(REACH / "null_guard.cu", kernel="guardedShared", defines={"bias": "1"})
    assert [s["instructions"] for s in given["sites"] if s["op"] == "store"] == [2]
    path = tmp_path / "null_guard.cu"
    path.write_text((REACH / "null_guard.cu").read_text().replace("guardedShared<<<1, 32>>>(0, 0)",
                                                                  "float *b = (float *)malloc(4); "
                                                                  "guardedShared<<<1, 32>>>(b, 0)"))
    listed(run(path, kernel="guardedShared"), 16, "whether it runs depends on whether pointer bias is null")


def test_parenthesized_typedef_casts_and_cache_hint_stores():
    report = run(REACH / "casts_hints.cu")
    x = np.arange(32)
    found = site(report, 9, "buf", "store")
    check_site(found, {0: np.array([BASE + 4 * ((4 * x) % 128)])}, 4, "store")
    assert found["wavefronts"] == 4
    col = BASE + 512
    check_site(site(report, 10, "col", "store"), {0: np.array([col + 4 * 32 * x])}, 4, "store")
    check_site(site(report, 12, "buf", "load"), {0: np.array([BASE + 4 * (127 - x)])}, 4, "load")
    check_site(site(report, 13, "buf", "load"), {0: np.array([BASE + 4 * x])}, 4, "load")


def test_a_define_for_a_parameter_of_an_unparsable_kernel_is_not_pasted_as_a_macro(tmp_path):
    source = tmp_path / "trait.cu"
    source.write_text(
        "template <typename T> struct Wide { typedef float4 Type; };\n"
        "template <typename T>\n"
        "__global__ void k(void (*visit)(T), unsigned int n) {\n"
        "  __shared__ float s[64];\n"
        "  if (threadIdx.x < n) s[threadIdx.x] = 1.f;\n"
        "}\n"
    )
    with pytest.raises(BankismError) as caught:
        run(source, grid=(1, 1, 1), block=(64, 1, 1), defines={"T": "float", "n": "32"})
    assert "cannot parse" not in str(caught.value)
    assert "trait.cu:3: unsupported construct: function declaration" in str(caught.value)


def test_a_kernel_not_found_names_the_headers_that_were_not_found(tmp_path):
    source = tmp_path / "host.cu"
    source.write_text(
        '#include <cstdio>\n#include "kernels/tiles.cuh"\nint main() { tileKernel<<<1, 32>>>(0); }\n'
    )
    missing = r'#include "kernels/tiles.cuh" not found \(give the directory with -I DIR\)'
    with pytest.raises(BankismError, match=r"host.cu: no __global__ function named tileKernel; " + missing):
        run(source, kernel="tileKernel")
    with pytest.raises(BankismError, match=r"no __global__ kernel found; " + missing):
        run(source)
    source.write_text(  # the kernel is here, the host helper of its grid in the missing header
        '#include "kernels/tiles.cuh"\n__global__ void tileKernel(float *o) { __shared__ float s[32];\n'
        '  s[threadIdx.x] = 1.f; o[threadIdx.x] = s[31 - threadIdx.x]; }\n'
        'int main() { dim3 grid(ceil_div(1024, 32)); tileKernel<<<grid, 32>>>(0); }\n'
    )
    report = run(source, kernel="tileKernel")  # answered per block; the note names the missing header
    assert report["launch"]["grid"] is None and report["sites"]
    assert re.search(r"the grid `grid` on line 4 cannot be evaluated.*give --grid X,Y,Z for them; " + missing,
                     report["assumptions"][0])
    source.write_text(  # a helper macro of the missing header, read as a call
        '#include "kernels/tiles.cuh"\n__global__ void tileKernel(float *o) { __shared__ float s[32];\n'
        '  unsigned a; CVTA_SHARED(a, s); s[threadIdx.x] = 1.f; }\nint main() { tileKernel<<<1, 32>>>(0); }\n'
    )
    with pytest.raises(BankismError, match=r"host.cu:3: unsupported construct: call to unknown function "
                                           r"CVTA_SHARED\(\); " + missing):
        run(source, kernel="tileKernel")


def test_memcpy_of_a_global_int4_into_a_packed_struct():
    report = run(REACH / "packed_bits.cu", kernel="packedRows")
    x = np.arange(128)
    warp = [x[32 * w: 32 * w + 32] for w in range(4)]
    stores = {w: np.array([BASE + 4 * (129 * k + warp[w]) for k in range(4)]) for w in range(4)}
    check_site(site(report, 14, "rows", "store"), stores, 4, "store")
    loads = {w: np.array([BASE + 4 * (129 * (warp[w] % 4) + warp[w] // 4)]) for w in range(4)}
    found = site(report, 16, "rows", "load")
    check_site(found, loads, 4, "load")
    assert found["wavefronts"] == 16
    packed = run(REACH / "packed_bits.cu", kernel="packedIndex")
    assert "the addresses depend on" in not_counted(packed, 22)["note"]


def test_constant_tables_sized_by_their_initializer():
    report = run(REACH / "constant_table.cu")
    t = np.arange(256)
    stores = {w: np.array([BASE + 4 * (32 * (t[32 * w: 32 * w + 32] % 8) + t[32 * w: 32 * w + 32] // 8)])
              for w in range(8)}
    found = site(report, 7, "taps", "store")
    check_site(found, stores, 4, "store")
    assert found["wavefronts"] == 8 * 8
    loads = {w: np.array([BASE + 4 * (32 * w + np.arange(32))]) for w in range(8)}
    check_site(site(report, 9, "taps", "load"), loads, 4, "load")


def test_kernel_parameters_of_unmodelled_types_cost_nothing_unless_named(tmp_path):
    source = tmp_path / "tags.cu"
    source.write_text(
        "#include <type_traits>\n"
        "template <bool A> __global__ void k(float *o, std::bool_constant<A>, curandState *st) {\n"
        "  __shared__ float s[64];\n"
        "  s[2 * threadIdx.x % 64] = 1.f;\n"
        "  if (A) o[threadIdx.x] = s[63 - threadIdx.x];\n"
        "}\n"
        "__global__ void named(curandState *st) { __shared__ curandState s[32]; s[threadIdx.x] = st[0]; }\n"
        "int main() { k<true><<<1, 32>>>(0, std::bool_constant<true>{}, 0); named<<<1, 32>>>(0); }\n"
    )
    report = run(source, kernel="k")
    lane = np.arange(32)
    found = site(report, 4, "s", "store")
    check_site(found, {0: np.array([BASE + 4 * (2 * lane % 64)])}, 4, "store")
    assert found["wavefronts"] == 2
    check_site(site(report, 5, "s", "load"), {0: np.array([BASE + 4 * (63 - lane)])}, 4, "load")
    with pytest.raises(BankismError, match=r"tags.cu:7: unsupported construct: unknown type 'curandState'"):
        run(source, kernel="named")


def test_overloads_by_reference_constness_pick_and_bind_as_cpp_does():
    report = run(REACH / "ref_overloads.cu")
    lane = np.arange(32)
    found = site(report, 9, "s", "store")  # first(v) = 2x wrote v.x through the T& overload
    check_site(found, {0: np.array([BASE + 4 * 2 * lane])}, 4, "store")
    assert found["wavefronts"] == 2
    check_site(site(report, 10, "s", "store"), {0: np.array([BASE + 4 * (lane + 64)])}, 4, "store")


def test_a_whole_struct_returned_by_a_helper_is_stored_as_one_128_bit_access(tmp_path):
    """Four floats, 16-byte aligned: nvcc stores them with one STS.128 (tests/test_explain_decl.py
    has the H100 trace of the rule)."""
    source = tmp_path / "pack.cu"
    source.write_text(
        "struct alignas(16) Quad { float v[4]; };\n"
        "__device__ Quad fill(float x) { Quad q; for (int i = 0; i < 4; i++) q.v[i] = x; return q; }\n"
        "__global__ void k(const float *in) {\n"
        "  __shared__ Quad tiles[32];\n"
        "  tiles[threadIdx.x] = fill(in[threadIdx.x]);\n"
        "}\n"
        "int main() { k<<<1, 32>>>(0); }\n"
    )
    found = site(run(source), 5, "tiles", "store")
    check_site(found, {0: np.array([BASE + 16 * np.arange(32)])}, 16, "store")
    assert found["wavefronts"] == 4


def test_default_arguments_of_device_functions():
    report = run(REACH / "default_args.cu")
    lane = np.arange(32)
    for line, words, wavefronts in ((6, 2 * lane, 2), (7, lane, 1), (8, 1 + 4 * lane, 4)):
        found = site(report, line, "s", "store")
        check_site(found, {0: np.array([BASE + 4 * words])}, 4, "store")
        assert found["wavefronts"] == wavefronts
