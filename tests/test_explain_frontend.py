"""The front end: preprocessing with a line map and -D, parsing kernels and launches (at
file scope too), and evaluating the launch configuration from host code."""

from __future__ import annotations

from bankism.explain import ExplainOptions, explain
from bankism.explain.frontend.parse import parse, parse_number
from bankism.explain.frontend.preprocess import preprocess


def test_line_map_survives_includes_comments_and_multi_line_macros():
    source = ("#include <cuda_runtime.h>\n#include \"not_here.h\"\n/* a\n comment */\n"
              "#define TWICE(x) \\\n   ((x) * 2)\n__global__ void k(int *o)\n{\n    o[0] = TWICE(3);\n}\n")
    pre = preprocess(source, "k.cu")
    rows = pre.text.split("\n")
    row = next(i for i, text in enumerate(rows) if "o[0]" in text)
    assert pre.origin(row) == ("k.cu", 9)
    assert "((3) * 2)" in rows[row]


def test_d_wins_over_the_files_define():
    pre = preprocess("#define TILE 16\nint x = TILE;\n", "k.cu", {"TILE": "32"})
    assert "int x = 32;" in pre.text


def test_parse_finds_template_kernel_device_function_and_launches():
    source = ("template <int BM, typename T>\n__global__ void k(const T *a, int n) { }\n"
              "__device__ float helper(float x) { return x; }\n"
              "void host() { k<64, float><<<dim3(2, 2), 128, 0>>>(a, 5); }\n")
    program = parse(preprocess(source, "k.cu"))
    (kernel,) = program.kernels
    assert kernel.name == "k" and [p.name for p in kernel.template_params] == ["BM", "T"]
    assert [p.name for p in kernel.params] == ["a", "n"]
    assert "helper" in program.functions and not program.functions["helper"][0].is_kernel
    (launch,) = program.launches
    assert launch.kernel == "k" and launch.line == 4 and len(launch.config) == 3


def test_number_literals():
    assert parse_number("16") == (16, "int")
    assert parse_number("16u") == (16, "unsigned int")
    assert parse_number("0x10") == (16, "int")
    assert parse_number("0xffffffff") == (0xFFFFFFFF, "unsigned int")
    assert parse_number("1ULL") == (1, "unsigned long long")
    assert parse_number("3000000000") == (3000000000, "long")
    assert parse_number("1.5f") == (1.5, "float")
    assert parse_number("1e-3") == (0.001, "double")


def test_launch_configuration_from_host_constants_macros_and_template_arguments():
    source = """
#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))
constexpr int THREADS = 128;
template <int ROWS>
__global__ void k(float *o, int n)
{
    __shared__ float s[ROWS][THREADS];
    s[threadIdx.y][threadIdx.x] = 1.0f;
    o[0] = s[0][n / 1000];
}
void run(float *o, int n)
{
    const int rows = 2;
    dim3 block(THREADS, rows);
    dim3 grid(CEIL_DIV(n, THREADS));
    k<rows><<<grid, block>>>(o, n);
}
"""
    report = explain(source, "k.cu", ExplainOptions(defines={"n": "1000"}))
    launch = report["launch"]
    assert launch["grid"] == [8, 1, 1] and launch["block"] == [128, 2, 1]
    assert launch["template"] == {"ROWS": 2} and launch["parameters"] == {"n": 1000}
    assert report["shared_arrays"][0]["shape"] == [2, 128]


def test_unused_shared_arrays_take_no_space():
    source = """
__global__ void k(float *o)
{
    __shared__ float unused[1000];
    __shared__ float used[32];
    used[threadIdx.x] = 1.0f;
    o[0] = used[0];
}
"""
    report = explain(source, "k.cu", ExplainOptions(grid=(1, 1, 1), block=(32, 1, 1)))
    assert [(a["name"], a["base_offset"]) for a in report["shared_arrays"]] == [("used", 1024)]
