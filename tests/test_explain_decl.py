"""Declarations and calls public kernels use (issue 19; tests/data/explain/decl): brace
initialisation, open-first-dimension dynamic arrays, default template type arguments,
dependent member types, decltype, const references bound to expressions and the address of a
local vector. Every site's per-warp addresses come from the kernels' own index formulas
(computed here), and the engine counts them; the wavefront totals asserted beside were derived
by hand from the bank mapping (32 banks of 4 bytes)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bankism.errors import BankismError
from bankism.explain import ExplainOptions, explain
from tests.test_explain_support import BASE, DATA, check_site, listed, run, site

DECL = DATA / "decl"


def _rows(words_of_warp: dict[int, list[np.ndarray]], base: int, unit: int = 4) -> dict[int, np.ndarray]:
    """warp -> (executions, 32) byte addresses from per-execution element indices."""
    return {w: np.array([base + unit * np.asarray(e) for e in rows]) for w, rows in words_of_warp.items()}


def test_brace_initialised_constants_locals_and_vectors():
    report = run(DECL / "braces.cu")
    lane = np.arange(32)
    tile = BASE  # float tile[32][33]: TILE{32}, PAD { 1 }
    found = site(report, 14, "tile", "store")  # r{zero} = 0, 2 (ROWS{4}, Steps::ROW{2})
    check_site(found, _rows({0: [33 * lane + r for r in (0, 2)]}, tile), 4, "store")
    assert found["wavefronts"] == 2  # banks lane + r: all distinct
    found = site(report, 15, "tile", "store")  # tile[zero][lane], zero{} == 0
    check_site(found, _rows({0: [lane]}, tile), 4, "store")
    found = site(report, 16, "tile", "load")  # skew{3}: rows 3*lane % 32, column lane % 1
    check_site(found, _rows({0: [33 * ((3 * lane) % 32)]}, tile), 4, "load")
    assert found["wavefronts"] == 1


def test_dynamic_arrays_with_an_open_first_dimension():
    report = run(DECL / "extern2d.cu", kernel="halfRows")
    t = np.arange(64)
    rows = report["shared_arrays"][0]
    assert (rows["name"], rows["shape"], rows["base_offset"], rows["size_bytes"]) == (
        "rows", [16, 40], BASE, 1280)
    per_warp = {w: t[32 * w:32 * w + 32] for w in range(2)}
    stores = {w: np.array([BASE + 80 * (u // 4) + 16 * (u % 4)]) for w, u in per_warp.items()}
    found = site(report, 8, "rows", "store")
    check_site(found, stores, 16, "store")
    assert found["wavefronts"] == 16  # per quarter-warp rows r, r+1: words 0-15 and 20-35 share banks 0-3
    loads = {w: np.array([BASE + 80 * (u % 16) + 2 * (u // 16)]) for w, u in per_warp.items()}
    found = site(report, 10, "rows", "load")
    check_site(found, loads, 2, "load")
    assert found["wavefronts"] == 4  # rows j and j+8 are 160 words apart: 2-way
    report = run(DECL / "extern2d.cu", kernel="floatRows")
    lane = np.arange(32)
    grid = BASE + 16  # after head[4], 16-byte aligned
    assert {a["name"]: (a["shape"], a["base_offset"]) for a in report["shared_arrays"]} == {
        "head": ([4], BASE), "grid": ([32, 33], grid)}
    found = site(report, 18, "grid", "store")
    check_site(found, _rows({0: [33 * lane]}, grid), 4, "store")
    assert found["wavefronts"] == 1
    check_site(site(report, 19, "grid", "load"), _rows({0: [lane]}, grid), 4, "load")


def test_dynamic_arrays_cover_a_partial_last_row():
    """A dynamic size that is not a whole number of rows (a public WMMA HGEMM reuses its
    [][40] tile for a 136-wide C tile): the bytes past the last row belong to the array."""
    report = run(DECL / "extern2d.cu", kernel="tailRows")
    rows = report["shared_arrays"][0]
    assert (rows["name"], rows["shape"], rows["size_bytes"]) == ("rows", [16, 40], 1296)
    lane = np.arange(32)
    tail = {0: np.array([BASE + 1280 + 2 * (lane % 8)])}
    for line, op in ((26, "store"), (28, "load")):
        found = site(report, line, "rows", op)
        check_site(found, tail, 2, op)
        assert found["wavefronts"] == 1  # 8 halves in 16 bytes


def test_default_template_type_arguments_dependent_member_types_and_decltype():
    report = run(DECL / "templates.cu")
    t = np.arange(64)
    quads, words = BASE, BASE + 64 * 16
    per_warp = {w: t[32 * w:32 * w + 32] for w in range(2)}
    sites = [s for s in report["sites"] if s["line"] == 5]
    assert [s["call_stack"][0]["line"] for s in sites] == [19, 20]
    check_site(sites[0], {w: np.array([quads + 16 * 2 * (u % 32)]) for w, u in per_warp.items()}, 16, "store")
    assert sites[0]["wavefronts"] == 16  # 32-byte stride: each quarter-warp needs 2 wavefronts
    check_site(sites[1], {w: np.array([quads + 16 * u]) for w, u in per_warp.items()}, 16, "store")
    assert sites[1]["wavefronts"] == 8
    found = site(report, 8, "words", "store")  # zero(): V defaults to int4
    check_site(found, {w: np.array([words + 16 * ((2 * u) % 64)]) for w, u in per_warp.items()}, 16, "store")
    found = site(report, 11, "words", "store")  # stash<float>: Traits<float>::type v, lanes = 4
    check_site(found, {w: np.array([words + 4 * 4 * u]) for w, u in per_warp.items()}, 4, "store")
    assert found["wavefronts"] == 8  # 4-way per warp
    found = site(report, 14, "words", "load")  # pairAt<float>: Traits<float>::wide return and parameter
    check_site(found, {w: np.array([words + 8 * u]) for w, u in per_warp.items()}, 8, "load")
    found = site(report, 25, "words", "store")  # decltype(threadIdx.x) step = 3t; decltype(step + 1u) slot
    check_site(found, {w: np.array([words + 4 * ((3 * u) % 256)]) for w, u in per_warp.items()}, 4, "store")
    assert found["wavefronts"] == 2


def test_const_references_to_expressions_and_addresses_of_local_vectors():
    report = run(DECL / "calls.cu")
    t = np.arange(64)
    cols, words = BASE, BASE + 4 * 33 * 4
    per_warp = {w: t[32 * w:32 * w + 32] for w in range(2)}
    found = site(report, 4, "words", "store")  # put(words, (3t) % 256, 1.f): both bound to temporaries
    check_site(found, {w: np.array([words + 4 * ((3 * u) % 256)]) for w, u in per_warp.items()}, 4, "store")
    found = site(report, 10, "words", "store")  # twice(t + 1): const int& to an expression
    doubled = {w: np.array([words + 4 * ((2 * (u + 1)) % 256)]) for w, u in per_warp.items()}
    check_site(found, doubled, 4, "store")
    assert found["wavefronts"] == 4  # even words only: 2-way in each warp
    found = site(report, 14, "cols", "store")  # parts = &v.x, parts[k]
    rows = {w: np.array([cols + 4 * (33 * k + u % 32) for k in range(4)]) for w, u in per_warp.items()}
    check_site(found, rows, 4, "store")
    # steps = (0, 1, 2, 3), f[3] = 5 through the float* to &steps: pick = [0, 1, 2, 5][t % 4]
    pick = np.array([0, 1, 2, 5])[t % 4] % 4
    row = t // 32 + 1  # const int &row = t / 32 + 1
    loads = {w: np.array([cols + 4 * (33 * pick[u] + (u * row[u]) % 32)]) for w, u in per_warp.items()}
    found = site(report, 19, "cols", "load")
    check_site(found, loads, 4, "load")
    assert [w["wavefronts"] for w in found["warps"]] == [[3], [1]]
    cells = run(DECL / "calls.cu", snapshot=(14, {"k": 1}))["snapshot"]["arrays"]["cols"]["cells"]
    # threads t and t + 32 store to the same column; the later lane's write is what stays
    assert [c["source"] for c in cells[:2] + cells[33:35]] == ["in[32].x", "in[33].x", "in[32].y", "in[33].y"]


def test_enums_inheritance_and_anonymous_members():
    report = run(DECL / "records.cu")
    t = np.arange(64)
    per_warp = {w: t[32 * w:32 * w + 32] for w in range(2)}
    tile = BASE  # float tile[Shape::ROWS][Shape::COLS + (int)Pad::ONE] = [8][33]
    packets = BASE + 8 * 33 * 4  # Packet: anonymous union (4 bytes) + anonymous struct of 2 shorts: 8 bytes
    assert {a["name"]: (a["shape"], a["base_offset"]) for a in report["shared_arrays"]} == {
        "tile": ([8, 33], tile), "packets": ([64], packets)}
    # Skewed(33, 1).slot(row, col) = Strided::at(row, (col + row) % 33) = 33 row + (col + row) % 33
    r, c = t // 32, t % 32
    slots = 33 * (c % 8) + (r + c % 8) % 33
    found = site(report, 26, "tile", "store")
    check_site(found, {w: np.array([tile + 4 * slots[u]]) for w, u in per_warp.items()}, 4, "store")
    assert found["wavefronts"] == 2  # 8 distinct words per warp, banks 2k: no conflict
    found = site(report, 27, "tile", "store")  # layout == COL_MAJOR: tile[r][c]
    check_site(found, {w: np.array([tile + 4 * (33 * r[u] + c[u])]) for w, u in per_warp.items()}, 4, "store")
    found = site(report, 31, "packets", "store")  # .bits of the anonymous union, at offset 0
    check_site(found, {w: np.array([packets + 8 * u]) for w, u in per_warp.items()}, 4, "store")
    assert found["wavefronts"] == 4  # 8-byte stride: 2-way
    found = site(report, 32, "packets", "store")  # .hi of the anonymous struct, at offset 6
    halves = {w: np.array([packets + 8 * ((8 * u) % 64) + 6]) for w, u in per_warp.items()}
    check_site(found, halves, 2, "store")
    assert found["wavefronts"] == 8  # 8 words 16 apart fall on 2 banks: 4-way
    found = site(report, 33, "packets", "load")  # .value shares the union's bytes with .bits
    check_site(found, {w: np.array([packets + 8 * u]) for w, u in per_warp.items()}, 4, "load")
    check_site(site(report, 33, "tile", "load"),
               {w: np.array([tile + 4 * (33 * (c[u] % 8) + r[u])]) for w, u in per_warp.items()}, 4, "load")


ROOT = Path(__file__).resolve().parents[1]


def test_whole_struct_copies_agree_with_the_h100_line_by_line():
    """traces/struct_copy.json (H100, nvcc 13.0): each whole-struct store and load compiles to
    the accesses explain predicts (STS.128 for 4 floats, STS.64 for 2, three STS for 3, STS +
    STS.64 for int + double, three STS.64 for float[6], STS.128 for 2 doubles), at the
    interpreted addresses; the launch totals equal Nsight Compute's."""
    source = ROOT / "traces" / "kernels" / "struct_copy.cu"
    trace = ROOT / "traces" / "struct_copy.json"
    compared = explain(source.read_text(), str(source), ExplainOptions(trace=str(trace)))["trace"]
    assert compared["environment"]["gpu"] == "NVIDIA H100 80GB HBM3"
    lines = {e["line"]: e for e in compared["lines"]}
    assert sorted(lines) == [26, 39, 40, 41, 45, 46, 47, 49, 51, 52, 53, 54]
    for entry in lines.values():
        assert entry["same_instructions"] and entry["same_addresses"], entry
        assert {g["verdict"] for g in entry["groups"]} == {"as written"}
    widths = {line: sorted((s["width"], s["instructions"] // 8) for s in e["sass"])
              for line, e in lines.items()}
    assert widths == {26: [(8, 1)], 39: [(16, 1)], 40: [(8, 1)], 41: [(4, 3)], 45: [(4, 1), (8, 1)],
                      46: [(8, 3)], 47: [(16, 1)], 49: [(16, 1)], 51: [(4, 3)], 52: [(4, 1), (8, 1)],
                      53: [(8, 3)], 54: [(16, 1)]}
    totals, measured = compared["totals"], compared["totals"]["measured"]
    for op_class in ("ld", "st"):
        for metric in ("instructions", "wavefronts", "conflicts"):
            assert totals["source"][op_class][metric] == measured[op_class][metric], (op_class, metric)
    assert [measured["ld"][m] for m in ("instructions", "wavefronts", "conflicts")] == [88, 264, 88]
    assert [measured["st"][m] for m in ("instructions", "wavefronts", "conflicts")] == [88, 408, 232]


def test_struct_copies_nvcc_does_not_make_member_by_member_are_refused(tmp_path):
    source = tmp_path / "copies.cu"
    source.write_text(
        "struct Tagged { int id; double w; };\n"
        "struct Shorts { short a, b, c, d; };\n"
        "__global__ void padded(const Tagged *in) {\n"
        "  __shared__ Tagged tags[32];\n"
        "  tags[threadIdx.x] = in[threadIdx.x];\n"
        "}\n"
        "__global__ void narrow(const Shorts *in, short *out) {\n"
        "  __shared__ Shorts shorts[32];\n"
        "  Shorts v = in[threadIdx.x];\n"
        "  shorts[threadIdx.x] = v;\n"
        "  if (threadIdx.x > 64) { Shorts never = shorts[0]; out[0] = never.a; }\n"
        "}\n"
        "int main() { padded<<<1, 32>>>(0); narrow<<<1, 32>>>(0, 0); }\n"
    )
    padded = r"copies.cu:5: unsupported construct: a Tagged with padding copied"
    with pytest.raises(BankismError, match=padded):
        run(source, kernel="padded")
    narrow = r"copies.cu:10: unsupported construct: a whole struct with 2-byte members"
    with pytest.raises(BankismError, match=narrow):
        run(source, kernel="narrow")


def test_structs_passed_to_a_kernel_by_value():
    path = DECL / "struct_params.cu"
    listed(run(path, kernel="tiledProduct"), 30, "kernel parameter A.width (give -D A.width=VALUE)")
    report = run(path, kernel="tiledProduct", defines={"A.width": "64", "A.stride": "64", "B.stride": "32"})
    assert report["launch"]["parameters"] == {"A": None, "B": None, "C": None, "A.width": 64, "A.stride": 64,
                                              "B.stride": 32}
    assert {m["name"] for m in report["matrices"]} >= {"A.elements", "B.elements"}
    t = np.arange(256)
    ty, tx = t // 16, t % 16
    warps = {w: t[32 * w:32 * w + 32] for w in range(8)}
    a_tile = BASE
    tiles = 64 // 16  # A.width / TILE iterations of the m loop
    found = site(report, 30, "As", "store")
    stores = {w: np.array([a_tile + 4 * (16 * ty[u] + tx[u])] * tiles) for w, u in warps.items()}
    check_site(found, stores, 4, "store")
    assert found["wavefronts"] == 8 * tiles
    rows = {w: np.array([a_tile + 4 * (16 * ty[u] + e) for _ in range(tiles) for e in range(16)])
            for w, u in warps.items()}
    found = site(report, 33, "As", "load")
    check_site(found, rows, 4, "load")
    assert found["wavefronts"] == 8 * tiles * 16  # rows 2w, 2w+1: two words 16 banks apart per warp
    report = run(path, kernel="lockedSum")
    per_step = {}
    for i in (64, 32, 16, 8, 4, 2, 1):  # the tree reduction: threads below i add cache[tid + i]
        for w in range(4):
            lanes = t[32 * w:32 * w + 32]
            if (lanes < i).any():
                per_step.setdefault(w, []).append(lanes)
    loads, active = {}, {}
    for w, steps in per_step.items():
        lows = [i for i in (64, 32, 16, 8, 4, 2, 1) if 32 * w < i]
        loads[w] = np.array([BASE + 4 * (lanes + i) for lanes, i in zip(steps, lows, strict=True)])
        active[w] = np.array([lanes < i for lanes, i in zip(steps, lows, strict=True)])
    found = [s for s in report["sites"] if s["line"] == 50 and s["expression"] == "cache[threadIdx.x + i]"]
    assert len(found) == 1
    check_site(found[0], loads, 4, "load", active)
    found = site(report, 55, "cache", "load")  # lock.lock() spins on an atomicCAS of lock.mutex first
    check_site(found, {0: np.array([[BASE] + [0] * 31])}, 4, "load", {0: np.array([[True] + [False] * 31])})


def test_the_command_line_takes_fields_of_struct_parameters():
    from tests.helpers import one_line_error, run_cli

    path = DECL / "struct_params.cu"
    ran = run_cli("explain", path, "--kernel", "tiledProduct", "-D", "A.width=32", "-D", "A.stride=32",
                  "-D", "B.stride=32", "--json")
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["launch"]["parameters"]["A.width"] == 32
    ran = run_cli("explain", path, "--kernel", "tiledProduct", "-D", "A.width=wide")
    assert ran.returncode == 2 and one_line_error(ran) == "error: -D A.width=wide: not a number"
    ran = run_cli("explain", path, "--kernel", "tiledProduct", "-U", "A.width")
    assert ran.returncode == 2 and "expected a macro NAME" in one_line_error(ran)


PLACEMENT = ROOT / "traces" / "shared_placement"


def test_template_helpers_arrays_are_placed_where_the_h100_put_them():
    """traces/shared_placement/template_placement.txt: the offsets template_probe.cu printed on
    the H100 (partOf<T>'s static array per instantiation, a plain helper's, the kernels' own)."""
    measured = {}
    for line in (PLACEMENT / "template_placement.txt").read_text().splitlines():
        if line.startswith("k") and "=" in line:
            kernel, *pairs = line.split()
            measured[kernel] = {name: int(offset) for name, offset in (p.split("=") for p in pairs)}
    assert set(measured) == {"k1", "k2", "k3"}
    for kernel, offsets in measured.items():
        report = run(PLACEMENT / "template_probe.cu", kernel=kernel)
        got = {a["name"].replace("partOf", "part").replace("::part", ""): a["base_offset"]
               for a in report["shared_arrays"]}
        assert got == offsets, kernel


def test_block_reductions_with_a_static_array_per_instantiation():
    path = DECL / "block_reduce.cu"
    report = run(path, kernel="normalize")
    # own scale[2]; blockSum<double> only here (moved into the kernel, after its own arrays);
    # blockSum<float> also in rowSum (module scope, after): the order the PTX of this file has
    offsets = {a["name"]: a["base_offset"] for a in report["shared_arrays"]}
    assert offsets == {"scale": BASE, "blockSum<double>::partial": BASE + 8,
                       "blockSum<float>::partial": BASE + 8 + 256}
    warps = range(8)
    lane0 = np.zeros((1, 32), bool)
    lane0[0, 0] = True
    for t, base, width, calls in (("float", BASE + 264, 4, 23), ("double", BASE + 8, 8, 24)):
        stores = [s for s in report["sites"] if s["line"] == 14 and s["call_stack"][0]["line"] == calls]
        assert len(stores) == 1 and stores[0]["shared_array"] == f"blockSum<{t}>::partial"
        check_site(stores[0], {w: np.array([[base + width * w] + [0] * 31]) for w in warps}, width, "store",
                   {w: lane0 for w in warps})
        loads = [s for s in report["sites"] if s["line"] == 16 and s["call_stack"][0]["line"] == calls]
        first = np.zeros((1, 32), bool)
        first[0, :8] = True  # threadIdx.x < blockDim.x / 32
        check_site(loads[0], {0: np.array([[base + width * i for i in range(8)] + [0] * 24])}, width, "load",
                   {0: first})
    # anySum<double> (a deduced blockSum(T)) makes blockSum<double> shared with another kernel or
    # not, depending on its T: the two layouts differ, so the arrays are refused, in one line
    unknown_place = (r"block_reduce.cu:11: unsupported construct: where nvcc places the static __shared__ "
                     r"array partial of blockSum is not known")
    with pytest.raises(BankismError, match=unknown_place):
        run(path, kernel="normalize", defines={"WITH_ANY": "1"})
    report = run(path, kernel="rowSum", defines={"WITH_ANY": "1"})  # its one array goes first either way
    placed = [(a["name"], a["base_offset"]) for a in report["shared_arrays"]]
    assert placed == [("blockSum<float>::partial", BASE)]


def test_a_template_kernel_is_laid_out_after_the_instantiations_it_makes(tmp_path):
    """PTX of nvcc -arch=sm_90 (read locally): a template kernel's own arrays come after the
    static arrays of the template helpers it instantiates (a plain kernel's come before);
    each launch of the kernel with other arguments makes its own helper instantiation."""
    source = tmp_path / "norm.cu"
    source.write_text(
        "template <int NT> __device__ float blockSum(float v) {\n"
        "  constexpr int NW = NT / 32;\n"
        "  static __shared__ float part[NW];\n"
        "  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = v;\n"
        "  __syncthreads();\n"
        "  return threadIdx.x < NW ? part[threadIdx.x] : 0.f;\n"
        "}\n"
        "template <int NT> __global__ void norm(const float *x, float *y) {\n"
        "  __shared__ float mean;\n"
        "  float s = blockSum<NT>(x[threadIdx.x]);\n"
        "  if (threadIdx.x == 0) mean = s;\n"
        "  __syncthreads();\n"
        "  y[threadIdx.x] = x[threadIdx.x] - mean;\n"
        "}\n"
        "void host(int k) {\n"
        "  if (k == 256) norm<256><<<4, 256>>>(0, 0); else norm<1024><<<4, 1024>>>(0, 0);\n"
        "}\n"
    )
    for threads in (256, 1024):
        report = run(source, defines={"NT": str(threads)}, block=(threads, 1, 1))
        placed = [(a["name"], a["base_offset"]) for a in report["shared_arrays"]]
        assert placed == [(f"blockSum<{threads}>::part", BASE), ("mean", BASE + 4 * (threads // 32))]


def test_constructs_that_never_run_cost_nothing(tmp_path):
    """Enumerations, bases and struct copies the simulated block never reaches refuse nothing."""
    source = tmp_path / "unused.cu"
    source.write_text(
        "enum Odd { A = sizeof(int[]) };\n"
        "struct V { virtual int f(); };\n"
        "struct D : virtual V { int x; };\n"
        "struct Packed { char c; short s; };\n"
        "__device__ void never(Packed *s, Packed p) { s[threadIdx.x] = p; }\n"
        "#define LIMIT 64\n"
        "__global__ void k(float *out) {\n"
        "  __shared__ float s[64];\n"
        "  __shared__ Packed packs[64];\n"
        "  s[threadIdx.x] = 1.f;\n"
        "  if (threadIdx.x >= LIMIT) { D d; packs[0] = Packed{}; never(packs, packs[1]); }\n"
        "  out[threadIdx.x] = s[63 - threadIdx.x];\n"
        "}\n"
        "int main() { k<<<1, 64>>>(0); }\n"
    )
    report = run(source)
    assert [(s["line"], s["op"]) for s in report["sites"]] == [(10, "store"), (12, "load")]
    with pytest.raises(BankismError, match=r"unused.cu:3: unsupported construct: virtual base class"):
        run(source, defines={"LIMIT": "32"})


def test_brace_lists_returned_and_assigned():
    report = run(DECL / "braced_values.cu")
    lane = np.arange(32)
    # v = {1, 3}; q = ix(t) = {t, t + 1}; p = pair(3) = {3, 6}; z = {} = 0: s[(t + 1) % 32 * 4 + 3]
    found = site(report, 13, "s", "store")
    check_site(found, {0: np.array([BASE + 4 * ((lane + 1) % 32 * 4 + 3)])}, 4, "store")
    assert found["wavefronts"] == 4  # a stride of 4 words: 4-way


def test_a_template_struct_with_an_anonymous_union_and_its_own_operator_plus_equals():
    report = run(DECL / "packed.cu")
    lane = np.arange(32)
    # acc(1) += step(2): every lane holds 3, so iteration i stores row 3 - i
    found = site(report, 17, "sums", "store")
    check_site(found, {0: np.array([BASE + 4 * (33 * (3 - i) + lane) for i in range(4)])}, 4, "store")
    check_site(site(report, 20, "sums", "load"), {0: np.array([BASE + 4 * 33 * (lane % 4)])}, 4, "load")


def test_a_host_switch_picks_the_launch_and_other_template_kernels_tell_the_placement():
    """dispatch.cu: `switch (K) { case 64: rowNorm<64><<<...>>> ... }` with -D K picks the case's
    launch (grid, block and template arguments); blockSum<256> is also made by rowNorm4<256>
    (a template kernel whose call blockSum<NT> is resolved with each of its launches' arguments),
    so it stays at module scope after the kernel's own `mean`; blockSum<128> is made only by
    rowNorm<128> and moves in before it (the PTX of nvcc -arch=sm_90 has this order)."""
    path = DECL / "dispatch.cu"
    placed = {}
    for kernel, k, nt in (("rowNorm", 256, 256), ("rowNorm", 128, 128), ("rowNorm4", 1024, 256),
                          ("rowNorm4", 256, 64)):
        report = run(path, kernel=kernel, defines={"K": str(k), "N": "8"})
        launch = report["launch"]
        assert (launch["block"], launch["template"]) == ([k if kernel == "rowNorm" else k // 4, 1, 1],
                                                         {"NT": nt}), (kernel, k)
        placed[kernel, k] = {a["name"]: a["base_offset"] for a in report["shared_arrays"]}
        warps = (k if kernel == "rowNorm" else k // 4) // 32
        part = placed[kernel, k][f"blockSum<{nt}>::part"]
        stores = {w: np.array([[part + 4 * w] + [0] * 31]) for w in range(warps)}
        lane0 = np.zeros((1, 32), bool)
        lane0[0, 0] = True
        check_site(site(report, 8, f"blockSum<{nt}>::part", "store"), stores, 4, "store",
                   {w: lane0 for w in range(warps)})
    # traces/shared_placement/dispatch_placement.txt: what dispatch_probe.cu (the same kernels, the
    # same instantiations) printed on the H100
    measured = {}
    for line in (PLACEMENT / "dispatch_placement.txt").read_text().splitlines():
        if line.startswith("rowNorm"):
            kernel, *pairs = line.split()
            measured[kernel] = {name: int(offset) for name, offset in (p.split("=") for p in pairs)}
    assert measured["rowNorm<256>"] == {"mean": 1024, "part": 1028}
    for (kernel, k), nt in ((("rowNorm", 256), 256), (("rowNorm", 128), 128), (("rowNorm4", 1024), 256),
                            (("rowNorm4", 256), 64)):
        got = {("part" if "::" in name else name): offset for name, offset in placed[kernel, k].items()}
        assert got == measured[f"{kernel}<{nt}>"], (kernel, k)
    notes = run(path, kernel="rowNorm", defines={"K": "128", "N": "8"})["assumptions"]
    assert any("taken from the launch on line 37, the one of the file's 3 launches" in n for n in notes)
    with pytest.raises(BankismError, match=r"dispatch.cu:34: cannot evaluate the launch's block"):
        run(path, kernel="rowNorm")  # K unknown: the first launch, whose block needs K (its grid, N)
    unknown = run(path, kernel="rowNorm", defines={"K": "64"})  # N unknown: answered per block
    assert unknown["launch"]["grid"] is None and unknown["launch"]["block"] == [64, 1, 1]
    assert "the grid `grid` on line 34 cannot be evaluated" in unknown["assumptions"][0]
