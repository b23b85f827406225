// heldout: the address of a member of a local struct of one scalar type (half4, int8_2), reinterpreted.
#include <cuda_fp16.h>
struct half4 { half x, y, z, w; };
struct int8_2 { signed char x, y; };
__global__ void packed(const half4 *in, float *out) {
  __shared__ float s[256];
  half4 v = in[threadIdx.x];
  half4 k = {__float2half(1.f), __float2half(2.f), __float2half(3.f), __float2half(4.f)};
  half2 *pair = (half2 *)&k.z;
  int8_2 *bytes = (int8_2 *)&v.x;
  int offset = (int)__half2float(pair->x) + (int)__half2float(k.w);
  s[threadIdx.x + offset] = (float)bytes->x;
  out[threadIdx.x] = s[threadIdx.x];
}
int main() { packed<<<1, 32>>>(0, 0); }
