__global__ void histogram(const unsigned char *data, unsigned int *out)
{
    __shared__ unsigned int hist[256];
    hist[threadIdx.x] = 0;
    __syncthreads();
    atomicAdd(&hist[data[blockIdx.x * blockDim.x + threadIdx.x]], 1u);
    __syncthreads();
    out[threadIdx.x] = hist[threadIdx.x];
}
void run(const unsigned char *d, unsigned int *o) { histogram<<<4, 256>>>(d, o); }
