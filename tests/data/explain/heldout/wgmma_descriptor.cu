// A Hopper wgmma step as public wrappers write it: the B tile stored to shared memory by the threads, its
// generic address turned into a matrix descriptor (reinterpret_cast to an integer), a `.reg.pred` declared
// without a space, and wgmma.mma_async reading the tile through the descriptor.
#include <cstdint>
#include <cuda_fp16.h>

__device__ uint64_t make_descriptor(const half *tile)
{
    const uint64_t addr = reinterpret_cast<uint64_t>(tile);       // a generic address: not known
    return ((addr & 0x3FFFF) >> 4) | (uint64_t(8) << 16) | (uint64_t(64) << 32);
}

__global__ void wgmma_step(const half *B, float *out)
{
    __shared__ alignas(128) half tile[64 * 8];
    for (int i = threadIdx.x; i < 64 * 8; i += blockDim.x)
        tile[i] = B[i];                                              // line 17: 2-byte stores, contiguous
    __syncthreads();
    uint64_t desc = make_descriptor(&tile[0]);
    uint32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
    asm volatile("{\n\t"
                 ".reg.pred p;\n\t"
                 "setp.ne.b32 p, %9, 0;\n\t"
                 "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, "
                 "p, 1, 1, 0;\n"
                 "}\n"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(desc), "n"(1));
    out[threadIdx.x] = d0 + d1 + d2 + d3;
}

int main()
{
    wgmma_step<<<1, 128>>>(nullptr, nullptr);
    return 0;
}
