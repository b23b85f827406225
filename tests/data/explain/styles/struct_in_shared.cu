struct Pair { float a, b; };

__global__ void k(float *out)
{
    __shared__ Pair s[32];
    s[threadIdx.x].a = 1.0f;
    out[threadIdx.x] = s[threadIdx.x].a;
}
void run(float *o) { k<<<1, 32>>>(o); }
