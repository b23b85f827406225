__global__ void k(float *out)
{
    __shared__ float s[32];
    s[threadIdx.x] = 1.0f;
    decltype(s[0]) alias = s[threadIdx.x];
    out[threadIdx.x] = alias;
}
void run(float *o) { k<<<1, 32>>>(o); }
