// bankism surplus kernels: a WMMA HGEMM (C = A B, N x N halves, float accumulate) through shared tiles:
// block 128 threads (4 warps) computes a 64x64 tile of C, K in steps of 32; A (64x32) and B (32x64) tiles
// are copied global -> registers -> shared with 16-byte loads and stores, rows padded by PAD halves, then
// read with wmma::load_matrix_sync (each warp a 32x32 piece: 2x2 fragments of 16x16x16).
// Usage: wmma_hgemm plain|padded [N]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <vector>
#include <cuda_fp16.h>
#include <mma.h>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)
using namespace nvcuda;

template <int PAD>
__global__ void __launch_bounds__(128) wmma_hgemm(const half* __restrict__ A, const half* __restrict__ B, float* __restrict__ C, int n)
{
    __shared__ __align__(16) half As[64][32 + PAD];
    __shared__ __align__(16) half Bs[32][64 + PAD];
    const int tid = threadIdx.x, warp = tid / 32;
    const int wr = warp / 2, wc = warp % 2;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
    for (int i = 0; i < 2; ++i) for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
    const half* a_tile = A + (size_t)blockIdx.y * 64 * n;
    const half* b_tile = B + blockIdx.x * 64;
    for (int k0 = 0; k0 < n; k0 += 32) {
        for (int c = tid; c < 64 * 4; c += 128) {  // A: 64 rows x 4 chunks of 8 halves
            const int r = c / 4, q = c % 4;
            *reinterpret_cast<uint4*>(&As[r][q * 8]) = *reinterpret_cast<const uint4*>(&a_tile[(size_t)r * n + k0 + q * 8]);
        }
        for (int c = tid; c < 32 * 8; c += 128) {  // B: 32 rows x 8 chunks
            const int r = c / 8, q = c % 8;
            *reinterpret_cast<uint4*>(&Bs[r][q * 8]) = *reinterpret_cast<const uint4*>(&b_tile[(size_t)(k0 + r) * n + q * 8]);
        }
        __syncthreads();
        for (int kk = 0; kk < 32; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb[2];
            for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(fa[i], &As[wr * 32 + i * 16][kk], 32 + PAD);
            for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(fb[j], &Bs[kk][wc * 32 + j * 16], 64 + PAD);
            for (int i = 0; i < 2; ++i) for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
        __syncthreads();
    }
    for (int i = 0; i < 2; ++i) for (int j = 0; j < 2; ++j)
        wmma::store_matrix_sync(&C[(size_t)(blockIdx.y * 64 + wr * 32 + i * 16) * n + blockIdx.x * 64 + wc * 32 + j * 16],
                                acc[i][j], n, wmma::mem_row_major);
}

int main(int argc, char** argv)
{
    const bool padded = argc > 1 && !strcmp(argv[1], "padded");
    if (argc < 2 || (!padded && strcmp(argv[1], "plain"))) { fprintf(stderr, "usage: %s plain|padded [N]\n", argv[0]); return 2; }
    const int n = argc > 2 ? atoi(argv[2]) : 1024;
    std::vector<half> a((size_t)n * n), b((size_t)n * n);
    std::vector<float> fa(a.size()), fb(b.size());
    for (size_t i = 0; i < a.size(); ++i) { fa[i] = (float)((i * 7) % 13) / 13.0f - 0.5f; fb[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
        a[i] = __float2half(fa[i]); b[i] = __float2half(fb[i]); fa[i] = __half2float(a[i]); fb[i] = __half2float(b[i]); }
    half *d_a, *d_b; float* d_c;
    CK(cudaMalloc(&d_a, a.size() * 2)); CK(cudaMalloc(&d_b, b.size() * 2)); CK(cudaMalloc(&d_c, a.size() * 4));
    CK(cudaMemcpy(d_a, a.data(), a.size() * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_b, b.data(), b.size() * 2, cudaMemcpyHostToDevice));
    dim3 grid(n / 64, n / 64);
    if (padded) wmma_hgemm<8><<<grid, 128>>>(d_a, d_b, d_c, n);
    else wmma_hgemm<0><<<grid, 128>>>(d_a, d_b, d_c, n);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    std::vector<float> c(a.size());
    CK(cudaMemcpy(c.data(), d_c, c.size() * 4, cudaMemcpyDeviceToHost));
    long bad = 0;
    for (int t = 0; t < 64; ++t) {  // spot check 64 entries
        const int i = (t * 97) % n, j = (t * 31) % n;
        double e = 0; for (int k = 0; k < n; ++k) e += (double)fa[(size_t)i * n + k] * fb[(size_t)k * n + j];
        bad += fabs(c[(size_t)i * n + j] - e) > 1e-2 * (1 + fabs(e));
    }
    printf("wmma_hgemm %s: %dx%d halves, grid %dx%d, block 128: %ld wrong of 64 checked %s\n", argv[1], n, n, grid.x, grid.y, bad, bad ? "FAIL" : "OK");
    return bad ? 1 : 0;
}
