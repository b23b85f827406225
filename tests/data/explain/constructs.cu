// Many constructs at once: namespaces, extern "C", a template __device__ function with shuffles,
// float4 shared arrays, double buffering, shared pointers and pointer arithmetic, C casts of
// addresses, a volatile warp-synchronous reduction, 2-D local arrays, sizeof of a vector type.
#include <cuda_runtime.h>
#include <cstdio>
#define TILE 32
#define IDX(r, c) ((r) * TILE + (c))
namespace ns {
template <typename T>
__device__ __forceinline__ T warp_reduce(T v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
}
extern "C" __global__ void __launch_bounds__(256) fancy(const float4 *__restrict__ in, float *out, int n) {
    __shared__ float4 buf[2][TILE];
    __shared__ float red[8];
    __shared__ float tile[TILE][TILE + 1];
    const int tid = threadIdx.x;
    const int lane = tid & 31, warp = tid >> 5;
    int stage = 0;
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int it = 0; it < 4; ++it) {
        if (tid < TILE) buf[stage][tid] = in[it * TILE + tid];
        __syncthreads();
        float4 v = buf[stage][lane];
        acc.x += v.x; acc.y += v.y;
        stage ^= 1;
    }
    float *p = &tile[warp][0];
    p[lane] = acc.x;
    p++;
    *(float4 *)&tile[0][4 * (lane % 8)] = acc;
    float s = ns::warp_reduce(acc.x + acc.y);
    if (lane == 0) red[warp] = s;
    __syncthreads();
    if (tid < 8) {
        volatile float *vr = red;
        if (tid < 4) vr[tid] += vr[tid + 4];
        if (tid < 2) vr[tid] += vr[tid + 2];
        if (tid < 1) vr[tid] += vr[tid + 1];
    }
    float regs[2][2] = {{1.f, 2.f}, {3.f, 4.f}};
    out[tid] = regs[lane % 2][1] + tile[lane][IDX(0, warp) % 33] + red[0] + sizeof(float4);
    printf("%d\n", tid);
}
int main() {
    int n = 4096;
    fancy<<<(n + 255) / 256, 256>>>(nullptr, nullptr, n);
}
