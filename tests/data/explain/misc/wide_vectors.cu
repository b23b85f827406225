// bankism test kernel: 32-byte vectors in shared memory. nvcc moves a double4 or a longlong4 as two
// 16-byte accesses at offsets 0 and 16 (STS.128 / LDS.128, as a public n-body kernel's SASS shows).
// The tests also make it a double3 / float3 kernel: three 64-bit or 32-bit accesses.
#include <cuda_runtime.h>

__global__ void wide_vectors(const double4* in, double4* out, const longlong4* keys, longlong4* sorted)
{
    __shared__ double4 tile[64];
    __shared__ longlong4 key_tile[64];
    tile[threadIdx.x] = in[threadIdx.x];
    key_tile[63 - threadIdx.x] = keys[threadIdx.x];
    __syncthreads();
    double4 mine = tile[threadIdx.x ^ 1];
    out[threadIdx.x] = mine;
    sorted[threadIdx.x] = key_tile[threadIdx.x];
}

int main()
{
    double4 *in, *out;
    longlong4 *keys, *sorted;
    cudaMalloc(&in, 64 * sizeof(double4));
    cudaMalloc(&out, 64 * sizeof(double4));
    cudaMalloc(&keys, 64 * sizeof(longlong4));
    cudaMalloc(&sorted, 64 * sizeof(longlong4));
    wide_vectors<<<1, 64>>>(in, out, keys, sorted);
    return cudaDeviceSynchronize() != cudaSuccess;
}
