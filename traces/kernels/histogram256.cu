// bankism corpus: 256-bin byte histogram with one 256-word sub-histogram per warp.
//
// 262144 random bytes (fixed-seed LCG), 32 blocks of 256 threads (8 warps). Each warp counts its bytes
// into its own unsigned s_hist[warp][256] with atomicAdd(&s_hist[warp][bin], 1u), whose result is
// unused: nvcc compiles it to ATOMS.POPC.INC.32. The warps' counts are then summed per bin and added to
// the global histogram. Launch 0 uses uniform bytes, launch 1 skewed bytes (half of them from 16 hot
// values), so lanes of a warp often hit the same counter.
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #call, __FILE__, __LINE__, cudaGetErrorString(e_)); \
    exit(1); } } while (0)

constexpr int BINS = 256;
constexpr int WARPS = 8;
constexpr int N = 1 << 18;

__global__ void histogram256(const unsigned char* __restrict__ data, int n, unsigned* __restrict__ out)
{
    __shared__ unsigned s_hist[WARPS][BINS];
    const int warp = threadIdx.x / 32;
    for (int i = threadIdx.x; i < WARPS * BINS; i += blockDim.x) (&s_hist[0][0])[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&s_hist[warp][data[i]], 1u);
    __syncthreads();
    for (int bin = threadIdx.x; bin < BINS; bin += blockDim.x) {
        unsigned sum = 0;
        for (int w = 0; w < WARPS; ++w) sum += s_hist[w][bin];
        atomicAdd(&out[bin], sum);
    }
}

static unsigned lcg(unsigned& state) { state = state * 1664525u + 1013904223u; return state >> 8; }

static int run(const char* label, const std::vector<unsigned char>& data)
{
    std::vector<unsigned> ref(BINS, 0), got(BINS);
    for (unsigned char b : data) ref[b]++;
    unsigned char* dData;
    unsigned* dOut;
    CK(cudaMalloc(&dData, N));
    CK(cudaMalloc(&dOut, BINS * sizeof(unsigned)));
    CK(cudaMemcpy(dData, data.data(), N, cudaMemcpyHostToDevice));
    CK(cudaMemset(dOut, 0, BINS * sizeof(unsigned)));
    histogram256<<<32, WARPS * 32>>>(dData, N, dOut);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(got.data(), dOut, BINS * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CK(cudaFree(dData));
    CK(cudaFree(dOut));
    int bad = 0;
    for (int i = 0; i < BINS; ++i) bad += got[i] != ref[i];
    printf("histogram256 %s: %d bytes, grid 32, block 256: %d wrong bins %s\n", label, N, bad, bad ? "FAIL" : "OK");
    return bad;
}

int main()
{
    std::vector<unsigned char> uniform(N), skewed(N);
    unsigned state = 20261124u;
    for (int i = 0; i < N; ++i) uniform[i] = (unsigned char)(lcg(state) & 255);
    for (int i = 0; i < N; ++i) skewed[i] = (lcg(state) & 1) ? (unsigned char)(lcg(state) & 15) : (unsigned char)(lcg(state) & 255);
    int bad = run("uniform", uniform) + run("skewed", skewed);
    return bad == 0 ? 0 : 1;
}
