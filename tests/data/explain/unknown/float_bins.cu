// A float histogram: atomicAdd on float compiles to an LDS + ATOMS.CAST.SPIN retry loop on sm_90,
// whose iterations depend on the bins (tests/test_explain_unknown_addresses.py).
__global__ void float_bins(const unsigned char *bins, const float *weights, float *out)
{
    __shared__ float sums[64];
    int t = threadIdx.x;
    if (t < 64) sums[t] = 0.0f;
    __syncthreads();
    atomicAdd(&sums[bins[blockIdx.x * 128 + t] & 63], weights[t]);   // 9
    __syncthreads();
    if (t < 64) out[blockIdx.x * 64 + t] = sums[t];                  // 11
}

void run(const unsigned char *b, const float *w, float *o) { float_bins<<<4, 128>>>(b, w, o); }
