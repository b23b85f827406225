// bankism test kernel: an HGEMM (C = A * B^T, fp16 in, fp32 out) whose fragments come from
// shared memory through ldmatrix in inline PTX, and whose products are mma.sync in PTX.
//
// Tiles of A and B are BM x BK = 64 x 32 halves: 64-byte rows. Stored as read ("plain"), the
// 16-byte chunk c of row r sits at byte r*64 + c*16, so the 8 row addresses of one 8x8
// matrix of ldmatrix fall on two groups of four banks: rows r, r+2, r+4, r+6 share banks, a
// 4-way conflict. "permuted" stores chunk c of row r at chunk c ^ ((r / 2) % 4), which puts
// the 8 rows of every matrix on 8 different 16-byte bank groups: conflict-free.
//
// Usage: hgemm_ldmatrix plain|permuted  (checks C against a host reference)
#include <cuda_fp16.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

constexpr int M = 128, N = 128, K = 128;
constexpr int BM = 64, BN = 64, BK = 32, THREADS = 128;

template <bool PERMUTED>
__device__ __forceinline__ int tile_offset(int row, int chunk)
{
    return row * 64 + (PERMUTED ? (chunk ^ ((row >> 1) & 3)) : chunk) * 16;
}

template <bool PERMUTED>
__global__ void __launch_bounds__(THREADS) hgemm_ldmatrix(const half* A, const half* B, float* C)
{
    __shared__ __align__(128) unsigned char As[BM * 64];
    __shared__ __align__(128) unsigned char Bs[BN * 64];
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int wm = warp / 2, wn = warp % 2;
    float acc[2][4][4] = {};
    const uint32_t a_base = static_cast<uint32_t>(__cvta_generic_to_shared(As));
    uint32_t b_base;
    asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(b_base) : "l"(Bs));
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int i = tid; i < BM * 4; i += THREADS) {
            const int row = i / 4, chunk = i % 4;
            const uint4 va = *reinterpret_cast<const uint4*>(A + (blockIdx.y * BM + row) * K + k0 + chunk * 8);
            const uint4 vb = *reinterpret_cast<const uint4*>(B + (blockIdx.x * BN + row) * K + k0 + chunk * 8);
            *reinterpret_cast<uint4*>(As + tile_offset<PERMUTED>(row, chunk)) = va;
            *reinterpret_cast<uint4*>(Bs + tile_offset<PERMUTED>(row, chunk)) = vb;
        }
        __syncthreads();
        for (int kk = 0; kk < BK / 16; ++kk) {
            uint32_t a[2][4], b[4][2];
            for (int mi = 0; mi < 2; ++mi) {
                const int row = wm * 32 + mi * 16 + lane % 16;
                const uint32_t addr = a_base + tile_offset<PERMUTED>(row, kk * 2 + lane / 16);
                asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                             : "=r"(a[mi][0]), "=r"(a[mi][1]), "=r"(a[mi][2]), "=r"(a[mi][3]) : "r"(addr));
            }
            for (int nj = 0; nj < 2; ++nj) {
                const int row = wn * 32 + nj * 16 + (lane / 16) * 8 + lane % 8;
                const uint32_t addr = b_base + tile_offset<PERMUTED>(row, kk * 2 + (lane / 8) % 2);
                asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                             : "=r"(b[2 * nj][0]), "=r"(b[2 * nj][1]), "=r"(b[2 * nj + 1][0]), "=r"(b[2 * nj + 1][1])
                             : "r"(addr));
            }
            for (int mi = 0; mi < 2; ++mi)
                for (int ni = 0; ni < 4; ++ni)
                    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                                 : "+f"(acc[mi][ni][0]), "+f"(acc[mi][ni][1]), "+f"(acc[mi][ni][2]), "+f"(acc[mi][ni][3])
                                 : "r"(a[mi][0]), "r"(a[mi][1]), "r"(a[mi][2]), "r"(a[mi][3]), "r"(b[ni][0]), "r"(b[ni][1]));
        }
        __syncthreads();
    }
    for (int mi = 0; mi < 2; ++mi)
        for (int ni = 0; ni < 4; ++ni) {
            const int row = blockIdx.y * BM + wm * 32 + mi * 16 + lane / 4;
            const int col = blockIdx.x * BN + wn * 32 + ni * 8 + 2 * (lane % 4);
            C[row * N + col] = acc[mi][ni][0];
            C[row * N + col + 1] = acc[mi][ni][1];
            C[(row + 8) * N + col] = acc[mi][ni][2];
            C[(row + 8) * N + col + 1] = acc[mi][ni][3];
        }
}

int main(int argc, char** argv)
{
    const bool permuted = argc > 1 && strcmp(argv[1], "permuted") == 0;
    if (argc < 2 || (!permuted && strcmp(argv[1], "plain") != 0)) {
        fprintf(stderr, "usage: %s plain|permuted\n", argv[0]);
        return 2;
    }
    std::vector<half> a(M * K), b(N * K);
    std::vector<float> fa(M * K), fb(N * K), c(M * N);
    srand(5);
    for (int i = 0; i < M * K; ++i) { fa[i] = (rand() % 17 - 8) / 8.0f; a[i] = __float2half(fa[i]); }
    for (int i = 0; i < N * K; ++i) { fb[i] = (rand() % 17 - 8) / 8.0f; b[i] = __float2half(fb[i]); }
    half *dA, *dB;
    float* dC;
    cudaMalloc(&dA, M * K * 2);
    cudaMalloc(&dB, N * K * 2);
    cudaMalloc(&dC, M * N * 4);
    cudaMemcpy(dA, a.data(), M * K * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, b.data(), N * K * 2, cudaMemcpyHostToDevice);
    const dim3 grid(N / BN, M / BM);
    if (permuted)
        hgemm_ldmatrix<true><<<grid, THREADS>>>(dA, dB, dC);
    else
        hgemm_ldmatrix<false><<<grid, THREADS>>>(dA, dB, dC);
    cudaError_t error = cudaDeviceSynchronize();
    cudaMemcpy(c.data(), dC, M * N * 4, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float want = 0;
            for (int k = 0; k < K; ++k) want += fa[i * K + k] * fb[j * K + k];
            bad += c[i * N + j] != want;
        }
    printf("hgemm_ldmatrix %s: %s, %d wrong of %d\n", argv[1], cudaGetErrorString(error), bad, M * N);
    return bad == 0 && error == cudaSuccess ? 0 : 1;
}
