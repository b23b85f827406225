// bankism corpus: a double-buffered float SGEMM that fills its shared tiles with cp.async, padded and not.
//
// C = A * B for 256x256 row-major float matrices. Block 16x16 threads computes a 64x64 tile of C, each
// thread a 4x4 register tile (rows ty*4+i, columns tx*4+j). K advances in steps of BK = 32. Two stages:
// while the threads multiply stage s, cp.async (16 bytes per copy) fills stage s^1;
// cp.async.commit_group / cp.async.wait_group 1 keep one group in flight.
//
// The A tile is kept chunk-major, As[BK/4][BM + PAD][4]: the 16-byte chunk c (k = 4c..4c+3) of row r
// goes to As[c][r], so that a thread reads the four k of one row with one LDS.128. Thread t copies
// chunks of row t/8 (and row 32 + t/8), chunk t%8: a quarter-warp reads one 128-byte row of A (one
// global line) and writes its 8 chunks to As[0..7][r], BM * 16 + PAD * 16 bytes apart.
//   - PAD = 0: 1024 bytes apart, all 8 chunks in the same 4 banks: an 8-way conflict on every
//     cp.async into As.
//   - PAD = 1 (one 16-byte chunk per row): 1040 bytes apart, 8 different bank quads: conflict-free.
// The B tile Bs[BK][BN] is filled and read along its rows (conflict-free either way).
//
// Usage: cpasync_matmul plain|padded [ca|cg]   (cp.async.ca or .cg, default cg)
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
constexpr int BM = 64, BN = 64, BK = 32;

template <bool CG>
__device__ __forceinline__ void copy16(void* shared, const void* global)
{
    const unsigned dst = (unsigned)__cvta_generic_to_shared(shared);
    if (CG)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(global) : "memory");
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(global) : "memory");
}

template <int PAD, bool CG>
__global__ void cpasync_matmul(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                               int n)
{
    __shared__ __align__(16) float As[2][BK / 4][BM + PAD][4];
    __shared__ __align__(16) float Bs[2][BK][BN];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int t = ty * 16 + tx;
    const float* a_tile = A + (blockIdx.y * BM) * n;
    const float* b_tile = B + blockIdx.x * BN;
    float acc[4][4] = {};
    auto load = [&](int stage, int k0) {
        for (int half = 0; half < 2; ++half) {
            const int r = half * 32 + t / 8, c = t % 8;
            copy16<CG>(&As[stage][c][r][0], a_tile + r * n + k0 + c * 4);
            const int k = half * 16 + t / 16, j = t % 16;
            copy16<CG>(&Bs[stage][k][j * 4], b_tile + (k0 + k) * n + j * 4);
        }
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
        for (int kc = 0; kc < BK / 4; ++kc) {
            float4 a[4];
            for (int i = 0; i < 4; ++i) a[i] = *reinterpret_cast<const float4*>(&As[stage][kc][ty * 4 + i][0]);
            for (int kk = 0; kk < 4; ++kk) {
                const float4 b = *reinterpret_cast<const float4*>(&Bs[stage][kc * 4 + kk][tx * 4]);
                for (int i = 0; i < 4; ++i) {
                    const float x = kk == 0 ? a[i].x : kk == 1 ? a[i].y : kk == 2 ? a[i].z : a[i].w;
                    acc[i][0] += x * b.x;
                    acc[i][1] += x * b.y;
                    acc[i][2] += x * b.z;
                    acc[i][3] += x * b.w;
                }
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
    const bool cg = argc < 3 || strcmp(argv[2], "cg") == 0;
    if (argc < 2 || (!padded && strcmp(argv[1], "plain") != 0) || (argc > 2 && !cg && strcmp(argv[2], "ca") != 0)) {
        fprintf(stderr, "usage: %s plain|padded [ca|cg]\n", argv[0]);
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
    if (padded && cg)
        cpasync_matmul<1, true><<<grid, block>>>(dA, dB, dC, N);
    else if (padded)
        cpasync_matmul<1, false><<<grid, block>>>(dA, dB, dC, N);
    else if (cg)
        cpasync_matmul<0, true><<<grid, block>>>(dA, dB, dC, N);
    else
        cpasync_matmul<0, false><<<grid, block>>>(dA, dB, dC, N);
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
    printf("cpasync_matmul %s %s: relative error %.3g\n", padded ? "padded" : "plain", cg ? "cg" : "ca", rel);
    return rel < 1e-5 ? 0 : 1;
}
