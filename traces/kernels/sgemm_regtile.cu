// bankism corpus: float4 register-tiled SGEMM that stores the A tile TRANSPOSED in shared memory.
//
// C = A * B for 256x256 row-major float matrices. Block tile BM x BN = 128 x 128, BK = 8, each of the 256
// threads computes an 8x8 sub-tile of C (TM = TN = 8) from registers. Every k-step a thread reads one
// float4 of A from global memory (row t/2, columns 4*(t%2)..+3) and stores its four floats down a column of
// As[BK][BM] (As[k][m] = A[m][k]), so the compute loop can read 8 consecutive m with two LDS.128. Lanes
// 2i and 2i+1 store to rows k and k+4 of the same column: 4*BM words apart, the same bank without padding
// (2-way conflict); with BM + 4 words per row they land 16 banks apart.
//
// Usage: sgemm_regtile plain|padded
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #call, __FILE__, __LINE__, cudaGetErrorString(e_)); \
    exit(1); } } while (0)

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
constexpr int THREADS = (BM / TM) * (BN / TN);  // 256
constexpr int N = 256;

template <int PAD>
__global__ void __launch_bounds__(THREADS)
sgemm_regtile(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int n)
{
    __shared__ __align__(16) float As[BK][BM + PAD];
    __shared__ __align__(16) float Bs[BK][BN];
    const int tid = threadIdx.x;
    const int thread_row = tid / (BN / TN);  // 0..15: rows thread_row*TM .. +7 of the C tile
    const int thread_col = tid % (BN / TN);  // 0..15: cols thread_col*TN .. +7
    const int a_row = tid / (BK / 4), a_col = (tid % (BK / 4)) * 4;  // one float4 of the 128x8 A tile
    const int b_row = tid / (BN / 4), b_col = (tid % (BN / 4)) * 4;  // one float4 of the 8x128 B tile
    const float* a_tile = A + blockIdx.y * BM * n;
    const float* b_tile = B + blockIdx.x * BN;
    float acc[TM][TN] = {};
    float reg_m[TM], reg_n[TN];
    for (int k0 = 0; k0 < n; k0 += BK) {
        const float4 a = *reinterpret_cast<const float4*>(&a_tile[a_row * n + k0 + a_col]);
        As[a_col + 0][a_row] = a.x;  // transposed store: As[k][m]
        As[a_col + 1][a_row] = a.y;
        As[a_col + 2][a_row] = a.z;
        As[a_col + 3][a_row] = a.w;
        *reinterpret_cast<float4*>(&Bs[b_row][b_col]) =
            *reinterpret_cast<const float4*>(&b_tile[(k0 + b_row) * n + b_col]);
        __syncthreads();
        for (int k = 0; k < BK; ++k) {
            for (int i = 0; i < TM; i += 4)
                *reinterpret_cast<float4*>(&reg_m[i]) = *reinterpret_cast<const float4*>(&As[k][thread_row * TM + i]);
            for (int j = 0; j < TN; j += 4)
                *reinterpret_cast<float4*>(&reg_n[j]) = *reinterpret_cast<const float4*>(&Bs[k][thread_col * TN + j]);
            for (int i = 0; i < TM; ++i)
                for (int j = 0; j < TN; ++j) acc[i][j] += reg_m[i] * reg_n[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j)
            C[(blockIdx.y * BM + thread_row * TM + i) * n + blockIdx.x * BN + thread_col * TN + j] = acc[i][j];
}

int main(int argc, char** argv)
{
    const bool padded = argc > 1 && strcmp(argv[1], "padded") == 0;
    if (argc < 2 || (!padded && strcmp(argv[1], "plain") != 0)) {
        fprintf(stderr, "usage: %s plain|padded\n", argv[0]);
        return 2;
    }
    std::vector<float> a(N * N), b(N * N), c(N * N);
    srand(99);
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
    dim3 grid(N / BN, N / BM);
    if (padded)
        sgemm_regtile<4><<<grid, THREADS>>>(dA, dB, dC, N);
    else
        sgemm_regtile<0><<<grid, THREADS>>>(dA, dB, dC, N);
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
    double rel = std::sqrt(err / norm);
    bool ok = std::isfinite(rel) && rel < 1e-5;
    printf("sgemm_regtile %s: 256x256 float, BM=BN=128 BK=8 TM=TN=8, grid 2x2, 256 threads: relative error %.3e %s\n",
           argv[1], rel, ok ? "OK" : "FAIL");
    return ok ? 0 : 1;
}
