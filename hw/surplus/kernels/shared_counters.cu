// bankism atomic-surplus kernels (issue 21): shared-memory atomics from many warps of one block.
//   hist32   : a 32-bin shared histogram (one bin per bank), every thread of 256-thread blocks adding
//              the random bytes of a large buffer (grid-stride): atomicAdd(&bins[v & 31], 1) -> POPC.INC
//   counters : 1024-thread blocks, every thread adding to one of 4 shared counters per element, the
//              radix-count step of a select: atomicAdd(&count[(v >> shift) & 3], 1) -> POPC.INC, and the
//              same with the old value used (ATOMS.ADD)
//   hist64   : a 64-bin shared histogram of random bytes, 256 threads, 256 blocks, one element per
//              thread (the CuPy/Numba histogram shape)
// Data: a fixed-seed xorshift stream, so every run (trace and profile) sees the same bytes.
// Usage: shared_counters hist32|counters|counters_used|hist64 [MB]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void hist32(const unsigned* __restrict__ data, size_t words, unsigned* __restrict__ out)
{
    __shared__ unsigned bins[32];
    if (threadIdx.x < 32) bins[threadIdx.x] = 0;
    __syncthreads();
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x)
        atomicAdd(&bins[data[i] & 31], 1u);
    __syncthreads();
    if (threadIdx.x < 32) atomicAdd(&out[threadIdx.x], bins[threadIdx.x]);
}

template <bool USED>
__global__ void counters(const unsigned* __restrict__ data, size_t words, unsigned* __restrict__ out)
{
    __shared__ unsigned count[4];
    if (threadIdx.x < 4) count[threadIdx.x] = 0;
    __syncthreads();
    unsigned seen = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x) {
        if (USED) seen += atomicAdd(&count[(data[i] >> 8) & 3], 1u);
        else atomicAdd(&count[(data[i] >> 8) & 3], 1u);
    }
    __syncthreads();
    if (threadIdx.x < 4) atomicAdd(&out[threadIdx.x], count[threadIdx.x]);
    if (USED && seen == 0xffffffffu) out[4] = 1;
}

__global__ void hist64(const unsigned char* __restrict__ data, int n, unsigned* __restrict__ out)
{
    __shared__ unsigned bins[64];
    if (threadIdx.x < 64) bins[threadIdx.x] = 0;
    __syncthreads();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[data[i] & 63], 1u);
    __syncthreads();
    if (threadIdx.x < 64) atomicAdd(&out[threadIdx.x], bins[threadIdx.x]);
}

int main(int argc, char** argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s hist32|counters|counters_used|hist64 [MB]\n", argv[0]); return 2; }
    const char* mode = argv[1];
    const size_t mb = argc > 2 ? (size_t)atoi(argv[2]) : 64;
    const size_t words = mb * (1 << 20) / 4;
    std::vector<unsigned> h(words);
    unsigned long long s = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < words; ++i) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; h[i] = (unsigned)(s >> 16); }
    unsigned *d_data, *d_out;
    CK(cudaMalloc(&d_data, words * 4)); CK(cudaMalloc(&d_out, 64 * 4));
    CK(cudaMemcpy(d_data, h.data(), words * 4, cudaMemcpyHostToDevice));
    CK(cudaMemset(d_out, 0, 64 * 4));
    std::vector<unsigned long long> expect(64, 0);
    int nbins = 0;
    if (!strcmp(mode, "hist32")) {
        hist32<<<132 * 4, 256>>>(d_data, words, d_out); nbins = 32;
        for (size_t i = 0; i < words; ++i) expect[h[i] & 31]++;
    } else if (!strcmp(mode, "counters") || !strcmp(mode, "counters_used")) {
        if (!strcmp(mode, "counters")) counters<false><<<132, 1024>>>(d_data, words, d_out);
        else counters<true><<<132, 1024>>>(d_data, words, d_out);
        nbins = 4;
        for (size_t i = 0; i < words; ++i) expect[(h[i] >> 8) & 3]++;
    } else if (!strcmp(mode, "hist64")) {
        const int n = 256 * 256;
        hist64<<<256, 256>>>(reinterpret_cast<const unsigned char*>(d_data), n, d_out); nbins = 64;
        const unsigned char* bytes = reinterpret_cast<const unsigned char*>(h.data());
        for (int i = 0; i < n; ++i) expect[bytes[i] & 63]++;
    } else { fprintf(stderr, "unknown mode %s\n", mode); return 2; }
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    std::vector<unsigned> got(64);
    CK(cudaMemcpy(got.data(), d_out, 64 * 4, cudaMemcpyDeviceToHost));
    long bad = 0;
    for (int b = 0; b < nbins; ++b) bad += got[b] != (unsigned)expect[b];
    printf("shared_counters %s: %zu MB, %ld wrong bins %s\n", mode, mb, bad, bad ? "FAIL" : "OK");
    return bad ? 1 : 0;
}
