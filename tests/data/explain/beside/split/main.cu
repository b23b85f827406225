// Declares bins.cu's kernel and launches it.
#include <cuda_runtime.h>

__global__ void spread_bins(unsigned *counts, const unsigned *keys, int stride);

int main()
{
    const int blocks = 64;
    unsigned *counts, *keys;
    cudaMalloc(&counts, blocks * 256 * sizeof(unsigned));
    cudaMalloc(&keys, blocks * 256 * sizeof(unsigned));
    spread_bins<<<blocks, 256>>>(counts, keys, 8);
    cudaDeviceSynchronize();
    return 0;
}
