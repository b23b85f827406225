// Constructs a held-out scout (scout 8) met in public kernels, each in a kernel of our own.
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cstdint>
namespace cg = cooperative_groups;
extern "C" __device__ uint32_t __nvvm_get_smem_pointer(void *ptr);

// PTX whose opcode runs into its first operand's brace, erff, the NVVM shared-pointer intrinsic and
// cg::this_thread(): the stride each store uses comes from them.
__global__ void ptx_math(float *out)
{
    __shared__ float s[1024];
    unsigned r = 2, lo, hi;
    uint32_t at = (uint32_t)__cvta_generic_to_shared(&s[512 + threadIdx.x * 2]);
    asm volatile("ld.shared.v2.u32{%0, %1}, [%2];" : "=r"(lo), "=r"(hi) : "r"(at)); // line 15: LDS.64, free
    s[threadIdx.x * r] = 1.0f;                                                 // line 16: stride 2: 2-way
    int e = (int)(erff(1.0f) * 10.0f);                                         // erf(1) = 0.8427: e = 8
    s[threadIdx.x * e] = 2.0f;                                                 // line 18: stride 8: 8-way
    uint32_t base = __nvvm_get_smem_pointer(&s[0]);
    uint32_t mine = __nvvm_get_smem_pointer(&s[threadIdx.x * 4]);
    s[(mine - base) / 4] = 3.0f;                                               // line 21: stride 4: 4-way
    auto me = cg::this_thread();
    s[threadIdx.x * (me.size() + me.thread_rank())] = 4.0f;                   // line 23: size 1, rank 0: free
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x];
}

// Two function templates that differ only in the second parameter's type: the call passes an unsigned
// threadIdx.x, which picks the second exactly.
template <typename T> __device__ void step(T *s, int t) { s[t * 32] += 1; }          // line 30: 32-way
template <typename T> __device__ void step(T *s, unsigned int t) { s[t * 2] += 1; }  // line 31: 2-way
__global__ void overloads(float *out)
{
    __shared__ float s[2048];
    step<float>(s, threadIdx.x);
    out[threadIdx.x] = s[threadIdx.x];
}

// An array of barriers: a member function called on one element.
__global__ void barrier_array(const float *g, float *out)
{
    __shared__ cuda::barrier<cuda::thread_scope::thread_scope_block> bars[2];
    __shared__ float s[2][128];
    if (threadIdx.x == 0) {
        init(&bars[0], blockDim.x);
        init(&bars[1], blockDim.x);
    }
    __syncthreads();
    for (int stage = 0; stage < 2; ++stage) {
        cuda::memcpy_async(&s[stage][threadIdx.x], &g[stage * 128 + threadIdx.x], sizeof(float), bars[stage]);
        bars[stage].arrive_and_wait();
    }
    out[threadIdx.x] = s[1][127 - threadIdx.x];                              // line 53: free
}

int main()
{
    ptx_math<<<1, 32>>>(nullptr);
    overloads<<<1, 32>>>(nullptr);
    barrier_array<<<1, 128>>>(nullptr, nullptr);
    return 0;
}
