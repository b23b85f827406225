// heldout: <type_traits> in templated kernels (is_same_v, is_same<>::value, conditional_t,
// conditional<>::type), and a type deduced from an array argument of a `T c[4]` parameter.
#include <cuda_fp16.h>
#include <type_traits>

template <typename acc_t>
__device__ void accumulate(acc_t c[4], int lane) { c[lane % 4] += (acc_t)sizeof(acc_t); }

template <typename T>
__global__ void traits(float *out) {
  __shared__ float s[256];
  using acc_t = std::conditional_t<std::is_same_v<T, half>, float, double>;
  using wide_t = typename std::conditional<std::is_same<T, float>::value, double, T>::type;
  int stride = 1;
  if constexpr (std::is_same_v<T, half>) stride = 2;
  acc_t c[4] = {};
  accumulate(c, 0);                      // c[0] = sizeof(acc_t)
  s[threadIdx.x * stride + (int)c[0] + (int)sizeof(wide_t)] = 1.f;
  out[threadIdx.x] = s[threadIdx.x];
}

// a block-scoped alias as the element type of a __shared__ array (laid out before the block runs)
template <typename T>
__global__ void aliased(float *out) {
  using acc_t = std::conditional_t<std::is_same_v<T, half>, float, double>;
  __shared__ acc_t s[64];
  s[threadIdx.x] = (acc_t)1;
  out[threadIdx.x] = (float)s[31 - threadIdx.x];
}

int main() {
  traits<half><<<1, 32>>>(0);
  aliased<float><<<1, 32>>>(0);
}
