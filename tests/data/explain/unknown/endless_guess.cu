// A loop whose trip count depends on a parameter nobody gave, with a shared access in it: explain runs it
// while its lanes may run and lists the access each time (16 warp-instructions: two passes), within the
// uncounted limit.
__global__ void strided(float *out, int n)
{
    __shared__ float s[256];
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        s[i % 256] = out[i];                                           // 8
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x];
}

void run(float *out, int n) { strided<<<1, 256>>>(out, n); }
