// heldout: a brace list passed as a function argument builds the parameter's type: a float2
// for __float22bfloat162_rn, a struct by value or by const reference, an int2.
#include <cuda_bf16.h>

struct Step { int row; int col; };

__device__ int offset(Step s) { return s.row * 33 + s.col; }
__device__ int offset_ref(const Step &s) { return s.row * 4 + s.col; }
__device__ int sum(int2 v) { return v.x + v.y; }

__global__ void braced_args(float *out) {
  __shared__ float s[33 * 32];
  int t = threadIdx.x;
  float a = t, b = 2 * t;
  __nv_bfloat162 h = __float22bfloat162_rn({a, b});
  s[(int)__high2float(h)] = 0.f;
  s[offset({t, 1})] = 1.f;
  s[offset_ref({t, 2})] = 2.f;
  s[sum({2 * t, t})] = 3.f;
  out[t] = s[t];
}

int main() { braced_args<<<1, 32>>>(0); }
