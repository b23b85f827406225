// bankism: kernels whose shared-memory accesses depend on their input data, for `explain --data`.
//
// The program draws its input with a fixed LCG, writes the exact bytes to the file named by argv[1] (so
// that `explain --data in=file:PATH` runs on the same input), then launches:
//   bitonic_sort: 64 blocks of 512 threads each sort 1024 floats in shared memory; the compare-and-swap
//                 stores run only where two values are out of order (a condition on shared data);
//   float_histogram: 32 blocks of 256 threads count 16384 floats in [0, 1) into 128 shared bins
//                    (atomicAdd(&bins[(int)(x * 128)], 1): the address depends on the data).
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #call, __FILE__, __LINE__, cudaGetErrorString(e_)); \
    exit(1); } } while (0)

constexpr int SORT_N = 1024;
constexpr int SORT_BLOCKS = 64;
constexpr int BINS = 128;
constexpr int HIST_N = 1 << 14;

__global__ void bitonic_sort(const float *in, float *out)
{
    __shared__ float s[SORT_N];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * SORT_N + t];
    s[t + SORT_N / 2] = in[blockIdx.x * SORT_N + t + SORT_N / 2];
    __syncthreads();
    for (int k = 2; k <= SORT_N; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
            for (int i = t; i < SORT_N; i += blockDim.x) {
                int p = i ^ j;
                if (p > i) {
                    float a = s[i], b = s[p];
                    bool up = (i & k) == 0;
                    if ((a > b) == up) {
                        s[i] = b;
                        s[p] = a;
                    }
                }
            }
            __syncthreads();
        }
    }
    out[blockIdx.x * SORT_N + t] = s[t];
    out[blockIdx.x * SORT_N + t + SORT_N / 2] = s[t + SORT_N / 2];
}

__global__ void float_histogram(const float *in, int n, int *out)
{
    __shared__ int bins[BINS];
    if (threadIdx.x < BINS) bins[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&bins[(int)(in[i] * BINS)], 1);
    __syncthreads();
    if (threadIdx.x < BINS) atomicAdd(&out[threadIdx.x], bins[threadIdx.x]);
}

static unsigned lcg(unsigned &state) { state = state * 1664525u + 1013904223u; return state; }

int main(int argc, char **argv)
{
    const int total = SORT_N * SORT_BLOCKS;  // the histogram reads the first HIST_N of the same floats
    std::vector<float> input(total);
    unsigned state = 20261125u;
    for (float &x : input) x = (lcg(state) >> 8) * (1.0f / 16777216.0f);  // 24 random bits: [0, 1)
    if (argc > 1) {
        FILE *f = fopen(argv[1], "wb");
        if (!f || fwrite(input.data(), sizeof(float), total, f) != (size_t)total) { perror(argv[1]); return 1; }
        fclose(f);
    }
    float *dIn, *dOut;
    int *dHist;
    CK(cudaMalloc(&dIn, total * sizeof(float)));
    CK(cudaMalloc(&dOut, total * sizeof(float)));
    CK(cudaMalloc(&dHist, BINS * sizeof(int)));
    CK(cudaMemcpy(dIn, input.data(), total * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemset(dHist, 0, BINS * sizeof(int)));
    bitonic_sort<<<SORT_BLOCKS, SORT_N / 2>>>(dIn, dOut);
    CK(cudaGetLastError());
    float_histogram<<<32, 256>>>(dIn, HIST_N, dHist);
    CK(cudaGetLastError());
    std::vector<float> sorted(total);
    std::vector<int> hist(BINS);
    CK(cudaMemcpy(sorted.data(), dOut, total * sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hist.data(), dHist, BINS * sizeof(int), cudaMemcpyDeviceToHost));
    int bad = 0, counted = 0;
    for (int b = 0; b < SORT_BLOCKS; ++b)
        for (int i = 1; i < SORT_N; ++i) bad += sorted[b * SORT_N + i - 1] > sorted[b * SORT_N + i];
    for (int c : hist) counted += c;
    printf("bitonic_sort: %d blocks, %d out of order; float_histogram: %d of %d counted %s\n",
           SORT_BLOCKS, bad, counted, HIST_N, bad == 0 && counted == HIST_N ? "OK" : "FAIL");
    return bad == 0 && counted == HIST_N ? 0 : 1;
}
