// bankism hardware probes for cp.async (LDGSTS): one launch = one warp executing exactly ONE
// cp.async of the intended width and cache mode, then cp.async.wait_all. Per-lane shared byte offsets,
// per-lane global byte offsets and the active mask are read from device memory; nothing reads the shared
// destination back, so the launch's only shared-memory instruction is the LDGSTS.
//
// Usage: ldgsts_probe PATTERNS.txt
// PATTERNS.txt lines: id kernel active_mask soff0 ... soff31 goff0 ... goff31
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(x)                                                                                           \
    do {                                                                                                \
        cudaError_t e_ = (x);                                                                           \
        if (e_ != cudaSuccess) {                                                                        \
            fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #x, __FILE__, __LINE__, cudaGetErrorString(e_)); \
            exit(1);                                                                                    \
        }                                                                                               \
    } while (0)

static const int kSmemBytes = 100 * 1024;
static const int kGlobalBytes = 256 * 1024;

#define CPASYNC_KERNEL(NAME, PTX)                                                                       \
    extern "C" __global__ void NAME(const unsigned* __restrict__ s_off, const unsigned* __restrict__ g_off, \
                                    const unsigned* __restrict__ g_mask, const unsigned char* src,      \
                                    unsigned* __restrict__ g_out, int pid)                              \
    {                                                                                                   \
        extern __shared__ __align__(1024) unsigned char smem[];                                         \
        const unsigned lane = threadIdx.x;                                                              \
        const unsigned mask = g_mask[pid];                                                              \
        const unsigned base = (unsigned)__cvta_generic_to_shared(smem);                                 \
        const unsigned a = base + s_off[pid * 32 + lane];                                               \
        const unsigned char* g = src + g_off[pid * 32 + lane];                                          \
        if (lane == 0 && pid == 0) g_out[0] = base;                                                     \
        if ((mask >> lane) & 1u) asm volatile(PTX ::"r"(a), "l"(g) : "memory");          \
        asm volatile("cp.async.wait_all;" ::: "memory");                                                \
    }

CPASYNC_KERNEL(probe_cpasync_ca_4, "cp.async.ca.shared.global [%0], [%1], 4;")
CPASYNC_KERNEL(probe_cpasync_ca_8, "cp.async.ca.shared.global [%0], [%1], 8;")
CPASYNC_KERNEL(probe_cpasync_ca_16, "cp.async.ca.shared.global [%0], [%1], 16;")
CPASYNC_KERNEL(probe_cpasync_cg_16, "cp.async.cg.shared.global [%0], [%1], 16;")

typedef void (*KFn)(const unsigned*, const unsigned*, const unsigned*, const unsigned char*, unsigned*, int);
struct KEntry {
    const char* name;
    KFn fn;
};
#define K(n) {#n, n}
static KEntry kTable[] = {K(probe_cpasync_ca_4), K(probe_cpasync_ca_8), K(probe_cpasync_ca_16),
                          K(probe_cpasync_cg_16)};
static const int kNK = sizeof(kTable) / sizeof(kTable[0]);

int main(int argc, char** argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s patterns.txt\n", argv[0]);
        return 2;
    }
    FILE* f = fopen(argv[1], "r");
    if (!f) {
        perror("open patterns");
        return 2;
    }
    std::vector<int> kern;
    std::vector<unsigned> masks, soffs, goffs;
    char name[128];
    int id;
    unsigned m;
    while (fscanf(f, "%d %127s %u", &id, name, &m) == 3) {
        int k = -1;
        for (int i = 0; i < kNK; ++i)
            if (!strcmp(kTable[i].name, name)) k = i;
        if (k < 0) {
            fprintf(stderr, "unknown kernel %s\n", name);
            return 2;
        }
        for (int pass = 0; pass < 2; ++pass)
            for (int l = 0; l < 32; ++l) {
                unsigned o;
                if (fscanf(f, "%u", &o) != 1) {
                    fprintf(stderr, "bad line %d\n", id);
                    return 2;
                }
                const unsigned limit = pass == 0 ? kSmemBytes : kGlobalBytes;
                if (o + 16 > limit) {
                    fprintf(stderr, "offset out of range id %d\n", id);
                    return 2;
                }
                (pass == 0 ? soffs : goffs).push_back(o);
            }
        if (id != (int)kern.size()) {
            fprintf(stderr, "ids must be 0..N-1 in order (got %d)\n", id);
            return 2;
        }
        kern.push_back(k);
        masks.push_back(m);
    }
    fclose(f);
    const int n = (int)kern.size();
    for (int i = 0; i < kNK; ++i)
        CK(cudaFuncSetAttribute(kTable[i].fn, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
    unsigned *d_soff, *d_goff, *d_mask, *d_out;
    unsigned char* d_src;
    CK(cudaMalloc(&d_soff, soffs.size() * 4));
    CK(cudaMalloc(&d_goff, goffs.size() * 4));
    CK(cudaMalloc(&d_mask, masks.size() * 4));
    CK(cudaMalloc(&d_out, 4));
    CK(cudaMalloc(&d_src, kGlobalBytes));
    CK(cudaMemset(d_src, 0x5a, kGlobalBytes));
    CK(cudaMemcpy(d_soff, soffs.data(), soffs.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_goff, goffs.data(), goffs.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_mask, masks.data(), masks.size() * 4, cudaMemcpyHostToDevice));
    // The first launch is a base probe of pattern 0 (dropped by collect.py); the probes follow in id order.
    kTable[kern[0]].fn<<<1, 32, kSmemBytes>>>(d_soff, d_goff, d_mask, d_src, d_out, 0);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    unsigned base = 0;
    CK(cudaMemcpy(&base, d_out, 4, cudaMemcpyDeviceToHost));
    printf("SHARED_BASE %u\n", base);
    for (int i = 0; i < n; ++i) {
        kTable[kern[i]].fn<<<1, 32, kSmemBytes>>>(d_soff, d_goff, d_mask, d_src, d_out, i);
        CK(cudaGetLastError());
    }
    CK(cudaDeviceSynchronize());
    printf("DONE %d launches\n", n + 1);
    return 0;
}
