// Kernels in the style of a well-known LLM training repository: Packed128 loads into
// shared memory, a block reduction through warp shuffles, float2 and float4 accesses.
#include "llm_common.h"

__global__ void scale_rows(float* out, const float* inp, const float* weight, int N, int C) {
    extern __shared__ float shared[];
    int idx = blockIdx.x;
    const float* x = inp + idx * C;
    // one f128 per thread: 4 floats of the row into shared memory, 16-byte stores
    f128 packed;
    for (int k = 0; k < f128::size; ++k) {
        packed[k] = x[threadIdx.x * f128::size + k];
    }
    float4* s4 = reinterpret_cast<float4*>(shared);
    s4[threadIdx.x] = make_float4(packed[0], packed[1], packed[2], packed[3]);
    __syncthreads();
    // read back as float2: 8-byte loads
    float2* s2 = reinterpret_cast<float2*>(shared);
    float2 pair = s2[threadIdx.x * 2 + 1];
    float v = pair.x + pair.y;
    v = warpReduceSum(v);
    __shared__ float warp_sums[WARP_SIZE];
    int warp = threadIdx.x / WARP_SIZE;
    int lane = threadIdx.x % WARP_SIZE;
    if (lane == 0) { warp_sums[warp] = v; }
    __syncthreads();
    float total = lane < blockDim.x / WARP_SIZE ? warp_sums[lane] : 0.0f;   // broadcast-free read
    float first = warp_sums[0];                                            // broadcast
    if (weight != NULL) total *= weight[idx];
    if (threadIdx.x == 0) { out[idx] = total + first; }
}

void launch(float* out, const float* inp, const float* weight, int N, int C) {
    const int block_size = 128;
    scale_rows<<<N, block_size, block_size * 4 * sizeof(float)>>>(out, inp, weight, N, C);
}
