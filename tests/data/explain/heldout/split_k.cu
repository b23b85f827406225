// heldout: a split-K HGEMM epilogue adds half2 pairs into global memory with atomicAdd (no
// shared access: never a refusal), and half bits read as an unsigned short pick the index.
#include <cuda_fp16.h>

__global__ void splitKEpilogue(half *c, int ldc) {
  __shared__ half tile[32 * 40];
  for (int i = threadIdx.x; i < 32 * 40; i += blockDim.x) tile[i] = __float2half(1.f);
  __syncthreads();
  int row = threadIdx.x / 4, col = (threadIdx.x % 4) * 8;
  half2 pair = *reinterpret_cast<half2 *>(&tile[row * 40 + col]);
  if (gridDim.z > 1) {
    half2 old = atomicAdd(reinterpret_cast<half2 *>(&c[row * ldc + col]), pair);
    (void)old;
  }
  unsigned short bits = __half_as_ushort(__float2half(2.f));  // 0x4000
  tile[(bits >> 12) * 40 + threadIdx.x] = __ushort_as_half(bits);
}

int main() { splitKEpilogue<<<dim3(4, 4, 2), 32>>>(0, 1024); }
