// bankism surplus kernels: transpose of an N x N double matrix through a 32x32 shared tile, one element
// per thread of a 32x32 block (grid ceil(N/32)^2). "padded" adds one double per tile row. With N not a
// multiple of 32 the edge blocks do less work (the block-sampling case of issue 21).
// Usage: transpose_f64 plain|padded [N]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

template <int PAD>
__global__ void transpose_f64(const double* __restrict__ in, double* __restrict__ out, int n)
{
    __shared__ double tile[32][32 + PAD];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    if (x < n && y < n) tile[threadIdx.y][threadIdx.x] = in[(size_t)y * n + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    if (x < n && y < n) out[(size_t)y * n + x] = tile[threadIdx.x][threadIdx.y];
}

int main(int argc, char** argv)
{
    const bool padded = argc > 1 && !strcmp(argv[1], "padded");
    if (argc < 2 || (!padded && strcmp(argv[1], "plain"))) { fprintf(stderr, "usage: %s plain|padded [N]\n", argv[0]); return 2; }
    const int n = argc > 2 ? atoi(argv[2]) : 4096;
    const size_t count = (size_t)n * n;
    std::vector<double> h(count);
    for (size_t i = 0; i < count; ++i) h[i] = (double)(i % 9973) + 0.5;
    double *d_in, *d_out;
    CK(cudaMalloc(&d_in, count * 8)); CK(cudaMalloc(&d_out, count * 8));
    CK(cudaMemcpy(d_in, h.data(), count * 8, cudaMemcpyHostToDevice));
    dim3 grid((n + 31) / 32, (n + 31) / 32), block(32, 32);
    if (padded) transpose_f64<1><<<grid, block>>>(d_in, d_out, n);
    else transpose_f64<0><<<grid, block>>>(d_in, d_out, n);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    std::vector<double> r(count);
    CK(cudaMemcpy(r.data(), d_out, count * 8, cudaMemcpyDeviceToHost));
    long bad = 0;
    for (int y = 0; y < n; ++y) for (int x = 0; x < n; ++x) bad += r[(size_t)y * n + x] != h[(size_t)x * n + y];
    printf("transpose_f64 %s: %dx%d doubles, grid %dx%d, block 32x32: %ld wrong %s\n", argv[1], n, n, grid.x, grid.y, bad, bad ? "FAIL" : "OK");
    return bad ? 1 : 0;
}
