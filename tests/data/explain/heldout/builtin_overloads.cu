// heldout: a file's own overloads of CUDA built-ins (exp of a float4, atomicMax of a float
// calling the int one), signbit, and a global pointer's address in an alignment test.
#include <cstddef>

__device__ float4 exp(float4 a) { return {exp(a.x), exp(a.y), exp(a.z), exp(a.w)}; }

__device__ float atomicMax(float *address, float val) {
  return !signbit(val) ? __int_as_float(atomicMax(reinterpret_cast<int *>(address), __float_as_int(val)))
                       : __uint_as_float(atomicMin(reinterpret_cast<unsigned *>(address), __float_as_uint(val)));
}

__global__ void builtin_overloads(const float *in, float *out) {
  __shared__ float s[32 * 33];
  int t = threadIdx.x;
  int stride = (int)exp(0.0f) * 2;                       // CUDA's exp(float): 2
  s[t * stride] = 1.f;                                   // 2t: 2-way
  float4 e = exp(make_float4(0.f, 0.f, 0.f, 0.f));       // the file's: (1, 1, 1, 1)
  s[t * (int)(e.x + e.y + e.z + e.w)] = 2.f;             // 4t: 4-way
  atomicMax(&s[t * 8 + signbit(-1.0f)], (float)t);       // the float overload, on 8t + 1: 8-way
  bool aligned = reinterpret_cast<size_t>(in) % 16 == 0;  // where global memory lies is not known
  if (aligned) out[t] = 0.f;                             // (a shared access here is refused)
  out[t] = s[t];
}

int main() { builtin_overloads<<<1, 32>>>(0, 0); }
