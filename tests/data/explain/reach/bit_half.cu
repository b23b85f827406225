// reach: bit intrinsics and half2 arithmetic deciding (or feeding) shared addresses.
#include <cuda_fp16.h>

__global__ void bitsAndHalves(const half2 *a, const half2 *b, float *out, unsigned salt) {
  __shared__ unsigned slots[256];
  __shared__ half2 prods[64];
  unsigned t = threadIdx.x;
  slots[__ffs(t + 1) * 8 + (t & 7)] = t;
  slots[__clz(t + 1) + 64] = t;
  slots[(__brev(t) >> 27) * 3] = t;
  slots[__popc(t * 2654435761u) + 128] = t;
  slots[__usad4(t, 0x01020304u, 5u) & 255] = t;
  slots[__byte_perm(t, 0x55u, 0x3210u) & 63] = t;
  slots[__funnelshift_l(t << 28, t, 4) & 255] = t;
  slots[(__ffsll(1ull << (t & 31)) + __clzll(1ull << 40)) & 255] = t;
  prods[t & 63] = __hmul2(a[t], b[t]) * a[t] + __float2half2_rn(1.0f);
  __syncthreads();
  out[t] = __low2float(prods[63 - (t & 63)]) + slots[t] + salt;
}

int main() { bitsAndHalves<<<1, 32>>>(0, 0, 0, 7u); }
