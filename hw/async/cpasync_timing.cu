// bankism: does a bank-conflicting cp.async cost time on the H100? A throughput benchmark.
//
// 264 blocks (2 per SM) of 256 threads; every warp issues ITER rounds of 8 cp.async of 16 bytes (one
// commit group per round, at most 2 groups in flight) from a 16 KiB global buffer that stays in L1 (.ca)
// or L2 (.cg) after the first round. The shared destination of lane l in copy j of a round is
//   conflict-free: warp_base + j * 512 + l * 16                (a quarter-warp writes 128 contiguous bytes)
//   8-way:         warp_base + j * 16 + (l % 8) * 1024 + (l / 8) * 128 ... wrapped in the warp's 8 KiB
// (in the 8-way pattern the 8 lanes of a quarter-warp write 16-byte chunks 1024 bytes apart: the same 4
// banks). Global sources are the same in both patterns. Prints one line per configuration: the median
// kernel time of 7 runs and the bytes copied per SM-cycle at the measured SM clock.
//
// Usage: cpasync_timing            (runs every configuration)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                                           \
    do {                                                                                                \
        cudaError_t e_ = (x);                                                                           \
        if (e_ != cudaSuccess) {                                                                        \
            fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #x, __FILE__, __LINE__, cudaGetErrorString(e_)); \
            exit(1);                                                                                    \
        }                                                                                               \
    } while (0)

constexpr int kIter = 256;
constexpr int kWarpBytes = 8192;

template <bool CG, bool CONFLICT>
__global__ void timing(const unsigned char* __restrict__ src, unsigned* sink)
{
    extern __shared__ __align__(1024) unsigned char smem[];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const unsigned base = (unsigned)__cvta_generic_to_shared(smem) + warp * kWarpBytes;
    for (int it = 0; it < kIter; ++it) {
        for (int j = 0; j < 8; ++j) {
            const unsigned offset = CONFLICT ? (j * 16 + (lane % 8) * 1024 + (lane / 8) * 128) % kWarpBytes
                                             : j * 512 + lane * 16;
            const unsigned char* from = src + ((warp * 32 + lane) * 16 + j * 2048) % 16384;
            if (CG)
                asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(base + offset), "l"(from) : "memory");
            else
                asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(base + offset), "l"(from) : "memory");
        }
        asm volatile("cp.async.commit_group;" ::: "memory");
        asm volatile("cp.async.wait_group 1;" ::: "memory");
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) sink[blockIdx.x] = smem[lane];
}

template <bool CG, bool CONFLICT>
void run(const char* name, const unsigned char* src, unsigned* sink, int sms, int clock_khz)
{
    const int smem = 8 * kWarpBytes;
    CK(cudaFuncSetAttribute(timing<CG, CONFLICT>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<float> ms;
    for (int rep = 0; rep < 8; ++rep) {
        CK(cudaEventRecord(a));
        timing<CG, CONFLICT><<<2 * sms, 256, smem>>>(src, sink);
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float t = 0;
        CK(cudaEventElapsedTime(&t, a, b));
        if (rep > 0) ms.push_back(t);  // the first run warms the caches
    }
    std::sort(ms.begin(), ms.end());
    const double median = ms[ms.size() / 2];
    const double bytes_per_sm = 2.0 * 256 * kIter * 8 * 16;
    const double cycles = median * 1e-3 * clock_khz * 1e3;
    printf("TIMING %s median_ms %.4f min_ms %.4f max_ms %.4f bytes_per_sm_cycle %.2f\n", name, median, ms.front(),
           ms.back(), bytes_per_sm / cycles);
}

int main()
{
    int sms = 0, clock_khz = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    printf("DEVICE sms %d clock_khz %d (nominal boost; the bytes/cycle column uses it)\n", sms, clock_khz);
    unsigned char* src;
    unsigned* sink;
    CK(cudaMalloc(&src, 16384));
    CK(cudaMemset(src, 7, 16384));
    CK(cudaMalloc(&sink, 4096 * sizeof(unsigned)));
    for (int round = 0; round < 2; ++round) {
        run<true, false>("cg conflict-free", src, sink, sms, clock_khz);
        run<true, true>("cg 8-way", src, sink, sms, clock_khz);
        run<false, false>("ca conflict-free", src, sink, sms, clock_khz);
        run<false, true>("ca 8-way", src, sink, sms, clock_khz);
    }
    CK(cudaDeviceSynchronize());
    return 0;
}
