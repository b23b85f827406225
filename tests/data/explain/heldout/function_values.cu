// heldout: a function named as a value (a built-in like fmaxf, or a __device__ function) passed
// to a template helper that calls it: the call is a call of that function.
__device__ float twice_sum(float a, float b) { return 2.0f * (a + b); }

template <typename F, typename V>
__device__ V combine(F f, V a, V b) { return f(a, b); }

__global__ void function_values(float *out) {
  __shared__ float s[32 * 33];
  int t = threadIdx.x;
  int stride = (int)combine(fmaxf, 2.0f, 4.0f);           // 4
  s[t * stride] = 1.f;                                     // 4-way
  int pad = (int)combine(twice_sum, 0.0f, 0.5f);           // 1
  s[t * (32 + pad)] = 2.f;                                 // conflict-free
  out[t] = s[t];
}

int main() { function_values<<<1, 32>>>(0); }
