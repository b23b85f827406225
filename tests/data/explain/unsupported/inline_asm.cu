__global__ void k(float *out)
{
    __shared__ float s[32];
    unsigned int addr;
    asm volatile("cvta.to.shared.u32 %0, %1;" : "=r"(addr) : "l"(s));
    out[threadIdx.x] = s[threadIdx.x];
}
void run(float *o) { k<<<1, 32>>>(o); }
