// bankism tracer: device patch functions for the asynchronous copies into shared memory and the wgmma
// operand reads (included at the end of tracer_patches.cu, whose helpers they use).
//
// - bankism_memcpy_async (SANITIZER_INSTRUCTION_MEMCPY_ASYNC): every active lane of a cp.async (LDGSTS)
//   reports its own shared destination; recorded like an ordinary access, kind BANKISM_KIND_ASYNC_COPY,
//   with 14 bits of the global source address above the 18 bits of the shared offset.
// - bankism_bulk_copy (SANITIZER_INSTRUCTION_BULK_COPY_GLOBAL_TO_SHARED): cp.async.bulk global -> shared;
//   one event per warp-instruction (kind BANKISM_KIND_BULK_COPY): addresses[0] the shared destination,
//   [1] the bytes (16 x the requested blocks), [2] the mbarrier, [3] the multicast mask, width 1 when
//   multicast.
// - bankism_wgmma (SANITIZER_INSTRUCTION_WARPGROUP_MMA_ASYNC): one event per warpgroup-instruction,
//   written by the warpgroup's first warp (kind BANKISM_KIND_WGMMA): addresses[0..3] = A's shared
//   address, A's size in shared memory (0: A from registers), B's address, B's size; flags = the
//   Sanitizer_WarpgroupMMAAsyncFlags; active = the warp mask the API reported.
#pragma once

// One event record, written by the lowest active lane of the warp (the API gives every lane the same values).
__device__ __forceinline__ void record_event(TraceControl* control, uint64_t pc, uint32_t kind, uint32_t a0,
                                             uint32_t a1, uint32_t a2, uint32_t a3, uint32_t flags,
                                             uint32_t width, uint32_t active)
{
    if (control == nullptr || !control->enabled || !block_selected(control)) return;
    const uint32_t together = __match_any_sync(__activemask(), pc);
    if (lane_id() != (uint32_t)(__ffs(together) - 1)) return;
    const unsigned long long slot = atomicAdd(&control->count, 1ULL);
    if (slot >= control->capacity) return;
    RawRecord* record = &control->records[slot];
    const uint32_t linear_thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    record->pc = pc;
    record->block[0] = blockIdx.x;
    record->block[1] = blockIdx.y;
    record->block[2] = blockIdx.z;
    record->warp = linear_thread / 32;
    record->active = active;
    record->flags = flags;
    record->width = (uint16_t)width;
    record->matrices = 0;
    record->kind = kind;
    for (uint32_t lane = 0; lane < 32; ++lane) record->addresses[lane] = 0;
    record->addresses[0] = a0;
    record->addresses[1] = a1;
    record->addresses[2] = a2;
    record->addresses[3] = a3;
}

extern "C" __device__ __noinline__ SanitizerPatchResult bankism_memcpy_async(
    void* userdata, uint64_t pc, void* src, uint32_t dst, uint32_t accessSize)
{
    // Bits 18..31 of the recorded address carry bits 2..15 of the global source (BANKISM_ASYNC_SOURCE_SHIFT):
    // the H100 groups an LDGSTS's shared writes by the global lines it reads (docs/rules.md, "cp.async").
    const uint32_t source = (uint32_t)(((uintptr_t)src >> 2) & BANKISM_ASYNC_SOURCE_MASK);
    record_access((TraceControl*)userdata, pc, dst | (source << BANKISM_ASYNC_SOURCE_SHIFT), accessSize,
                  BANKISM_FLAG_WRITE, 0, BANKISM_KIND_ASYNC_COPY);
    return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult bankism_bulk_copy(
    void* userdata, uint64_t pc, uint64_t src, uint32_t dst, uint32_t barrier, uint32_t data, uint32_t isMulticast)
{
    record_event((TraceControl*)userdata, pc, BANKISM_KIND_BULK_COPY, dst, (data & 0xFFFFu) * 16u, barrier,
                 data >> 16, BANKISM_FLAG_WRITE, isMulticast ? 1 : 0, __activemask());
    return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult bankism_wgmma(
    void* userdata, uint64_t pc, uint32_t addressMatrixA, uint32_t sizeMatrixA, uint32_t addressMatrixB,
    uint32_t sizeMatrixB, uint32_t flags, uint32_t warpMask)
{
    const uint32_t linear_thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    if ((linear_thread / 32) % 4 != 0) return SANITIZER_PATCH_SUCCESS;  // one event per warpgroup
    record_event((TraceControl*)userdata, pc, BANKISM_KIND_WGMMA, addressMatrixA, sizeMatrixA, addressMatrixB,
                 sizeMatrixB, flags, 0, warpMask);
    return SANITIZER_PATCH_SUCCESS;
}
