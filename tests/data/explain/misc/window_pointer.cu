// bankism test kernel: a shared-window address kept in a pointer for inline PTX, as public cp.async
// GEMMs write it: reinterpret_cast<T *>(__cvta_generic_to_shared(p)) passed as an "l" operand.
#include <cuda_fp16.h>

__device__ __forceinline__ void copy16(half* shared, const half* global)
{
    half2* window = reinterpret_cast<half2*>(__cvta_generic_to_shared(shared));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16, 16;\n" :: "l"(window), "l"(global));
}

__global__ void window_pointer(const half* in, float* out)
{
    __shared__ __align__(16) half tile[32][40];
    const int row = threadIdx.x / 4, chunk = threadIdx.x % 4;
    copy16(&tile[row][chunk * 8], in + row * 32 + chunk * 8);
    asm volatile("cp.async.wait_all;\n" ::);
    __syncthreads();
    half2* window = reinterpret_cast<half2*>(__cvta_generic_to_shared(&tile[threadIdx.x][0]));
    unsigned r0, r1, r2, r3;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "l"(window + 4));
    out[threadIdx.x] = (float)(r0 ^ r1 ^ r2 ^ r3);
}

int main()
{
    half* in;
    float* out;
    cudaMalloc(&in, 32 * 32 * sizeof(half));
    cudaMalloc(&out, 32 * sizeof(float));
    window_pointer<<<1, 32>>>(in, out);
    return cudaDeviceSynchronize() != cudaSuccess;
}
