// bankism surplus kernels: the classic tiled float transpose (32x32 tile, 32x8 threads, each thread
// moves 4 elements), N x N floats. "padded" adds one float per tile row.
// Usage: transpose_tiled plain|padded [N]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

template <int PAD>
__global__ void transpose_tiled(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float tile[32][32 + PAD];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) out[(size_t)(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main(int argc, char** argv)
{
    const bool padded = argc > 1 && !strcmp(argv[1], "padded");
    if (argc < 2 || (!padded && strcmp(argv[1], "plain"))) { fprintf(stderr, "usage: %s plain|padded [N]\n", argv[0]); return 2; }
    const int n = argc > 2 ? atoi(argv[2]) : 4096;
    const size_t count = (size_t)n * n;
    std::vector<float> h(count);
    for (size_t i = 0; i < count; ++i) h[i] = (float)(i % 9973);
    float *d_in, *d_out;
    CK(cudaMalloc(&d_in, count * 4)); CK(cudaMalloc(&d_out, count * 4));
    CK(cudaMemcpy(d_in, h.data(), count * 4, cudaMemcpyHostToDevice));
    dim3 grid(n / 32, n / 32), block(32, 8);
    if (padded) transpose_tiled<1><<<grid, block>>>(d_in, d_out, n);
    else transpose_tiled<0><<<grid, block>>>(d_in, d_out, n);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    std::vector<float> r(count);
    CK(cudaMemcpy(r.data(), d_out, count * 4, cudaMemcpyDeviceToHost));
    long bad = 0;
    for (int y = 0; y < n; ++y) for (int x = 0; x < n; ++x) bad += r[(size_t)y * n + x] != h[(size_t)x * n + y];
    printf("transpose_tiled %s: %dx%d floats, grid %dx%d, block 32x8: %ld wrong %s\n", argv[1], n, n, grid.x, grid.y, bad, bad ? "FAIL" : "OK");
    return bad ? 1 : 0;
}
