// bankism corpus: a double-buffered float SGEMM that fills its shared tiles with cp.async, padded and not.
//
// C = A * B for 256x256 row-major float matrices. Block 16x16 threads computes a 64x64 tile of C, each
// thread a 4x4 register tile (rows ty*4+i, columns tx*4+j). K advances in steps of BK = 16. Two stages:
// while the threads multiply stage s, cp.async (16 bytes per thread per tile, .cg) fills stage s^1;
// cp.async.commit_group / cp.async.wait_group 1 keep one group in flight.
//
// The A tile As[64][16 + PAD] is filled row by row: thread t copies 16 bytes to row t/4, chunk t%4.
//   - PAD = 0 (64-byte rows): a quarter-warp's 8 chunks cover two whole rows, 128 contiguous bytes, so
//     the cp.async writes are conflict-free.
//   - PAD = 4 (80-byte rows, the usual "pad by 16 bytes to keep float4 alignment"): a quarter-warp's two
//     rows now overlap in banks 0-3, a 2-way conflict on every cp.async into As.
// The B tile Bs[16][64 + PAD] is filled and read along its rows (conflict-free either way). ptxas reads
// As[ty*4+i][k..k+3] with LDS.128: the 16 lanes of a half-warp share one address (a broadcast), so the
// reads cost the same with or without padding. Padding buys nothing here and costs cp.async conflicts.
// Usage: cpasync_matmul plain|padded
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(call)                                                                                         \
    do {                                                                                                 \
        cudaError_t e_ = (call);                                                                         \
        if (e_ != cudaSuccess) {                                                                         \
            fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #call, __FILE__, __LINE__, cudaGetErrorString(e_)); \
            exit(1);                                                                                     \
        }                                                                                                \
    } while (0)

constexpr int N = 256;
constexpr int BM = 64, BN = 64, BK = 16;

__device__ __forceinline__ void copy16(void* shared, const void* global)
{
    const unsigned dst = (unsigned)__cvta_generic_to_shared(shared);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(global) : "memory");
}

template <int PAD>
__global__ void cpasync_matmul(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                               int n)
{
    __shared__ __align__(16) float As[2][BM][BK + PAD];
    __shared__ __align__(16) float Bs[2][BK][BN + PAD];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int t = ty * 16 + tx;
    const float* a_tile = A + (blockIdx.y * BM) * n;
    const float* b_tile = B + blockIdx.x * BN;
    float acc[4][4] = {};
    auto load = [&](int stage, int k0) {
        copy16(&As[stage][t / 4][(t % 4) * 4], a_tile + (t / 4) * n + k0 + (t % 4) * 4);
        copy16(&Bs[stage][t / 16][(t % 16) * 4], b_tile + (k0 + t / 16) * n + (t % 16) * 4);
        asm volatile("cp.async.commit_group;" ::: "memory");
    };
    const int steps = n / BK;
    load(0, 0);
    for (int s = 0; s < steps; ++s) {
        const int stage = s & 1;
        if (s + 1 < steps) {
            load(stage ^ 1, (s + 1) * BK);
            asm volatile("cp.async.wait_group 1;" ::: "memory");
        } else {
            asm volatile("cp.async.wait_group 0;" ::: "memory");
        }
        __syncthreads();
        for (int k = 0; k < BK; ++k) {
            const float4 b = *reinterpret_cast<const float4*>(&Bs[stage][k][tx * 4]);
            for (int i = 0; i < 4; ++i) {
                const float a = As[stage][ty * 4 + i][k];
                acc[i][0] += a * b.x;
                acc[i][1] += a * b.y;
                acc[i][2] += a * b.z;
                acc[i][3] += a * b.w;
            }
        }
        __syncthreads();  // the next iteration's cp.async overwrites this stage
    }
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
            C[(blockIdx.y * BM + ty * 4 + i) * n + blockIdx.x * BN + tx * 4 + j] = acc[i][j];
}

int main(int argc, char** argv)
{
    const bool padded = argc > 1 && strcmp(argv[1], "padded") == 0;
    if (argc < 2 || (!padded && strcmp(argv[1], "plain") != 0)) {
        fprintf(stderr, "usage: %s plain|padded\n", argv[0]);
        return 2;
    }
    std::vector<float> a(N * N), b(N * N), c(N * N);
    srand(2026);
    for (int i = 0; i < N * N; ++i) {
        a[i] = rand() / (float)RAND_MAX - 0.5f;
        b[i] = rand() / (float)RAND_MAX - 0.5f;
    }
    float *dA, *dB, *dC;
    CK(cudaMalloc(&dA, sizeof(float) * N * N));
    CK(cudaMalloc(&dB, sizeof(float) * N * N));
    CK(cudaMalloc(&dC, sizeof(float) * N * N));
    CK(cudaMemcpy(dA, a.data(), sizeof(float) * N * N, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, b.data(), sizeof(float) * N * N, cudaMemcpyHostToDevice));
    CK(cudaMemset(dC, 0xff, sizeof(float) * N * N));
    dim3 block(16, 16), grid(N / BN, N / BM);
    if (padded)
        cpasync_matmul<4><<<grid, block>>>(dA, dB, dC, N);
    else
        cpasync_matmul<0><<<grid, block>>>(dA, dB, dC, N);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(c.data(), dC, sizeof(float) * N * N, cudaMemcpyDeviceToHost));
    double err = 0, norm = 0;
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j) {
            double ref = 0;
            for (int k = 0; k < N; ++k) ref += (double)a[i * N + k] * b[k * N + j];
            err += (c[i * N + j] - ref) * (c[i * N + j] - ref);
            norm += ref * ref;
        }
    const double rel = std::sqrt(err / norm);
    printf("cpasync_matmul %s: relative error %.3g\n", padded ? "padded" : "plain", rel);
    return rel < 1e-5 ? 0 : 1;
}
