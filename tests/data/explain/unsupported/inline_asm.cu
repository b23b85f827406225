__global__ void k(float *out)
{
    __shared__ float s[32];
    unsigned int addr;
    asm volatile("cvta.to.shared.u32 %0, %1;" : "=r"(addr) : "l"(s));
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%0], %1, [%0];" :: "r"(addr), "r"(1u));
    out[threadIdx.x] = s[threadIdx.x];
}
void run(float *o) { k<<<1, 32>>>(o); }
