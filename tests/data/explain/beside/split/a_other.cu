// Another program of the same tree with its own kernel of the same name, launched with another
// shape: its launch is not bins.cu's (explain passes it over).
__global__ void spread_bins(unsigned *counts, const unsigned *keys, int stride)
{
    __shared__ unsigned bins[32];
    bins[threadIdx.x] = keys[threadIdx.x];
    __syncthreads();
    counts[threadIdx.x] = bins[(threadIdx.x * stride) % 32];
}

int main()
{
    spread_bins<<<1, 32>>>(nullptr, nullptr, 1);
    return 0;
}
