// bankism: `record` with its default --blocks auto on a full-size launch (issue 22): an 8192x8192 float
// transpose through an unpadded 32x32 shared tile (block 32x8, grid 256x256: 65,536 blocks, about
// 8.4 million shared warp-instructions, more than the default --max-records of 1,000,000).
#include <cstdio>
#include <cuda_runtime.h>

constexpr int TILE = 32, ROWS = 8, N = 8192;

__global__ void transpose_tile(const float* in, float* out)
{
    __shared__ float tile[TILE][TILE];
    const int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * N + x];
    __syncthreads();
    const int tx = blockIdx.y * TILE + threadIdx.x, ty = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) out[(ty + j) * N + tx] = tile[threadIdx.x][threadIdx.y + j];
}

int main()
{
    float *in, *out;
    if (cudaMalloc(&in, sizeof(float) * N * N) || cudaMalloc(&out, sizeof(float) * N * N)) return 1;
    cudaMemset(in, 0, sizeof(float) * N * N);
    transpose_tile<<<dim3(N / TILE, N / TILE), dim3(TILE, ROWS)>>>(in, out);
    const cudaError_t error = cudaDeviceSynchronize();
    printf("transpose_tile: %s\n", cudaGetErrorString(error));
    return error != cudaSuccess;
}
