// bankism corpus: weighted 64-bin histogram in float, with one 64-float sub-histogram per warp.
//
// 65536 (bin, weight) pairs from a fixed-seed LCG, 16 blocks of 128 threads (4 warps). With the argument
// "hash", each thread computes its (bin, weight) pairs in registers from a hash of the index instead of
// loading them (the same loop with no global loads in flight). Each warp adds
// its weights into its own float s_sum[warp][64] with atomicAdd(&s_sum[warp][bin], weight). sm_90 has
// no shared float atomic add: nvcc compiles it to an LDS + FADD + ATOMS.CAST.SPIN retry loop. Warps never
// share a sub-histogram, so only lanes of one warp contend. The sums are then added to global memory.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #call, __FILE__, __LINE__, cudaGetErrorString(e_)); \
    exit(1); } } while (0)

constexpr int BINS = 64;
constexpr int WARPS = 4;
constexpr int N = 1 << 16;

__device__ __host__ inline unsigned mix(unsigned x)
{
    x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
    return x;
}

__global__ void histogram_float(const unsigned char* __restrict__ bins, const float* __restrict__ weights, int n,
                                float* __restrict__ out)
{
    __shared__ float s_sum[WARPS][BINS];
    const int warp = threadIdx.x / 32;
    for (int i = threadIdx.x; i < WARPS * BINS; i += blockDim.x) (&s_sum[0][0])[i] = 0.0f;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&s_sum[warp][bins[i]], weights[i]);
    __syncthreads();
    for (int bin = threadIdx.x; bin < BINS; bin += blockDim.x) {
        float sum = 0.0f;
        for (int w = 0; w < WARPS; ++w) sum += s_sum[w][bin];
        atomicAdd(&out[bin], sum);
    }
}

__global__ void histogram_float_hash(int n, float* __restrict__ out)
{
    __shared__ float s_sum[WARPS][BINS];
    const int warp = threadIdx.x / 32;
    for (int i = threadIdx.x; i < WARPS * BINS; i += blockDim.x) (&s_sum[0][0])[i] = 0.0f;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const unsigned h = mix((unsigned)i);
        atomicAdd(&s_sum[warp][h % BINS], (float)((h >> 8) % 1000) / 1000.0f);
    }
    __syncthreads();
    for (int bin = threadIdx.x; bin < BINS; bin += blockDim.x) {
        float sum = 0.0f;
        for (int w = 0; w < WARPS; ++w) sum += s_sum[w][bin];
        atomicAdd(&out[bin], sum);
    }
}

static unsigned lcg(unsigned& state) { state = state * 1664525u + 1013904223u; return state >> 8; }

int main(int argc, char** argv)
{
    const bool hash = argc > 1 && std::string(argv[1]) == "hash";
    std::vector<unsigned char> bins(N);
    std::vector<float> weights(N);
    std::vector<double> ref(BINS, 0.0);
    std::vector<float> got(BINS);
    unsigned state = 777u;
    for (int i = 0; i < N; ++i) {
        if (hash) {
            const unsigned h = mix((unsigned)i);
            bins[i] = (unsigned char)(h % BINS);
            weights[i] = (float)((h >> 8) % 1000) / 1000.0f;
        } else {
            bins[i] = (unsigned char)(lcg(state) % BINS);
            weights[i] = (float)(lcg(state) % 1000) / 1000.0f;
        }
        ref[bins[i]] += weights[i];
    }
    unsigned char* dBins;
    float *dWeights, *dOut;
    CK(cudaMalloc(&dBins, N));
    CK(cudaMalloc(&dWeights, N * sizeof(float)));
    CK(cudaMalloc(&dOut, BINS * sizeof(float)));
    CK(cudaMemcpy(dBins, bins.data(), N, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dWeights, weights.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemset(dOut, 0, BINS * sizeof(float)));
    if (hash)
        histogram_float_hash<<<16, WARPS * 32>>>(N, dOut);
    else
        histogram_float<<<16, WARPS * 32>>>(dBins, dWeights, N, dOut);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(got.data(), dOut, BINS * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < BINS; ++i) bad += std::fabs(got[i] - ref[i]) > 1e-3 * std::fabs(ref[i]) + 1e-3;
    printf("histogram_float%s: %d weights, 64 bins, grid 16, block 128: %d wrong bins %s\n", hash ? " (hash)" : "", N, bad, bad ? "FAIL" : "OK");
    return bad == 0 ? 0 : 1;
}
