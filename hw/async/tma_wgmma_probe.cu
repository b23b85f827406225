// bankism hardware probes for the shared-memory side of TMA and wgmma on sm_90a:
//   - bulk_copy:  one cp.async.bulk (global -> shared, no tensor map) of B bytes;
//   - tma_2d:     one cp.async.bulk.tensor.2d of a 64-row box under swizzle none / 32B / 64B / 128B;
//   - tma_base:   the same mbarrier work with no copy (the baseline to subtract);
//   - wgmma:      one wgmma.mma_async m64n64k16 f16 -> f32, A and B from shared-memory descriptors, under
//                 swizzle none / 32B / 64B / 128B, plus no-swizzle layouts whose core matrices share banks.
// One launch per probe, in the order printed; run under ncu to read the shared-memory counters. The
// values copied or multiplied are irrelevant (nothing checks them); only the access patterns matter.
//
// Build: nvcc -O3 -gencode arch=compute_90a,code=sm_90a -o tma_wgmma_probe tma_wgmma_probe.cu
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CK(x)                                                                                           \
    do {                                                                                                \
        cudaError_t e_ = (x);                                                                           \
        if (e_ != cudaSuccess) {                                                                        \
            fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #x, __FILE__, __LINE__, cudaGetErrorString(e_)); \
            exit(1);                                                                                    \
        }                                                                                               \
    } while (0)

static const int kSmemBytes = 64 * 1024;

__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t phase)
{
    asm volatile(
        "{\n .reg .pred p;\n"
        "WAIT_%=:\n"
        " mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
        " @!p bra WAIT_%=;\n}\n" ::"r"(bar),
        "r"(phase)
        : "memory");
}

// bytes == 0: the baseline (mbarrier init, arrive, wait; no copy).
extern "C" __global__ void bulk_copy(const unsigned char* src, unsigned bytes, unsigned dst_offset)
{
    extern __shared__ __align__(1024) unsigned char smem[];
    __shared__ __align__(8) unsigned long long bar;
    if (threadIdx.x == 0) {
        const uint32_t b = (uint32_t)__cvta_generic_to_shared(&bar);
        const uint32_t d = (uint32_t)__cvta_generic_to_shared(smem) + dst_offset;
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(bytes) : "memory");
        if (bytes)
            asm volatile(
                "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(d),
                "l"(src), "r"(bytes), "r"(b)
                : "memory");
        mbar_wait(b, 0);
    }
    __syncthreads();
}

extern "C" __global__ void tma_2d(const __grid_constant__ CUtensorMap map, unsigned bytes, int copies)
{
    extern __shared__ __align__(1024) unsigned char smem[];
    __shared__ __align__(8) unsigned long long bar;
    if (threadIdx.x == 0) {
        const uint32_t b = (uint32_t)__cvta_generic_to_shared(&bar);
        const uint32_t d = (uint32_t)__cvta_generic_to_shared(smem);
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(bytes * copies)
                     : "memory");
        for (int c = 0; c < copies; ++c)
            asm volatile(
                "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
                "[%4];" ::"r"(d + c * bytes),
                "l"(&map), "r"(0), "r"(c * 64), "r"(b)
                : "memory");
        mbar_wait(b, 0);
    }
    __syncthreads();
}

__device__ __forceinline__ uint64_t descriptor(uint32_t address, uint32_t lbo, uint32_t sbo, uint32_t swizzle)
{
    return (uint64_t)((address & 0x3FFFF) >> 4) | ((uint64_t)((lbo & 0x3FFFF) >> 4) << 16) |
           ((uint64_t)((sbo & 0x3FFFF) >> 4) << 32) | ((uint64_t)swizzle << 62);
}

#define D8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])

// One warpgroup (128 threads), one wgmma. swizzle: 0 none, 1 128B, 2 64B, 3 32B (the descriptor's field).
extern "C" __global__ void wgmma_probe(float* out, uint32_t a_off, uint32_t b_off, uint32_t lbo, uint32_t sbo,
                                       uint32_t swizzle)
{
    extern __shared__ __align__(1024) unsigned char smem[];
    const uint32_t base = (uint32_t)__cvta_generic_to_shared(smem);
    const uint64_t da = descriptor(base + a_off, lbo, sbo, swizzle);
    const uint64_t db = descriptor(base + b_off, lbo, sbo, swizzle);
    float d[32];
    for (int i = 0; i < 32; ++i) d[i] = 0.f;
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, 0, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
        "%32, %33, p, 1, 1, 0, 0;\n}\n"
        : D8(0), D8(8), D8(16), D8(24)
        : "l"(da), "l"(db)
        : "memory");
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    float s = 0.f;
    for (int i = 0; i < 32; ++i) s += d[i];
    out[threadIdx.x] = s;
}

typedef CUresult (*EncodeTiled)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

int main()
{
    unsigned char* d_src;
    float* d_out;
    const size_t global_bytes = 1 << 20;
    CK(cudaMalloc(&d_src, global_bytes));
    CK(cudaMemset(d_src, 0x11, global_bytes));
    CK(cudaMalloc(&d_out, 128 * sizeof(float)));
    CK(cudaFuncSetAttribute(bulk_copy, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
    CK(cudaFuncSetAttribute(tma_2d, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
    CK(cudaFuncSetAttribute(wgmma_probe, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
    int launch = 0;

    // bulk copies: baseline, then sizes, then a destination not 128-byte aligned
    const unsigned sizes[] = {0, 16, 128, 1024, 4096, 16384};
    for (unsigned bytes : sizes) {
        bulk_copy<<<1, 32, kSmemBytes>>>(d_src, bytes, 0);
        CK(cudaGetLastError());
        printf("PROBE %d bulk_copy bytes=%u dst_offset=0\n", launch++, bytes);
    }
    bulk_copy<<<1, 32, kSmemBytes>>>(d_src, 4096, 16);
    CK(cudaGetLastError());
    printf("PROBE %d bulk_copy bytes=4096 dst_offset=16\n", launch++);

    // TMA 2D tensor copies: a 1024 x 1024 uint32 matrix, 64-row boxes; box inner width = swizzle span
    // (128 B for no swizzle)
    void* entry = nullptr;
    cudaDriverEntryPointQueryResult found;
    CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &entry, 12000, cudaEnableDefault, &found));
    if (entry == nullptr) {
        fprintf(stderr, "cuTensorMapEncodeTiled not found\n");
        return 1;
    }
    EncodeTiled encode = (EncodeTiled)entry;
    struct Mode {
        const char* name;
        CUtensorMapSwizzle swizzle;
        unsigned inner_bytes;
    } modes[] = {{"none", CU_TENSOR_MAP_SWIZZLE_NONE, 128},
                 {"32B", CU_TENSOR_MAP_SWIZZLE_32B, 32},
                 {"64B", CU_TENSOR_MAP_SWIZZLE_64B, 64},
                 {"128B", CU_TENSOR_MAP_SWIZZLE_128B, 128}};
    for (const Mode& mode : modes) {
        for (int copies : {1, 4}) {
            CUtensorMap map;
            const cuuint64_t dims[2] = {256, 1024};  // elements: inner, outer
            const cuuint64_t strides[1] = {256 * 4};
            const cuuint32_t box[2] = {mode.inner_bytes / 4, 64};
            const cuuint32_t estrides[2] = {1, 1};
            CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2, d_src, dims, strides, box, estrides,
                                CU_TENSOR_MAP_INTERLEAVE_NONE, mode.swizzle, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
            if (r != CUDA_SUCCESS) {
                fprintf(stderr, "cuTensorMapEncodeTiled failed for swizzle %s: %d\n", mode.name, (int)r);
                return 1;
            }
            const unsigned bytes = mode.inner_bytes * 64;
            tma_2d<<<1, 32, kSmemBytes>>>(map, bytes, copies);
            CK(cudaGetLastError());
            printf("PROBE %d tma_2d swizzle=%s box=%ux64 bytes=%u copies=%d\n", launch++, mode.name,
                   mode.inner_bytes / 4, bytes, copies);
        }
    }

    // wgmma: A at 0, B at 8 KiB. K-major f16 64x16 tiles (A: M=64 rows, B: N=64 rows), 32 bytes of K per row.
    struct Layout {
        const char* name;
        uint32_t swizzle, lbo, sbo;
    } layouts[] = {
        {"none canonical (core matrices 128 B apart in K, 256 B apart in M/N)", 0, 128, 256},
        {"none, K-adjacent core matrices 1024 B apart, M/N 128 B", 0, 1024, 128},
        {"none, core matrices 4096 B apart in K and 512 B in M/N", 0, 4096, 512},
        {"32B swizzle, SBO 256 B", 3, 16, 256},
        {"64B swizzle, SBO 512 B", 2, 16, 512},
        {"128B swizzle, SBO 1024 B", 1, 16, 1024},
    };
    for (const Layout& layout : layouts) {
        wgmma_probe<<<1, 128, kSmemBytes>>>(d_out, 0, 8192 + 16384 * (layout.lbo >= 4096), layout.lbo, layout.sbo,
                                            layout.swizzle);
        CK(cudaGetLastError());
        printf("PROBE %d wgmma m64n64k16 f16 swizzle_field=%u lbo=%u sbo=%u : %s\n", launch++, layout.swizzle,
               layout.lbo, layout.sbo, layout.name);
    }
    CK(cudaDeviceSynchronize());
    printf("DONE %d launches\n", launch);
    return 0;
}
