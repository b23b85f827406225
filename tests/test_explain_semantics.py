"""C semantics of the interpreter, read back from shared memory through the snapshot."""

from __future__ import annotations

import numpy as np

from bankism.explain import ExplainOptions, explain
from tests.test_explain_support import run


def _values(report: dict, array: str) -> np.ndarray:
    data = report["snapshot"]["arrays"][array]
    values = [int(c["source"][1:]) for c in data["cells"]]
    return np.array(values).reshape(data["shape"])


def _c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def test_semantics_kernel():
    report = run("semantics.cu", snapshot=(35, {}))
    r = _values(report, "r")
    t = np.arange(32)
    assert r[0].tolist() == [_c_div(x - 16, 5) for x in t]
    assert r[1].tolist() == [(x - 16) - 5 * _c_div(x - 16, 5) for x in t]
    assert r[2].tolist() == [x * 10 if x % 3 == 0 else -x for x in t]
    assert r[3].tolist() == [sum(k for k in range(x) if k % 2 == 0) for x in t]
    assert r[4].tolist() == [min(x + 90, 100) for x in t]
    assert r[5].tolist() == [((x << 27) & 0xFFFFFFFF) - (1 << 32) * (((x << 27) >> 31) & 1) >> 27 for x in t]
    assert r[6].tolist() == [x ^ 1 for x in t]
    assert r[7].tolist() == [x // 4 for x in t]
    assert _values(report, "u").tolist() == [(x - 1) % (1 << 32) for x in t]


def test_float_values_and_vector_components():
    source = """
__global__ void k(float *o)
{
    __shared__ float s[4][32];
    int t = threadIdx.x;
    float4 v = make_float4(t, 0.5f * t, t / 2, (float)t / 2);
    s[0][t] = v.x;
    s[1][t] = v.y;
    s[2][t] = v.z;
    s[3][t] = v.w;
    o[t] = s[0][t];
}
"""
    report = explain(source, "k.cu", ExplainOptions(grid=(1, 1, 1), block=(32, 1, 1),
                                                    snapshot=_request(10)))
    cells = report["snapshot"]["arrays"]["s"]["cells"]
    values = np.array([float(c["source"][1:]) for c in cells]).reshape(4, 32)
    t = np.arange(32)
    assert values[0].tolist() == t.tolist()
    assert values[1].tolist() == (0.5 * t).tolist()
    assert values[2].tolist() == (t // 2).tolist()
    assert values[3].tolist() == (t / 2).tolist()


def test_provenance_survives_copies_and_vector_loads_but_not_arithmetic():
    source = """
__global__ void k(const float *A, float *o)
{
    __shared__ float s[3][32];
    int t = threadIdx.x;
    float4 v = reinterpret_cast<const float4 *>(A)[t];
    float copy = v.z;
    s[0][t] = copy;
    s[1][t] = A[t] * 2.0f;
    __syncthreads();
    s[2][t] = s[0][(t + 1) % 32];
    o[t] = s[1][t];
}
"""
    report = explain(source, "k.cu", ExplainOptions(grid=(1, 1, 1), block=(32, 1, 1), snapshot=_request(11)))
    cells = report["snapshot"]["arrays"]["s"]["cells"]
    assert [c["source"] for c in cells[:32]] == [f"A[{4 * t + 2}]" for t in range(32)]
    assert [c["source"] for c in cells[32:64]] == ["computed"] * 32
    assert [c["source"] for c in cells[64:]] == [f"A[{4 * ((t + 1) % 32) + 2}]" for t in range(32)]


def test_divergent_branches_issue_only_running_warps_and_lanes():
    source = """
__global__ void k(float *o)
{
    __shared__ float s[128];
    int t = threadIdx.x;
    if (t >= 40 && t < 72)
        s[t] = 1.0f;
    o[t] = 0;
}
"""
    report = explain(source, "k.cu", ExplainOptions(grid=(1, 1, 1), block=(128, 1, 1)))
    (store,) = report["sites"]
    assert [w["warp"] for w in store["warps"]] == [1, 2]
    lanes = store["warps"][0]["lane_addresses"]
    assert lanes[:8] == [None] * 8 and lanes[8] == 1024 + 40 * 4


def test_atomics_on_shared_memory_are_recorded_and_computed():
    source = """
__global__ void k(int *o)
{
    __shared__ int bins[8];
    if (threadIdx.x < 8) bins[threadIdx.x] = 0;
    __syncthreads();
    atomicAdd(&bins[threadIdx.x % 8], 1);
    __syncthreads();
    o[threadIdx.x] = bins[0];
}
"""
    report = explain(source, "k.cu", ExplainOptions(grid=(1, 1, 1), block=(64, 1, 1), snapshot=_request(7)))
    (atomic,) = [s for s in report["sites"] if s["op"] == "atomic"]
    assert atomic["width"] == 4 and atomic["instructions"] == 2
    assert [c["source"] for c in report["snapshot"]["arrays"]["bins"]["cells"]] == ["=8"] * 8


def _request(line: int):
    from bankism.explain import SnapshotRequest

    return SnapshotRequest(line, ())


def test_many_constructs_at_once():
    report = run("constructs.cu")
    assert report["launch"]["grid"] == [16, 1, 1] and report["launch"]["block"] == [256, 1, 1]
    by_line = {}
    for found in report["sites"]:
        by_line.setdefault(found["line"], []).append((found["op"], found["width"], found["instructions"]))
    assert by_line[25] == [("store", 16, 4)]        # only tid < 32 runs: one warp, 4 iterations
    assert by_line[27] == [("load", 16, 32)]        # 8 warps x 4 iterations
    assert by_line[32] == [("store", 4, 8)]         # p[lane] through a pointer into tile
    assert by_line[34] == [("store", 16, 8)]        # *(float4 *)&tile[0][...]
    assert by_line[36] == [("store", 4, 8)]         # lane 0 of each warp
    assert by_line[40] == [("load", 4, 1), ("store", 4, 1), ("load", 4, 1)]
    shapes = {a["name"]: (a["dtype"], a["shape"], a["base_offset"]) for a in report["shared_arrays"]}
    assert shapes == {"buf": ("float4", [2, 32], 1024), "red": ("float", [8], 2048),
                      "tile": ("float", [32, 33], 2080)}
    (pointer_store,) = [s for s in report["sites"] if s["line"] == 32]
    assert pointer_store["array"] == "p" and pointer_store["shared_array"] == "tile"
    assert pointer_store["warps"][1]["lane_addresses"][:2] == [2080 + 33 * 4, 2080 + 33 * 4 + 4]
