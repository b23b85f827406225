// bankism corpus: byte histogram with 8-byte shared-memory atomics.
//
// 65536 bytes, 16 blocks of 256 threads; each block counts into unsigned long long hist[256] in shared memory
// with atomicAdd (an 8-byte shared atomic per lane), then adds its counts to the global histogram. Half of the
// bytes are drawn from 16 hot values, so lanes of a warp often update the same counter.
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #call, __FILE__, __LINE__, cudaGetErrorString(e_)); \
    exit(1); } } while (0)

constexpr int BINS = 256;
constexpr int N = 1 << 16;

__global__ void histogram64(const unsigned char* __restrict__ data, int n, unsigned long long* __restrict__ out)
{
    __shared__ unsigned long long hist[BINS];
    for (int i = threadIdx.x; i < BINS; i += blockDim.x) hist[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&hist[data[i]], 1ULL);
    __syncthreads();
    for (int i = threadIdx.x; i < BINS; i += blockDim.x) atomicAdd(&out[i], hist[i]);
}

int main()
{
    std::vector<unsigned char> data(N);
    srand(31337);
    for (int i = 0; i < N; ++i) data[i] = (rand() & 1) ? (unsigned char)(rand() % 16) : (unsigned char)(rand() % BINS);
    std::vector<unsigned long long> ref(BINS, 0), got(BINS);
    for (int i = 0; i < N; ++i) ref[data[i]]++;
    unsigned char* dData;
    unsigned long long* dOut;
    CK(cudaMalloc(&dData, N));
    CK(cudaMalloc(&dOut, BINS * sizeof(unsigned long long)));
    CK(cudaMemcpy(dData, data.data(), N, cudaMemcpyHostToDevice));
    CK(cudaMemset(dOut, 0, BINS * sizeof(unsigned long long)));
    histogram64<<<16, 256>>>(dData, N, dOut);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(got.data(), dOut, BINS * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < BINS; ++i) bad += got[i] != ref[i];
    printf("histogram64: %d bytes, 256 bins of unsigned long long, grid 16, block 256: %d wrong bins %s\n", N, bad,
           bad == 0 ? "OK" : "FAIL");
    return bad == 0 ? 0 : 1;
}
