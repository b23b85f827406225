"""nvcc's merging of neighbouring scalar shared accesses (bankism/explain/simt/vectorize.py), held to the
SASS nvcc 13.0 gives our own kernel (tests/data/explain/vector/neighbours.cu, each line's SASS in its
comment) and, through the quiz kernel's H100 trace, to the hardware (test_explain_traces.py)."""

from __future__ import annotations

from bankism.explain.simt.vectorize import runtime_uniform_names
from tests.test_explain_support import DATA, run

KERNEL = DATA / "vector" / "neighbours.cu"
WARPS = 8


def _widths(report: dict) -> dict[tuple[int, str, str], tuple[int, int]]:
    return {(s["line"], s["shared_array"], s["op"]): (s["width"], s["instructions"] // WARPS)
            for s in report["sites"]}


def test_each_line_is_counted_as_the_sass_nvcc_gives_it():
    assert _widths(run(KERNEL, as_written=False)) == {
        (11, "tile", "store"): (4, 1), (12, "row_major", "store"): (4, 1), (13, "padded", "store"): (4, 1),
        (15, "flat", "store"): (8, 1),  # flat[2t] and flat[2t + 1]: one STS.64, at the second line
        (18, "tile", "load"): (16, 4),  # tile[ty][k], k = 0..15: four LDS.128
        (18, "row_major", "load"): (4, 16),  # row_major[k][tx]: not adjacent in a lane
        (19, "padded", "load"): (4, 16),  # rows of 17 floats: not 16-byte aligned
        (21, "flat", "load"): (16, 1),
        (22, "flat", "load"): (4, 4),  # ty * stride: a kernel argument nvcc cannot prove aligned
        (24, "flat", "load"): (4, 4),  # #pragma unroll 1: one LDS per iteration
    }


def test_merged_loads_cost_what_the_wide_instruction_costs():
    report = run(KERNEL, as_written=False)
    tile = next(s for s in report["sites"] if s["line"] == 18 and s["shared_array"] == "tile")
    # each LDS.128 of tile[ty][k..k+3]: the two rows a warp reads are two addresses, one wavefront per pair
    assert (tile["wavefronts"], tile["conflicts"]) == (64, 0)
    notes = report["assumptions"]
    assert any("counted as the 16-byte LDS.128 nvcc merges them into" in note for note in notes)


def test_as_written_counts_every_access_of_the_source():
    widths = _widths(run(KERNEL))
    assert widths[(18, "tile", "load")] == (4, 16)
    assert widths[(14, "flat", "store")] == widths[(15, "flat", "store")] == (4, 1)
    assert widths[(21, "flat", "load")] == (4, 4)


def test_a_merge_never_crosses_a_barrier(tmp_path):
    path = tmp_path / "barrier.cu"
    path.write_text(
        "__global__ void k(float *out) {\n"
        "    __shared__ float s[64];\n"
        "    s[2 * threadIdx.x] = 1.0f;\n"
        "    __syncthreads();\n"
        "    s[2 * threadIdx.x + 1] = 2.0f;\n"
        "    out[threadIdx.x] = s[threadIdx.x];\n"
        "}\n"
        "int main() { k<<<1, 32>>>(nullptr); }\n")
    assert {(s["line"], s["width"]) for s in run(path, as_written=False)["sites"]} == {(3, 4), (5, 4), (6, 4)}


def test_a_store_between_ends_the_loads_of_its_array(tmp_path):
    path = tmp_path / "rmw.cu"
    path.write_text(
        "__global__ void k(float *out) {\n"
        "    __shared__ float s[128];\n"
        "    float a = s[4 * threadIdx.x];\n"
        "    s[4 * threadIdx.x] = a * 2.0f;\n"
        "    float b = s[4 * threadIdx.x + 1];\n"
        "    out[threadIdx.x] = a + b;\n"
        "}\n"
        "int main() { k<<<1, 32>>>(nullptr); }\n")
    assert {(s["line"], s["op"], s["width"]) for s in run(path, as_written=False)["sites"]} == {
        (3, "load", 4), (4, "store", 4), (5, "load", 4)}


def test_names_that_come_from_the_launch_are_run_time_values():
    from bankism.explain.frontend.parse import parse
    from bankism.explain.frontend.preprocess import preprocess

    source = ("__device__ int twice(int v) { return 2 * v; }\n"
              "__global__ void k(float *out, int n) {\n"
              "    int rows = blockDim.x; int cols = n * 4; int half = twice(cols); int fixed = 16;\n"
              "    out[rows + cols + half + fixed] = 0.0f;\n"
              "}\n")
    program = parse(preprocess(source, "k.cu", {}))
    kernel = program.kernels[0]
    bodies = [(f, program.body(f)) for overloads in program.functions.values() for f in overloads]
    names = runtime_uniform_names(bodies, kernel)
    assert {"rows", "cols", "v", "n"} <= names and "fixed" not in names


def test_neighbours_merge_only_at_a_distance_the_source_fixes(tmp_path):
    """A scan's temp[ai] and temp[bi] are adjacent when the stride is 1, but nvcc cannot know it."""
    path = tmp_path / "scan.cu"
    path.write_text(
        "__global__ void k(float *out) {\n"
        "    __shared__ float temp[64];\n"
        "    temp[threadIdx.x] = 1.0f;\n"
        "    __syncthreads();\n"
        "    int ai = 2 * threadIdx.x, bi = ai + 1;\n"
        "    out[threadIdx.x] = temp[ai] + temp[bi];\n"
        "}\n"
        "int main() { k<<<1, 32>>>(nullptr); }\n")
    assert {(s["line"], s["width"]) for s in run(path, as_written=False)["sites"]} == {(3, 4), (6, 4)}


def test_neighbours_merge_whatever_their_order_in_the_stretch():
    """As[(ty + j) * BK + i] is adjacent over i, the outer loop: nvcc still merges it (16 LDS.128 a warp)."""
    widths = {(s["line"], s["shared_array"], s["op"]): (s["width"], s["instructions"] // 2)
              for s in run(DATA / "vector" / "outer_loop.cu", as_written=False)["sites"]}
    assert widths == {(10, "As", "store"): (4, 8), (11, "sh", "store"): (2, 1),
                      (17, "As", "load"): (16, 16), (20, "sh", "load"): (8, 2)}


def test_a_loop_too_large_to_unroll_merges_nothing_across_its_iterations():
    """nvcc keeps a k loop of 8 x 64 multiply-adds rolled: As is then read by scalar LDS (SASS: the file)."""
    def loads(bk: int, tm: int, tn: int) -> dict[int, tuple[int, int]]:
        report = run(DATA / "vector" / "unroll_size.cu", as_written=False,
                     defines={"BK_": str(bk), "TM_": str(tm), "TN_": str(tn)})
        return {s["line"]: (s["width"], s["instructions"] // 8) for s in report["sites"] if s["op"] == "load"}

    assert loads(8, 4, 4) == {21: (16, 8), 22: (16, 8)}
    assert loads(8, 8, 8) == {21: (4, 64), 22: (16, 16)}
    assert loads(4, 8, 8) == {21: (4, 32), 22: (16, 8)}
    assert loads(8, 2, 2) == {21: (16, 4), 22: (8, 8)}


def test_loads_nvcc_keeps_in_registers_and_scalars_it_merges():
    """reloads.cu: each line's count equals its SASS (in the file); the values the loop reads stay in
    registers, the value just stored is not loaded, and the two __shared__ scalars move as one 8 bytes."""
    report = run(DATA / "vector" / "reloads.cu", as_written=False)
    counts = {(s["line"], s["op"]): (s["width"], s["instructions"]) for s in report["sites"]}
    assert counts == {(9, "store"): (8, 1), (11, "store"): (4, 8), (14, "load"): (8, 8),
                      (17, "load"): (4, 32), (18, "store"): (4, 32)}
    assert any("nvcc keeps the value in a register" in note for note in report["assumptions"])


def test_a_volatile_program_loads_every_time(tmp_path):
    path = tmp_path / "v.cu"
    text = (DATA / "vector" / "reloads.cu").read_text()
    path.write_text(text.replace("__shared__ float tile[256];", "__shared__ volatile float tile[256];"))
    counts = {(s["line"], s["op"]): s["instructions"] for s in run(path, as_written=False)["sites"]}
    assert counts[(19, "load")] == 32 and counts[(14, "load")] == 8 * 1024 // 256


def test_the_accessed_scalar_itself_is_no_run_time_index():
    """`row_max = in[0]` made `row_max` a run-time name, and its own accesses were never merged."""
    report = run(DATA / "vector" / "reloads.cu", as_written=False)
    assert next(s for s in report["sites"] if s["line"] == 9)["width"] == 8


def test_components_of_a_float4_read_on_several_lines_are_one_load_at_the_first():
    body = run(DATA / "vector" / "vector_components.cu", kernel="body", as_written=False)
    loads = [s for s in body["sites"] if s["op"] == "load"]
    assert [(s["line"], s["width"], s["instructions"]) for s in loads] == [(13, 16, 256 * 8)]
    pair = run(DATA / "vector" / "vector_components.cu", kernel="pair", as_written=False)
    assert [(s["line"], s["width"]) for s in pair["sites"] if s["op"] == "load"] == [(27, 8)]
    as_written = run(DATA / "vector" / "vector_components.cu", kernel="body")
    assert sorted(s["line"] for s in as_written["sites"] if s["op"] == "load") == [13, 14, 15]


def test_a_run_time_index_merges_as_far_as_nvcc_can_prove_it_aligned():
    """runtime_aligned.cu's SASS (nvcc 13.0, its header): a thread offset from blockDim times 8 floats gives
    LDS.128, times 2 floats LDS.64, a run-time row of a 16-float-wide tile LDS.128 over the columns, and a
    row stride of blockDim scalar loads (all four were scalar before: any run-time name vetoed merging)."""
    path = DATA / "vector" / "runtime_aligned.cu"
    tiles = {key: value for key, value in _widths(run(path, kernel="tiles", as_written=False)).items()
             if key[0] in (27, 30, 33)}
    # per warp: 16 k x 8 rows / 4, 16 k x 8 columns / 4, 16 k x 2 / 2 (the SASS's 32, 32 and 16 per line)
    assert tiles == {(27, "a", "load"): (16, 32), (30, "b", "load"): (16, 32), (33, "c", "load"): (8, 16)}
    (strided,) = [s for s in run(path, kernel="strided", as_written=False)["sites"] if s["line"] == 51]
    assert (strided["width"], strided["instructions"]) == (4, 2 * 4)  # 2 warps x 4 LDS
