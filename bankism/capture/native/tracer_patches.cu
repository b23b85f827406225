// bankism tracer: device patch functions the Sanitizer API calls at every shared-memory instruction.
//
// Each active lane calls the patch for its own access. The lanes that arrived together at the same
// instruction (same pc) form one warp-instruction: the lowest of them reserves a record, every lane writes
// its own address into it, and the leader fills in the rest. Built with
//   nvcc --fatbin --keep-device-functions -Xptxas --compile-as-tools-patch
#include <sanitizer_patching.h>

#include "tracer_records.h"

__device__ __forceinline__ uint32_t lane_id()
{
    uint32_t lane;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}

__device__ __forceinline__ uint32_t dynamic_shared_size()
{
    uint32_t size;
    asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(size));
    return size;
}

// The block's rank in its thread-block cluster (0 outside a cluster launch, and before sm_90). In a cluster
// launch the Sanitizer API gives shared addresses in the cluster's window: bits 24 and up name the block
// whose shared memory is accessed, so the Python side tells a block's own accesses from distributed
// shared memory ones (bankism/capture/cluster.py). It travels in bits 16 and up of RawRecord.kind.
__device__ __forceinline__ uint32_t cluster_rank()
{
    uint32_t rank = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
#endif
    return rank;
}

__device__ __forceinline__ bool block_selected(const TraceControl* control)
{
    if (control->block_mode == BLOCKS_ALL) return true;
    if (control->block_mode == BLOCKS_FIRST || control->block_mode == BLOCKS_EVERY) {
        const unsigned long long linear = blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y +
                                          (unsigned long long)gridDim.y * blockIdx.z);
        if (control->block_mode == BLOCKS_EVERY) return linear % control->block_limit == 0;
        return linear < control->block_limit;
    }
    for (uint32_t i = 0; i < control->selected_count; ++i) {
        if (control->selected[3 * i] == blockIdx.x && control->selected[3 * i + 1] == blockIdx.y &&
            control->selected[3 * i + 2] == blockIdx.z)
            return true;
    }
    return false;
}

__device__ __forceinline__ void record_access(TraceControl* control, uint64_t pc, uint32_t address,
                                              uint32_t width, uint32_t flags, uint32_t matrices, uint32_t kind)
{
    if (control == nullptr || !control->enabled || !block_selected(control)) return;
    const uint32_t active = __activemask();
    const uint32_t together = __match_any_sync(active, pc);
    const uint32_t lane = lane_id();
    const uint32_t leader = __ffs(together) - 1;
    unsigned long long slot = 0;
    if (lane == leader) slot = atomicAdd(&control->count, 1ULL);
    slot = __shfl_sync(together, slot, leader);
    if (slot >= control->capacity) return;
    RawRecord* record = &control->records[slot];
    record->addresses[lane] = address;
    if (lane != leader) return;
    const uint32_t linear_thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    record->pc = pc;
    record->block[0] = blockIdx.x;
    record->block[1] = blockIdx.y;
    record->block[2] = blockIdx.z;
    record->warp = linear_thread / 32;
    record->active = together;
    record->flags = flags;
    record->width = (uint16_t)width;
    record->matrices = (uint16_t)matrices;
    record->kind = kind | (cluster_rank() << 16);
    for (uint32_t other = 0; other < 32; ++other)
        if (!((together >> other) & 1u)) record->addresses[other] = 0;
    if (!control->dynamic_shared_seen) {
        control->dynamic_shared = dynamic_shared_size();
        control->dynamic_shared_seen = 1;
    }
}

// The Sanitizer API documents `ptr` as the offset in the shared window; a generic pointer into the window
// is converted the same way, so either form ends up as what __cvta_generic_to_shared gives.
__device__ __forceinline__ uint32_t shared_offset(void* ptr)
{
    if (__isShared(ptr)) return (uint32_t)__cvta_generic_to_shared(ptr);
    return (uint32_t)(uintptr_t)ptr;
}

extern "C" __device__ __noinline__ SanitizerPatchResult bankism_shared_access(
    void* userdata, uint64_t pc, void* ptr, uint32_t accessSize, uint32_t flags, const void* pData)
{
    record_access((TraceControl*)userdata, pc, shared_offset(ptr), accessSize, flags, 0, 1);
    return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult bankism_matrix_access(
    void* userdata, uint64_t pc, uint32_t address, uint32_t accessSize, uint32_t flags, uint32_t count,
    const void* pNewValue)
{
    record_access((TraceControl*)userdata, pc, address, accessSize, flags, count, 2);
    return SANITIZER_PATCH_SUCCESS;
}

#include "tracer_async_patches.cuh"
