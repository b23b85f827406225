// bankism tracer smoke test: one block of 64 threads (2 warps) touching shared memory in known ways, so a
// trace of it can be checked address by address. Prints the shared-window offsets of its arrays (the values
// __cvta_generic_to_shared gives) as one JSON line; exits 1 if a result is wrong.
#include <cstdint>
#include <cstdio>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #call, __FILE__, __LINE__, cudaGetErrorString(e_)); \
    return 1; } } while (0)

__global__ void smoke(unsigned* out)
{
    __shared__ float f[64];
    __shared__ double d[64];
    __shared__ unsigned counters[4];
    __shared__ __align__(128) unsigned short m[8 * 8];
    extern __shared__ float dyn[];
    const unsigned t = threadIdx.x, lane = t % 32;
    if (t < 4) counters[t] = 0;
    f[t] = (float)t;                                   // STS: 4-byte, lane i at 4*i
    d[t] = (double)t;                                  // STS.64
    dyn[t] = 2.0f * t;                                 // STS into dynamic shared memory
    if (t < 64) m[t] = (unsigned short)(t * 3);        // STS.U16
    __syncthreads();
    float a = f[(2 * t) % 64];                         // LDS: stride 8 bytes
    double b = d[t ^ 1];                               // LDS.64
    float c = (t % 3 == 0) ? f[63 - t] : 0.0f;         // LDS with a partial active mask
    atomicAdd(&counters[t % 4], 1u);                   // ATOMS.ADD: 4 addresses
    uint32_t frag;
    const uint32_t row = static_cast<uint32_t>(__cvta_generic_to_shared(&m[(lane % 8) * 8]));
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(frag) : "r"(row));
    float e = dyn[63 - t];
    __syncthreads();
    out[t] = (unsigned)a + (unsigned)b + (unsigned)c + counters[t % 4] + frag + (unsigned)e;
    if (t == 0) {
        out[64] = static_cast<unsigned>(__cvta_generic_to_shared(f));
        out[65] = static_cast<unsigned>(__cvta_generic_to_shared(d));
        out[66] = static_cast<unsigned>(__cvta_generic_to_shared(counters));
        out[67] = static_cast<unsigned>(__cvta_generic_to_shared(m));
        out[68] = static_cast<unsigned>(__cvta_generic_to_shared(dyn));
    }
}

int main()
{
    unsigned* d_out;
    unsigned h_out[69];
    CK(cudaMalloc(&d_out, sizeof(h_out)));
    smoke<<<1, 64, 64 * sizeof(float)>>>(d_out);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h_out, d_out, sizeof(h_out), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (unsigned t = 0; t < 64; ++t) {
        const unsigned lane = t % 32;
        unsigned a = (2 * t) % 64, b = t ^ 1, c = (t % 3 == 0) ? 63 - t : 0, e = 2 * (63 - t);
        unsigned frag = ((lane / 4) * 8 + 2 * (lane % 4)) * 3 | (((lane / 4) * 8 + 2 * (lane % 4) + 1) * 3) << 16;
        bad += h_out[t] != a + b + c + 16 + frag + e;
    }
    printf("{\"smoke\": %s, \"f\": %u, \"d\": %u, \"counters\": %u, \"m\": %u, \"dyn\": %u}\n", bad ? "\"FAIL\"" : "\"OK\"",
           h_out[64], h_out[65], h_out[66], h_out[67], h_out[68]);
    return bad ? 1 : 0;
}
