// A kernel compiled on its own: main.cu declares it and launches it (separate compilation).
__global__ void spread_bins(unsigned *counts, const unsigned *keys, int stride)
{
    __shared__ unsigned bins[256];
    bins[threadIdx.x] = 0;
    __syncthreads();
    atomicAdd(&bins[(threadIdx.x * stride) % 256], 1u);  // stride 8: lanes 4 apart share a bank
    __syncthreads();
    counts[blockIdx.x * 256 + threadIdx.x] = bins[threadIdx.x];
}

// No file launches this one: explain still asks for --block.
__global__ void never_launched(float *out)
{
    __shared__ float s[64];
    s[threadIdx.x] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = s[63 - threadIdx.x];
}
