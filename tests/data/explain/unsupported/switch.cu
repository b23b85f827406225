__global__ void k(float *out)
{
    __shared__ float s[32];
    switch (threadIdx.x % 2) {
    case 0: s[threadIdx.x] = 1.0f; break;
    default: s[threadIdx.x] = 2.0f;
    }
    out[threadIdx.x] = s[threadIdx.x];
}
void run(float *o) { k<<<1, 32>>>(o); }
