// bankism test kernel: a 3-stage cp.async pipeline (commit_group / wait_group) that streams
// 32x32 float tiles through shared memory and reads each tile by columns.
//
// Each of the 256 threads copies one 16-byte chunk per stage with cp.async.cg; the last tile
// goes through cp.async.ca with a src-size operand (zero-fill past the valid bytes). The
// consumer reads buf[stage][lane][k]: a column of the tile, 32 rows 128 bytes apart: every
// lane in bank k, a 32-way conflict (PAD = 1 in a padded variant would fix it, but then
// rows are not 16-byte aligned for cp.async).
#include <cstdint>

constexpr int STAGES = 3, TILES = 6, THREADS = 256;

__device__ __forceinline__ void issue(float* stage, const float* tile, int tid, int valid)
{
    const uint32_t dst = static_cast<uint32_t>(__cvta_generic_to_shared(stage + (tid / 8) * 32 + (tid % 8) * 4));
    const float* src = tile + tid * 4;
    if (valid == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(src));
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;" :: "r"(dst), "l"(src), "r"(valid));
}

__global__ void __launch_bounds__(THREADS) pipeline(const float* in, float* out)
{
    __shared__ __align__(16) float buf[STAGES][32][32];
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    float sum = 0.0f;
    for (int s = 0; s < STAGES - 1; ++s) {
        issue(&buf[s][0][0], in + s * 1024, tid, 16);
        asm volatile("cp.async.commit_group;" ::: "memory");
    }
    for (int t = 0; t < TILES; ++t) {
        const int next = t + STAGES - 1;
        if (next < TILES)
            issue(&buf[next % STAGES][0][0], in + next * 1024, tid, next == TILES - 1 ? 8 : 16);
        asm volatile("cp.async.commit_group;" ::: "memory");
        asm volatile("cp.async.wait_group %0;" :: "n"(STAGES - 1) : "memory");
        __syncthreads();
        for (int k = warp; k < 32; k += THREADS / 32)
            sum += buf[t % STAGES][lane][k];
        __syncthreads();
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
    out[tid] = sum;
}

void run(const float* in, float* out) { pipeline<<<1, THREADS>>>(in, out); }
