// Block sum: a shared-memory tree down to 64 values, then warp shuffles. Divergent `if`s
// leave lanes inactive; the engine sees only the active ones.
#define THREADS 256

__device__ float warp_sum(float v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}

__global__ void block_sum(const float *in, float *out, int n)
{
    __shared__ float partial[THREADS];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    partial[tid] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        float v = partial[tid] + partial[tid + 32];
        v = warp_sum(v);
        if (tid == 0)
            out[blockIdx.x] = v;
    }
}

int main()
{
    const int n = 1 << 20;
    block_sum<<<n / THREADS, THREADS>>>(in_d, out_d, n);
}
