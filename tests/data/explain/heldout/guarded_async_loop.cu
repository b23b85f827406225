// A double-buffered loop whose next-stage copy is guarded by `if (k + 1 < STEPS)`: explain's repeat probe
// (iterations that repeat the same accesses are counted, not run) recorded inline-PTX cp.async under that
// guard as if it always ran, one copy per warp too many (a held-out public WMMA HGEMM: 115,136 cp.async
// counted where the H100 trace has 114,688). Lanes whose condition is not known may not make a
// shared-memory access, PTX or not: the probe fails and the loop runs as written, 64 copies per warp.
#define STEPS 64

__device__ void copy16(void *dst_shared, const void *src)
{
    unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(dst_shared));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
}

__global__ void pipeline(const float4 *in, float *out)
{
    __shared__ float4 buf[2][32];
    const int lane = threadIdx.x;
    int stage = 0;
    copy16(&buf[0][lane], in + lane);
    asm volatile("cp.async.wait_all;\n" ::);
    __syncthreads();
    float acc = 0.0f;
    for (int k = 0; k < STEPS; ++k) {
        const int next = k + 1;
        if (next < STEPS) copy16(&buf[stage ^ 1][lane], in + next * 32 + lane);
        acc += buf[stage][lane].x;
        asm volatile("cp.async.wait_all;\n" ::);
        __syncthreads();
        stage ^= 1;
    }
    out[lane] = acc;
}

int main()
{
    const float4 *in = nullptr;
    float *out = nullptr;
    pipeline<<<1, 32>>>(in, out);
    return 0;
}
