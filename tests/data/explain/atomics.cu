// Shared-memory atomics for bankism explain: each call compiles to the SASS in bankism.isa.atomic_form.
#define N 64

__global__ void atomics(float* out, long long* big)
{
    __shared__ int hist[2][256];
    __shared__ float sums[64];
    __shared__ unsigned flags[64];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    hist[warp][lane] = 0;
    __syncthreads();
    atomicAdd(&hist[warp][(lane * 8) % 256], 1);
    int old = atomicAdd(&hist[warp][lane], 1);
    atomicMin(&hist[warp][lane * 2], old);
    atomicMax(&flags[lane % 4], 3u);
    atomicAdd(&sums[(lane * 2) % 64], 1.0f);
    atomicXor(&flags[lane], 5u);
    atomicAdd(&hist[warp][0], 2);
    __syncthreads();
    out[threadIdx.x] = sums[lane] + hist[warp][lane];
}

__global__ void atomics64(long long* out)
{
    __shared__ long long wide[32];
    wide[threadIdx.x % 32] = 0;
    __syncthreads();
    atomicMax(&wide[threadIdx.x % 4], (long long)threadIdx.x);
    out[threadIdx.x] = wide[threadIdx.x % 32];
}
