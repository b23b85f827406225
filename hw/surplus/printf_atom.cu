// bankism: does device printf cost shared-memory atomic wavefronts? (issue 21, run 9)
// A public stmatrix demo (one warp, four printf calls, no atomics) measured 20 shared atom wavefronts with
// no shared atomic instruction. Each launch here: BLOCKS x THREADS threads; the first LANES lanes of each
// warp call printf CALLS times (a runtime count, so the calls stay); nothing else touches shared memory.
// Usage: printf_atom BLOCKS THREADS CALLS LANES     (the printed lines go to stdout)
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void printf_atom(int calls, int lanes, int* out)
{
    const int lane = threadIdx.x & 31;
    int sum = 0;
    if (lane < lanes)
        for (int i = 0; i < calls; ++i) sum += printf("b%d t%d call %d\n", blockIdx.x, threadIdx.x, i);
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

int main(int argc, char** argv)
{
    if (argc < 5) { fprintf(stderr, "usage: %s BLOCKS THREADS CALLS LANES\n", argv[0]); return 2; }
    const int blocks = atoi(argv[1]), threads = atoi(argv[2]), calls = atoi(argv[3]), lanes = atoi(argv[4]);
    int* out;
    if (cudaMalloc(&out, (size_t)blocks * threads * sizeof(int)) != cudaSuccess) return 1;
    printf_atom<<<blocks, threads>>>(calls, lanes, out);
    const cudaError_t e = cudaDeviceSynchronize();
    fprintf(stderr, "printf_atom %d %d %d %d: %s\n", blocks, threads, calls, lanes, cudaGetErrorString(e));
    return e == cudaSuccess ? 0 : 1;
}
