// bankism: where does the whole-kernel store surplus of the register-tiled SGEMM come from?
//
// The corpus SGEMM (traces/kernels/sgemm_regtile.cu) measures more store wavefronts under ncu than its
// traced addresses predict, while its loads match exactly. This program launches the same kernel, with
// and without padding, REPEAT times each, once reading its tiles from global memory (as in the corpus)
// and once computing them in registers (SYNTH: identical shared-memory addresses, no global-load traffic
// in the L1 while the stores run). If the surplus comes from contention with global-load traffic in the
// L1 data banks, it varies between launches and vanishes with SYNTH.
//
// Usage: surplus [REPEAT]
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #call, __FILE__, __LINE__, cudaGetErrorString(e_)); \
    exit(1); } } while (0)

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
constexpr int THREADS = (BM / TM) * (BN / TN);  // 256
constexpr int N = 256;

template <int PAD, bool SYNTH>
__global__ void __launch_bounds__(THREADS)
sgemm_surplus(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int n)
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
        // SYNTH: the same shared-memory accesses with the tiles computed in registers (no global loads)
        const float4 a = SYNTH ? make_float4(tid, k0, tid + k0, 1.0f)
                               : *reinterpret_cast<const float4*>(&a_tile[a_row * n + k0 + a_col]);
        As[a_col + 0][a_row] = a.x;  // transposed store: As[k][m]
        As[a_col + 1][a_row] = a.y;
        As[a_col + 2][a_row] = a.z;
        As[a_col + 3][a_row] = a.w;
        *reinterpret_cast<float4*>(&Bs[b_row][b_col]) =
            SYNTH ? make_float4(k0, tid, 2.0f, tid - k0)
                  : *reinterpret_cast<const float4*>(&b_tile[(k0 + b_row) * n + b_col]);
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
    const int repeat = argc > 1 ? atoi(argv[1]) : 3;
    std::vector<float> a(N * N, 0.5f), b(N * N, 0.25f);
    float *dA, *dB, *dC;
    CK(cudaMalloc(&dA, sizeof(float) * N * N));
    CK(cudaMalloc(&dB, sizeof(float) * N * N));
    CK(cudaMalloc(&dC, sizeof(float) * N * N));
    CK(cudaMemcpy(dA, a.data(), sizeof(float) * N * N, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, b.data(), sizeof(float) * N * N, cudaMemcpyHostToDevice));
    dim3 grid(N / BN, N / BM);
    for (int r = 0; r < repeat; ++r) {
        sgemm_surplus<0, false><<<grid, THREADS>>>(dA, dB, dC, N);
        sgemm_surplus<4, false><<<grid, THREADS>>>(dA, dB, dC, N);
        sgemm_surplus<0, true><<<grid, THREADS>>>(dA, dB, dC, N);
        sgemm_surplus<4, true><<<grid, THREADS>>>(dA, dB, dC, N);
    }
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    printf("surplus: %d launches of each of 4 variants done\n", repeat);
    return 0;
}
