"""Writes wmma_shapes_cases.cu: one kernel per WMMA fragment (shape, use, element type, layout)
and ldm 40/72 that loads the fragment from shared memory (or loads/stores an accumulator) after
a barrier, so that the SASS after the barrier is the load/store alone.

Usage: python3 wmma_shapes_cases.py   (then nvcc -arch=sm_90 -O3 -cubin and cuobjdump -sass)"""

from pathlib import Path

#: name: (m, n, k, fragment element, memory element, accumulator element)
SHAPES = {
    "h16": (16, 16, 16, "half", "half", "float"),
    "h32x8": (32, 8, 16, "half", "half", "float"),
    "h8x32": (8, 32, 16, "half", "half", "float"),
    "tf32": (16, 16, 8, "wmma::precision::tf32", "float", "float"),
    "d884": (8, 8, 4, "double", "double", "double"),
    "bf32x8": (32, 8, 16, "__nv_bfloat16", "__nv_bfloat16", "float"),
    "s8_32x8": (32, 8, 16, "signed char", "signed char", "int"),
}
LDS = (40, 72)


def operand(name: str, m: int, n: int, k: int, frag_t: str, mem_t: str, use: str, layout: str) -> list[str]:
    kernel = f"{name}_{use[-1]}_{layout[:3]}"
    lines = [
        f"template <int LD> __global__ void {kernel}(const {mem_t}* in, float* out) {{",
        f" __shared__ __align__(128) {mem_t} S[64*LD];",
        " for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = in[i];",
        " __syncthreads();",
        f" wmma::fragment<wmma::{use}, {m}, {n}, {k}, {frag_t}, wmma::{layout}> f;",
        " wmma::load_matrix_sync(f, S, LD);",
        " for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];",
        "}",
    ]
    lines += [f"template __global__ void {kernel}<{ld}>(const {mem_t}*, float*);" for ld in LDS]
    return lines


def accumulator(name: str, m: int, n: int, k: int, mem_t: str, acc_t: str, layout: str, op: str) -> list[str]:
    kernel = f"{name}_c{acc_t[0]}_{op}_{layout}"
    if op == "ld":
        body = [f" wmma::load_matrix_sync(f, S, LD, wmma::mem_{layout}_major);",
                " for (int i = 0; i < f.num_elements; i++)"
                " out[threadIdx.x*f.num_elements+i] = (float)f.x[i];"]
    else:
        body = [" for (int i = 0; i < f.num_elements; i++)"
                f" f.x[i] = ({acc_t})in[threadIdx.x*f.num_elements+i];",
                f" wmma::store_matrix_sync(S, f, LD, wmma::mem_{layout}_major);",
                " __syncthreads(); out[threadIdx.x] = (float)S[threadIdx.x*7];"]
    lines = [
        f"template <int LD> __global__ void {kernel}(const {mem_t}* in, float* out) {{",
        f" __shared__ __align__(128) {acc_t} S[64*LD];",
        f" for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = ({acc_t})in[i];",
        " __syncthreads();",
        f" wmma::fragment<wmma::accumulator, {m}, {n}, {k}, {acc_t}> f;",
        *body,
        "}",
    ]
    lines += [f"template __global__ void {kernel}<{ld}>(const {mem_t}*, float*);" for ld in LDS]
    return lines


def main() -> None:
    out = ["#include <mma.h>", "#include <cuda_fp16.h>", "#include <cuda_bf16.h>", "using namespace nvcuda;"]
    for name, (m, n, k, frag_t, mem_t, acc_t) in SHAPES.items():
        for use in ("matrix_a", "matrix_b"):
            for layout in ("row_major", "col_major"):
                out += operand(name, m, n, k, frag_t, mem_t, use, layout)
        for acc in [acc_t] + (["half"] if mem_t == "half" else []):
            for layout in ("row", "col"):
                for op in ("ld", "st"):
                    out += accumulator(name, m, n, k, mem_t, acc, layout, op)
    Path(__file__).with_suffix(".cu").write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
