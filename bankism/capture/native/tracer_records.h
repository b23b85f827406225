// bankism tracer: the layout shared by the device patch functions, the host injection library and the
// Python reader (bankism/capture/raw.py mirrors RawRecord as a NumPy dtype; keep the two in step).
#pragma once

#include <stdint.h>

#define BANKISM_MAX_SELECTED_BLOCKS 64

// One warp-instruction that touched shared memory: 168 bytes.
struct RawRecord {
    uint64_t pc;             // program counter the Sanitizer API reports for the instruction
    uint32_t block[3];       // blockIdx
    uint32_t warp;           // linear thread index / 32
    uint32_t active;         // lanes that executed this instruction together
    uint32_t flags;          // Sanitizer_DeviceMemoryFlags (read, write, atomic)
    uint16_t width;          // bytes per lane (matrix ops: 16)
    uint16_t matrices;       // ldmatrix/stmatrix: number of 8x8 matrices; 0 otherwise
    uint32_t kind;           // BANKISM_KIND_* below | the block's cluster rank << 16
    uint32_t addresses[32];  // byte offset in the shared window per lane; 0 for lanes not in `active`
};

// RawRecord.kind values (bankism/tracing.py mirrors them as KIND_*).
#define BANKISM_KIND_SHARED 1      // LDS, STS, ATOMS: one address per lane
#define BANKISM_KIND_MATRIX 2      // LDSM, STSM: one row address per lane
#define BANKISM_KIND_ASYNC_COPY 3  // cp.async (LDGSTS): the shared destination per lane
#define BANKISM_KIND_BULK_COPY 4   // cp.async.bulk global -> shared: an event (tracer_async_patches.cuh)
#define BANKISM_KIND_WGMMA 5       // wgmma.mma_async operands in shared memory: an event
#define BANKISM_FLAG_WRITE 0x2     // SANITIZER_MEMORY_DEVICE_FLAG_WRITE
// ASYNC_COPY records: addresses[lane] = shared offset (bits 0..17) | bits 2..15 of the global source << 18.
#define BANKISM_ASYNC_SOURCE_SHIFT 18
#define BANKISM_ASYNC_SOURCE_MASK 0x3FFFu

enum BlockMode : uint32_t { BLOCKS_ALL = 0, BLOCKS_FIRST = 1, BLOCKS_LIST = 2, BLOCKS_EVERY = 3 };

// Per-launch control block in device memory; the patch functions get it as their userdata.
struct TraceControl {
    RawRecord* records;
    unsigned long long capacity;  // records the buffer holds
    unsigned long long count;     // warp-instructions seen (may exceed capacity: the rest are dropped)
    uint32_t enabled;
    uint32_t block_mode;
    uint32_t block_limit;         // BLOCKS_FIRST: keep linear index < block_limit; BLOCKS_EVERY: the stride
    uint32_t selected_count;      // BLOCKS_LIST: number of entries in selected
    uint32_t dynamic_shared;      // %dynamic_smem_size, as the kernel saw it
    uint32_t dynamic_shared_seen;
    uint32_t selected[3 * BANKISM_MAX_SELECTED_BLOCKS];
};

#ifdef __cplusplus
static_assert(sizeof(RawRecord) == 168, "RawRecord layout changed: update bankism/capture/raw.py");
#endif
