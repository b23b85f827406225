__global__ void k(float *out)
{
    __shared__ float s[32];
again:
    s[threadIdx.x] = 1.0f;
    if (threadIdx.x < 16) goto again;
    out[threadIdx.x] = s[threadIdx.x];
}
void run(float *o) { k<<<1, 32>>>(o); }
