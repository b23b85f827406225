"""Reach of explain on constructs a held-out scout of public kernels found refused (issue 19,
reach-heldout): brace lists as arguments, ... Each site's per-warp addresses, wavefronts and
ideal are checked against the engine run on addresses computed here from the kernel's own
formulas, and against the wavefront count that follows from the bank arithmetic."""

from __future__ import annotations

import numpy as np
import pytest

from bankism.errors import BankismError
from tests.test_explain_support import BASE, DATA, check_site, listed, run, site

HELDOUT = DATA / "heldout"


def _words(words: np.ndarray) -> dict[int, np.ndarray]:
    """warp 0 -> (1, 32) byte addresses of 4-byte words ``words`` (one per lane) in ``s``."""
    return {0: (BASE + 4 * words).reshape(1, 32).astype(np.int64)}


def test_a_brace_list_argument_builds_the_parameters_type():
    report = run(HELDOUT / "braced_args.cu")
    t = np.arange(32)
    expected = {16: 2 * t, 17: 33 * t + 1, 18: 4 * t + 2, 19: 3 * t}
    for line, words in expected.items():
        check_site(site(report, line, "s", "store"), _words(words), 4, "store")
    wavefronts = {s["line"]: s["wavefronts"] for s in report["sites"] if s["op"] == "store"}
    assert [wavefronts[line] for line in expected] == [2, 1, 4, 1]


def test_local_arrays_sized_by_their_initializer_pointer_arrays_included():
    report = run(HELDOUT / "sized_by_init.cu")
    t = np.arange(32)
    # strides[] = {1, 2, 33}; frags[0][i] = 8t + i, frags[1][i] = 16t + i; 3 strides
    expected = {11: 2 * t, 12: 33 * t, 18: 8 * t + 3, 19: 16 * t + 1 + 3}
    for line, words in expected.items():
        check_site(site(report, line, "s", "store"), _words(words), 4, "store")
    wavefronts = {s["line"]: s["wavefronts"] for s in report["sites"] if s["op"] == "store"}
    assert [wavefronts[line] for line in expected] == [2, 1, 8, 16]


def _counts(report: dict, line: int, array: str, op: str) -> tuple[int, int, int, int]:
    found = site(report, line, array, op)
    return found["instructions"], found["wavefronts"], found["ideal"], found["conflicts"]


def test_arrays_of_fragments_passed_to_helpers_cost_what_they_cost_inline():
    report = run(HELDOUT / "fragment_helpers.cu")
    inline = run(DATA / "tc_constructs.cu", kernel="fragment_arrays")  # the same tiles, no helper
    # a[0], a[1] loaded through `fragment *frag`: LDSM.x4 from 48-byte rows, as inline
    assert _counts(report, 13, "As", "ldmatrix") == _counts(inline, 61, "As", "ldmatrix") == (2, 8, 8, 0)
    assert _counts(report, 33, "As", "ldmatrix") == _counts(inline, 62, "As", "ldmatrix")
    # acc[0], acc[1] stored through `fragment frag[]`: twice the inline row-major store's cost
    one = _counts(inline, 70, "Cs", "store")
    assert one == (4, 16, 8, 8)
    assert _counts(report, 18, "Cs", "store") == tuple(2 * n for n in one)
    # `float row[]` is a float *: row[2t] at Cs[1] (1280 bytes in, a multiple of the 128-byte row of banks)
    check_site(site(report, 21, "Cs", "store"),
               {0: (BASE + 2 * 16 * 24 * 2 + 16 * 20 * 4 + 4 * 2 * np.arange(32)).reshape(1, 32)}, 4, "store")


def test_memset_clears_per_thread_objects_and_refuses_shared_memory(tmp_path):
    report = run(HELDOUT / "memset_tile.cu")
    t = np.arange(32)
    expected = {11: 33 * t, 14: 2 * t, 17: 4 * t, 20: 8 * t}
    for line, words in expected.items():
        check_site(site(report, line, "s", "store"), _words(words), 4, "store")
    wavefronts = {s["line"]: s["wavefronts"] for s in report["sites"] if s["op"] == "store"}
    assert [wavefronts[line] for line in expected] == [1, 2, 4, 8]
    source = tmp_path / "shared_memset.cu"
    source.write_text("__global__ void k(float *o) {\n  __shared__ float s[64];\n"
                      "  if (threadIdx.x == 0) memset(s, 0, sizeof(s));\n"
                      "  o[threadIdx.x] = s[threadIdx.x];\n}\n"
                      "int main() { k<<<1, 32>>>(0); }\n")
    with pytest.raises(BankismError, match=r"shared_memset.cu:3: .*memset\(\) of shared memory"):
        run(source)


def test_launch_shapes_from_host_ceil_a_constexpr_helper_and_a_local_alias():
    report = run(HELDOUT / "host_launch.cu", defines={"n": "1000"})
    # ceil(1000 / 64.0) = 16 (not 1000 / 64 = 15), ceil_div(100, 32) = 4, ceil_div(1000, 32) = 32
    assert report["launch"]["grid"] == [16, 4, 1] and report["launch"]["block"] == [32, 1, 1]
    assert report["launch"]["template"] == {"T": "double"}  # `using Elem = double;`
    t = np.arange(32)
    expected = {10: 8 * 16 * t, 11: 8 * (4 * t + 1)}  # byte offsets of doubles, stride gridDim.x / .y
    for line, offsets in expected.items():
        check_site(site(report, line, "s", "store"), {0: (BASE + offsets).reshape(1, 32)}, 8, "store")
    assert [site(report, line, "s", "store")["wavefronts"] for line in expected] == [32, 8]


def test_a_function_named_as_a_value_is_called_through_a_template_parameter():
    report = run(HELDOUT / "function_values.cu")
    t = np.arange(32)
    expected = {12: 4 * t, 14: 33 * t}  # fmaxf(2, 4) = 4; twice_sum(0, 0.5) = 1
    for line, words in expected.items():
        check_site(site(report, line, "s", "store"), _words(words), 4, "store")
    assert [site(report, line, "s", "store")["wavefronts"] for line in expected] == [4, 1]


def test_parenthesised_variables_read_as_casts_are_variables():
    report = run(HELDOUT / "paren_vars.cu")
    t = np.arange(32)
    expected = {11: 1 + 32 * t, 12: 2 * t + 1, 13: t, 14: 4 * t}
    for line, words in expected.items():
        check_site(site(report, line, "tile", "store"), _words(words), 4, "store")
    assert [site(report, line, "tile", "store")["wavefronts"] for line in expected] == [32, 2, 1, 4]


def test_a_files_overloads_of_builtins_and_a_global_address_test(tmp_path):
    report = run(HELDOUT / "builtin_overloads.cu")
    t = np.arange(32)
    # CUDA's exp(0.0f) = 1 (not the file's float4 exp); the file's exp of a float4 of zeros sums to 4;
    # the file's float atomicMax calls CUDA's int one on s[8t + signbit(-1)]
    cases = ((16, 2 * t, "store", 2), (18, 4 * t, "store", 4), (8, 8 * t + 1, "atomic", 8))
    for line, words, op, wavefronts in cases:
        check_site(site(report, line, "s", op), _words(words), 4, op)
        assert site(report, line, "s", op)["wavefronts"] == wavefronts
    assert site(report, 8, "s", "atomic")["call_stack"][0]["line"] == 19
    source = tmp_path / "aligned.cu"
    text = (HELDOUT / "builtin_overloads.cu").read_text()
    source.write_text(text.replace("out[t] = 0.f;", "out[t] = s[t];"))
    assert any("depends on the address of global memory" in u["note"] for u in run(source)["unmodelled"])
    # a file's own function by a built-in's name whose void * parameter takes a float *
    own = tmp_path / "own_cp_async.cu"
    own.write_text("__device__ void cp_async(float *dst, const void *src) { *dst = 5.f; }\n"
                   "__global__ void k(const float *in) {\n  __shared__ float s[32 * 16];\n"
                   "  cp_async(&s[threadIdx.x * 16], in + threadIdx.x);\n}\n"
                   "int main() { k<<<1, 32>>>(0); }\n")
    mine = run(own)
    check_site(site(mine, 1, "s", "store"), _words(16 * t), 4, "store")
    assert site(mine, 1, "s", "store")["wavefronts"] == 16


def test_memcpy_between_per_thread_objects_of_other_types_reads_the_bytes_back():
    report = run(HELDOUT / "memcpy_bits.cu")
    t = np.arange(32)
    # float2 -> long long -> float2 keeps (1, 2); 1.0f is 0x3f800000; 2.0f's bits >> 28 are 4
    expected = {18: 2 * t, 20: 7 * t, 23: 4 * t}
    for line, words in expected.items():
        check_site(site(report, line, "s", "store"), _words(words), 4, "store")
    assert [site(report, line, "s", "store")["wavefronts"] for line in expected] == [2, 1, 4]


def test_aliases_declared_in_a_function_body_name_types_for_the_rest_of_it():
    report = run(HELDOUT / "local_alias.cu")
    t = np.arange(32)
    expected = {8: 3 * t, 9: 8 * t}  # (t << 33) >> 33 needs a 64-bit `wide`; sizeof(wide) = 8
    for line, words in expected.items():
        check_site(site(report, line, "s", "store"), _words(words), 4, "store")
    assert [site(report, line, "s", "store")["wavefronts"] for line in expected] == [1, 8]


def test_host_variables_changed_after_their_declaration_are_not_known(tmp_path):
    path = HELDOUT / "host_changes.cu"
    # config(blocks) sets it through a reference: its declared 1 is not its value, so the grid is not known
    _grid_not_known(run(path), "the grid `blocks` on line 16 cannot be evaluated")
    report = run(path, grid=(4, 1, 1))
    check_site(site(report, 5, "s", "store"), _words(4 * np.arange(32)), 4, "store")
    assert site(report, 5, "s", "store")["wavefronts"] == 4
    source = tmp_path / "assigned.cu"
    # a plain assignment the launch always follows is the value from there on (scout 9's programs);
    # under a condition the source does not decide it is not known (test_explain_host_values.py)
    source.write_text(path.read_text().replace("  config(blocks);\n", "  blocks = 2;\n"))
    assert run(source)["launch"]["grid"] == [2, 1, 1]
    source.write_text(path.read_text().replace("  config(blocks);\n", "  if (out) blocks = 2;\n"))
    _grid_not_known(run(source), "cannot be evaluated")
    source.write_text(path.read_text().replace("  config(blocks);\n", ""))  # show() takes a const&
    assert run(source)["launch"]["grid"] == [1, 1, 1]


def test_a_command_line_override_keeps_the_declared_default(tmp_path):
    """``if (argc > 1) blocks = atoi(argv[1]);``: a run without arguments launches with the declared
    value; explain uses it and says so. An ``else`` branch, or ``argc < 2``, runs without arguments:
    the value is then not known (regression: 9 public samples with such overrides were refused)."""
    path = HELDOUT / "host_changes.cu"
    main = "int main(int argc, char **argv) {\n  float *out = 0;"
    base = path.read_text().replace("void run(float *out) {", main)
    source = tmp_path / "argv.cu"
    source.write_text(base.replace("  config(blocks);\n", "  if (argc > 1) blocks = atoi(argv[1]);\n"))
    report = run(source)
    assert report["launch"]["grid"] == [1, 1, 1]
    assert any("blocks = 1 as declared" in note and "command line" in note for note in report["assumptions"])
    assert site(report, 5, "s", "store")["wavefronts"] == 1
    for override in ("  if (argc > 1) {} else blocks = 3;\n", "  if (argc < 2) blocks = 3;\n",
                     "  if (argc > 1) blocks = atoi(argv[1]);\n  blocks *= 2;\n"):
        source.write_text(base.replace("  config(blocks);\n", override))
        _grid_not_known(run(source), "cannot be evaluated")


def _grid_not_known(report: dict, words: str) -> None:
    """The launch's grid is not known: answered per block, the store whose stride is gridDim.x listed as
    not counted (it asks for --grid), nothing counted on its line."""
    assert report["launch"]["grid"] is None and words in report["assumptions"][0]
    assert listed(report, 5, "gridDim.x, the launch's grid (give --grid X,Y,Z)")["instructions"] == 1
    assert not [s for s in report["sites"] if s["line"] == 5]


def test_a_global_half2_atomic_and_half_bits_as_an_index():
    """A split-K epilogue's atomicAdd of half2 pairs into global memory costs nothing and
    refuses nothing; __half_as_ushort(2.0) is 0x4000, so the last store is row 4 of the tile."""
    report = run(HELDOUT / "split_k.cu")
    t = np.arange(32)
    pairs = {0: (BASE + 2 * ((t // 4) * 40 + (t % 4) * 8)).reshape(1, 32)}
    found = site(report, 10, "tile", "load")
    check_site(found, pairs, 4, "load")
    assert found["wavefronts"] == 4  # banks 20r + 4k (mod 32): bank 0 is hit by rows 0, 1, 3 and 6
    found = site(report, 16, "tile", "store")
    check_site(found, {0: (BASE + 2 * (4 * 40 + t)).reshape(1, 32)}, 2, "store")
    assert found["wavefronts"] == 1
    assert not [s for s in report["sites"] if s["line"] == 12]


def test_a_define_for_a_host_variable_is_not_pasted_into_the_kernel(tmp_path):
    """-D m=1024 sets the host's m (the grid m / 64) and leaves the kernel's own loop counter
    m alone: pasted as a macro it made `for (int 1024 = 0; 1024 < 4; ...)`, a loop that never
    ran, and its loads vanished without a word (found by a fresh scout)."""
    source = tmp_path / "shadow.cu"
    source.write_text(
        "__global__ void k(float *out) {\n"
        "  __shared__ float s[1024];\n"
        "  s[threadIdx.x] = threadIdx.x;\n"
        "  __syncthreads();\n"
        "  float acc = 0;\n"
        "  for (int m = 0; m < 4; m++) acc += s[threadIdx.x * 4 + m];\n"
        "  out[threadIdx.x] = acc;\n"
        "}\n"
        "void run(float *o, int m) { k<<<m / 64, 64>>>(o); }\n"
    )
    report = run(source, defines={"m": "1024"})
    assert report["launch"]["grid"] == [16, 1, 1]
    t = np.arange(64)
    loads = {w: np.array([BASE + 4 * (4 * t[32 * w:32 * w + 32] + m) for m in range(4)]) for w in range(2)}
    found = site(report, 6, "s", "load")
    check_site(found, loads, 4, "load")
    assert found["wavefronts"] == 2 * 4 * 4  # words 4t + m: lanes 8 apart share a bank, 4-way
    notes = report["assumptions"]
    assert any(note.startswith("-D m=1024 sets the variable m the file declares") for note in notes)
    # a name the source tests in the preprocessor stays a macro, as nvcc's -D makes it
    source.write_text(source.read_text().replace("int m)", "int m)\n#ifdef m\n#endif\n"))
    with pytest.raises(BankismError, match=r"shadow.cu:6: cannot parse this code: `for \(int 1024 = 0"):
        run(source, defines={"m": "1024"})


def test_an_error_in_a_loop_header_refuses_instead_of_dropping_the_loop(tmp_path):
    source = tmp_path / "header.cu"
    source.write_text(
        "__global__ void k(float *out) {\n"
        "  __shared__ float s[64];\n"
        "  for (int 4 = 0; 4 < 2; 4++) s[threadIdx.x] = 1.f;\n"
        "  out[threadIdx.x] = s[threadIdx.x];\n"
        "}\n"
        "int main() { k<<<1, 32>>>(0); }\n"
    )
    with pytest.raises(BankismError, match=r"header.cu:3: cannot parse this code: `for \(int 4 = 0"):
        run(source)


def test_struct_templates_as_template_arguments_and_statics_through_an_object(tmp_path):
    """tiles<Block<32, 32>, Block<1, 32>> from a host alias: Tile::kM is 32, the row pitch
    s.cols_ 33 (a static member named through an object; `Rows s(raw);` is the object s built
    from the variable raw, which tree-sitter reads as a function declaration), so both accesses
    are words 33t (bank t): one wavefront each. A reference member bound by a constructor
    (`Tile &tile_;`, `: tile_(tile)`) is the object it was bound to, also called by name inside
    a method (`tile_(r, c) = v`); it was an internal error."""
    path = HELDOUT / "struct_args.cu"
    report = run(path, kernel="tiles")
    assert report["launch"]["template"] == {"Tile": "Block<32, 32>", "Warp": "Block<1, 32>"}
    t = np.arange(32)
    for line, op in ((16, "store"), (18, "load")):
        found = site(report, line, "raw", op)
        check_site(found, _words(33 * t), 4, op)
        assert found["wavefronts"] == 1
    # the same instantiation given with -D, as explain --trace passes a recorded one (`32ul`)
    given = run(path, kernel="tiles", defines={"Tile": "Block<32ul, 32ul>", "Warp": "Block<1, 32>"})
    assert [s["warps"] for s in given["sites"]] == [s["warps"] for s in report["sites"]]
    report = run(path, kernel="bound")
    found = site(report, 24, "raw", "store")
    check_site(found, _words(33 * t), 4, "store")
    assert found["wavefronts"] == 1 and found["call_stack"][0]["line"] == 32
    report = run(path, kernel="deduced")  # Loader<decltype(rows)>: the Span type of rows
    found = site(report, 24, "raw", "store")
    check_site(found, _words(33 * t + 1), 4, "store")
    assert found["wavefronts"] == 1 and found["call_stack"][0]["line"] == 42
    unbound = tmp_path / "unbound.cu"
    unbound.write_text(path.read_text().replace(": tile_(tile) {}", "{}"))
    with pytest.raises(BankismError, match=r"unbound.cu:24: unsupported construct: reference member tile_ of "
                                           r"Loader<Span<float, 32, 33>> not bound"):
        run(unbound, kernel="bound")


def test_a_shift_after_a_comparison_is_not_a_template(tmp_path):
    """`j < n >> 3` (tree-sitter reads `j<n> > 3`): j is a variable, so it is a comparison;
    n >> 3 = 256 gives 8 iterations of the 32 lanes' stores, words j (bank j % 32)."""
    source = tmp_path / "shift.cu"
    source.write_text(
        "__global__ void k(float *out, int n) {\n"
        "  __shared__ float s[256];\n"
        "  for (int j = threadIdx.x; j < n >> 3; j += 32) s[j] = 1.f;\n"
        "  __syncthreads();\n"
        "  out[threadIdx.x] = s[threadIdx.x];\n"
        "}\n"
        "int main() { k<<<1, 32>>>(0, 2048); }\n"
    )
    report = run(source)
    t = np.arange(32)
    found = site(report, 3, "s", "store")
    check_site(found, {0: np.array([BASE + 4 * (t + 32 * i) for i in range(8)])}, 4, "store")
    assert found["wavefronts"] == 8


def test_nested_brace_lists_vector_arrays_and_a_self_assigning_initializer():
    """`int idx[2][2] = {{3}, {5}}` puts 5 in idx[1][0] (flattened, it went to idx[0][1] and
    the store landed 5 words early: a wrong answer); `float4 c[2][2] = {{zero}}` and `int
    offset = offset = 2t` were refused. Words 2t + 7: lanes 16 apart share a bank, 2-way."""
    report = run(HELDOUT / "initializers.cu")
    t = np.arange(32)
    found = site(report, 10, "s", "store")
    check_site(found, _words(2 * t + 7), 4, "store")
    assert found["wavefronts"] == 2


def test_an_enumerator_as_a_launch_template_argument(tmp_path):
    """`k<WRITE><<<...>>>` with `enum test_t { READ = 1, WRITE, BOTH }`: WRITE is 2, so the
    kernel's `if (MODE == WRITE)` store runs (words 2t: lanes 16 apart share a bank, 2-way)."""
    source = tmp_path / "modes.cu"
    source.write_text(
        "enum test_t { READ = 1, WRITE, BOTH };\n"
        "template <test_t MODE> __global__ void k(float *out) {\n"
        "  __shared__ float s[64];\n"
        "  if (MODE == WRITE) s[2 * threadIdx.x] = 1.f;\n"
        "  out[threadIdx.x] = s[threadIdx.x];\n"
        "}\n"
        "int main() { k<WRITE><<<1, 32>>>(0); }\n"
    )
    report = run(source)
    assert report["launch"]["template"] == {"MODE": 2}
    found = site(report, 4, "s", "store")
    check_site(found, _words(2 * np.arange(32)), 4, "store")
    assert found["wavefronts"] == 2


@pytest.mark.parametrize(("t", "stride", "offset"), [("half", 2, 4 + 2), ("float", 1, 8 + 8)])
def test_type_traits_choose_types_and_values(t, stride, offset):
    """is_same_v<T, half> picks the stride; conditional_t<is_same_v<T, half>, float, double> is the
    accumulator (its size lands in c[0] through `accumulate(acc_t c[4])`, whose acc_t is deduced
    from the array argument); conditional<is_same<T, float>::value, double, T>::type the wide type.
    half: stride 2, float (4) and half (2); float: stride 1, double (8) and double (8)."""
    report = run(HELDOUT / "traits.cu", kernel="traits", defines={"T": t})
    found = site(report, 18, "s", "store")
    check_site(found, _words(stride * np.arange(32) + offset), 4, "store")
    assert found["wavefronts"] == stride  # stride 2: lanes 16 apart share a bank
    report = run(HELDOUT / "traits.cu", kernel="aliased", defines={"T": t})
    width = {"half": 4, "float": 8}[t]  # acc_t: float for half, double for float
    assert report["shared_arrays"][0]["size_bytes"] == 64 * width
    found = site(report, 27, "s", "store")
    check_site(found, {0: np.array([BASE + width * np.arange(32)])}, width, "store")
    assert found["wavefronts"] == width // 4


def test_range_based_for_loops():
    """`for (int k : {1, 3})`: two stores, words 2t + k (lanes 16 apart share a bank: 2-way);
    `for (auto &r : regs)` four loads of words 4t (4-way); `for (const int &j : idx)` over
    {5, 7}: words t + j, one wavefront each."""
    report = run(HELDOUT / "range_for.cu")
    t = np.arange(32)
    found = site(report, 5, "tile", "store")
    check_site(found, {0: np.array([BASE + 4 * (2 * t + k) for k in (1, 3)])}, 4, "store")
    assert found["wavefronts"] == 4
    found = site(report, 6, "tile", "load")
    check_site(found, {0: np.array([BASE + 4 * (4 * t)] * 4)}, 4, "load")
    assert found["wavefronts"] == 16
    found = site(report, 9, "tile", "store")
    check_site(found, {0: np.array([BASE + 4 * (t + j) for j in (5, 7)])}, 4, "store")
    assert found["wavefronts"] == 2


def test_the_address_of_a_member_of_a_local_struct():
    """`(half2 *)&k.z` of `struct half4 {half x, y, z, w;}` holding 1, 2, 3, 4: pair->x is 3 and
    k.w still 4 after the struct moved into memory, so the store is words t + 7; a struct of
    mixed member types is refused in one line."""
    report = run(HELDOUT / "member_address.cu")
    found = site(report, 12, "s", "store")
    check_site(found, _words(np.arange(32) + 7), 4, "store")
    assert found["wavefronts"] == 1


def test_the_address_of_a_member_of_a_mixed_struct_is_refused(tmp_path):
    source = tmp_path / "mixed.cu"
    source.write_text(
        "struct Mixed { float a; int b; short c; };\n"
        "__global__ void k(float *out) {\n"
        "  __shared__ float s[64];\n"
        "  Mixed m = {1.f, 2, 3};\n"
        "  float *p = &m.a;\n"
        "  s[threadIdx.x] = *p;\n"
        "  out[threadIdx.x] = s[threadIdx.x];\n"
        "}\n"
        "int main() { k<<<1, 32>>>(0); }\n"
    )
    refused = (r"mixed.cu:5: unsupported construct: address of a member of a local Mixed \(members of "
               r"different types or with padding\)")
    with pytest.raises(BankismError, match=refused):
        run(source)


def test_a_malformed_range_based_for_is_refused(tmp_path):
    """`for (int k : {1, ) ...` was read by tree-sitter's error recovery as a loop over {1}."""
    source = tmp_path / "bad_range.cu"
    source.write_text(
        "__global__ void k(float *out) {\n"
        "  __shared__ float s[64];\n"
        "  for (int k : {1, ) s[k] = 1.f;\n"
        "  out[threadIdx.x] = s[threadIdx.x];\n"
        "}\n"
        "int main() { k<<<1, 32>>>(0); }\n"
    )
    with pytest.raises(BankismError, match=r"bad_range.cu:3: cannot parse this code"):
        run(source)


def test_aggregate_initialization_of_a_struct_with_a_reference_member_is_refused(tmp_path):
    source = tmp_path / "aggregate.cu"
    source.write_text(
        "struct R { int &x; int y; };\n"
        "__global__ void k(float *out) {\n"
        "  __shared__ float s[64];\n"
        "  int a = 3, b = 5;\n"
        "  R r{a, b};\n"
        "  s[threadIdx.x + r.y] = 1.f;\n"
        "  out[threadIdx.x] = s[threadIdx.x + r.x];\n"
        "}\n"
        "int main() { k<<<1, 32>>>(0); }\n"
    )
    refused = (r"aggregate.cu:5: unsupported construct: aggregate initialization of R, which has reference "
               r"members")
    with pytest.raises(BankismError, match=refused):
        run(source)



@pytest.mark.parametrize(("given", "refused"), [
    ("", r"-D Tile=:  is not a type bankism knows"),  # an empty value recursed until Python's limit
    ("Block<32ul, 32ul>>>", r"-D Tile=Block<32ul, 32ul>>>: Block<32ul, 32ul>>> is not a type"),  # was taken
    ("Block<1, 2, 3, 4>", r"struct_args.cu:4: Block takes 2 template argument\(s\), not 4"),  # ran with 2
])
def test_a_struct_template_argument_given_with_d_is_checked(given, refused):
    with pytest.raises(BankismError, match=refused):
        run(HELDOUT / "struct_args.cu", kernel="tiles", defines={"Tile": given, "Warp": "Block<1, 32>"})


def test_unnamed_template_parameters_are_not_an_internal_error():
    """`typename = ...` and `int = 0` without names were an AttributeError (a public PTX GEMM's SFINAE
    guards): the parameters take their defaults and the helper's stride-2 store is 2-way."""
    report = run(HELDOUT / "unnamed_template_params.cu")
    t = np.arange(32)
    words = {0: (BASE + 8 * t).reshape(1, 32).astype(np.int64)}
    check_site(site(report, 7, "tile", "store"), words, 4, "store")
    assert [s["wavefronts"] for s in report["sites"] if s["op"] == "store"] == [2]


def _store_wavefronts(report: dict) -> dict[int, int]:
    return {s["line"]: s["wavefronts"] for s in report["sites"] if s["op"] == "store"}


def test_overloaded_function_templates_are_ordered_as_nvcc_orders_them():
    """(T, T) beats (T1, T2) for two ints, (T1, T2) alone deduces for int and unsigned, (T*, T) beats (T1,
    T2) for a pointer and its pointee: strides 1, 2 and 4 (nvcc's SASS shifts the lane by 2, 3 and 4)."""
    report = run(HELDOUT / "overload_ordering.cu")
    t = np.arange(32)
    for line, stride in ((14, 1), (15, 2), (16, 4)):
        check_site(site(report, line, "tile", "store"), _words(stride * t), 4, "store")
    assert [_store_wavefronts(report)[line] for line in (14, 15, 16)] == [1, 2, 4]


def test_a_function_pointer_specialization_the_kernel_does_not_use_is_no_refusal():
    report = run(HELDOUT / "function_pointer_traits.cu", defines={"p.n": "1048576"})
    threads = np.arange(256).reshape(8, 1, 32)  # 8 warps, one execution each
    addresses = (BASE + 4 * (2 * threads % 256)).astype(np.int64)
    check_site(site(report, 14, "s", "store"), dict(enumerate(addresses)), 4, "store")
    assert _store_wavefronts(report)[14] == 16  # 8 warps, 2-way each


@pytest.mark.parametrize(("kernel", "defines", "line", "wavefronts"), [
    ("fill_row", {}, 13, 2),  # Arith T = double, from main's launch
    ("fill_row", {"T": "float", "BS": "32"}, 13, 1),  # -D T=float was "not a number"
    ("fill_pairs", {}, 22, 2),  # std::floating_point T = float, stride 2
])
def test_a_type_parameter_constrained_by_a_concept_is_a_type(kernel, defines, line, wavefronts):
    extra = {"grid": (4, 1, 1), "block": (32, 1, 1)} if defines else {}
    report = run(HELDOUT / "concept_params.cu", kernel=kernel, defines=defines, **extra)
    assert _store_wavefronts(report)[line] == wavefronts


def test_a_pointer_to_an_array_views_shared_memory_by_rows():
    """`float (*t)[33] = reinterpret_cast<float (*)[33]>(raw)`, a `float (*rows)[33]` parameter and `t + k`:
    t[r][c] is raw[33 r + c] (a held-out public WMMA HGEMM's view of its dynamic shared memory, refused
    before; on the H100 its ldmatrix lines then equal the recorded trace)."""
    report = run(HELDOUT / "pointer_to_array.cu")
    x = np.arange(32)
    per_warp = {y: (BASE + 4 * (33 * y + x)).reshape(1, 32) for y in range(32)}
    check_site(site(report, 14, "raw", "store"), per_warp, 4, "store")
    columns = {y: (BASE + 4 * (33 * x + y)).reshape(1, 32) for y in range(32)}
    check_site(site(report, 16, "raw", "load"), columns, 4, "load")
    diagonal = {y: (BASE + 4 * 34 * x).reshape(1, 32) for y in range(32)}
    check_site(site(report, 19, "raw", "store"), diagonal, 4, "store")
    assert _store_wavefronts(report)[19] == 64  # 32 warps, 2-way each


def test_a_guarded_copy_in_a_repeated_loop_is_counted_only_where_it_runs():
    """The next-stage cp.async under `if (k + 1 < STEPS)` runs in 63 of 64 iterations; the repeat probe
    recorded it in all 64 (PTX, WMMA and memcpy_async accesses skipped the check that lanes whose
    condition is not known make no shared access)."""
    report = run(HELDOUT / "guarded_async_loop.cu")
    copies = sorted(s["instructions"] for s in report["sites"] if s["op"] == "ldgsts")
    assert copies == [1, 63]
    assert next(s["instructions"] for s in report["sites"] if s["op"] == "load") == 64


@pytest.mark.parametrize(("defines", "guarded"), [({}, None), ({"aux": "0"}, None), ({"aux": "1"}, 8)])
def test_a_null_test_of_a_kernel_pointer_is_known_from_the_launch_or_d(defines, guarded):
    """The launch passes nullptr for aux: the guarded 8-way read does not run; -D aux=1 makes it run."""
    report = run(HELDOUT / "null_guard.cu", defines=defines)
    reads = {s["line"]: s["wavefronts"] for s in report["sites"] if s["op"] == "load"}
    assert reads.get(11) == guarded


def test_a_null_test_nothing_states_asks_for_a_d(tmp_path):
    path = tmp_path / "unstated.cu"
    path.write_text((HELDOUT / "null_guard.cu").read_text().replace("nullptr, 1 << 20", "out, 1 << 20"))
    report = run(path)
    assert any("whether pointer aux is null (give -D aux=0 for nullptr, -D aux=1 for another)" in u["note"]
               for u in report["unmodelled"])


def test_a_wmma_load_from_global_memory_needs_no_known_ldm():
    report = run(HELDOUT / "wmma_global_ldm.cu")
    (shared,) = [s for s in report["sites"] if s["op"] == "ldmatrix"]
    assert (shared["line"], shared["instructions"], shared["wavefronts"], shared["ideal"]) == (19, 1, 8, 4)


def test_a_pointer_define_that_is_not_a_number_is_one_error_line():
    from tests.helpers import one_line_error, run_cli

    line = one_line_error(run_cli("explain", HELDOUT / "null_guard.cu", "-D", "aux=maybe"))
    assert line == "error: -D aux=maybe: not a number"
