// Launches the kernels of kernels/tile_kernels.cuh (which has no launch of its own).
#include <cuda_runtime.h>
#include "kernels/tile_kernels.cuh"

int main()
{
    const int n = 1024;
    float *in, *out;
    cudaMalloc(&in, n * n * sizeof(float));
    cudaMalloc(&out, n * n * sizeof(float));
    dim3 block(32, 32);
    dim3 grid(n / 32);
    column_read<32><<<grid, block>>>(out, in, n);
    padded_read<<<grid, block>>>(out, in, n);
    cudaDeviceSynchronize();
    return 0;
}
