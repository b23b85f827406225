__global__ void k(float *out)
{
    __shared__ float s[32];
again:
    s[threadIdx.x] = 1.0f;
    if (s[0] < 0.0f) goto again;
    out[threadIdx.x] = s[threadIdx.x];
}
void run(float *o) { k<<<1, 32>>>(o); }
