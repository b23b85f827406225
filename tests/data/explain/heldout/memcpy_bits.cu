// heldout: memcpy() between per-thread objects of different types (a bit cast): the bytes as
// the GPU holds them, read back as the destination's type.
#include <cstring>

template <typename B, typename A>
__device__ B bits_as(A a) {
  B b;
  memcpy(&b, &a, sizeof(A));
  return b;
}

__global__ void memcpy_bits(float *out) {
  __shared__ float s[32 * 33];
  int t = threadIdx.x;
  float2 pair = make_float2(1.0f, 2.0f);
  long long packed = bits_as<long long>(pair);   // the float2's 8 bytes
  float2 back = bits_as<float2>(packed);          // and back: (1, 2)
  s[t * (int)back.y] = 1.f;                       // 2t: 2-way
  unsigned word = bits_as<unsigned>(1.0f);        // 0x3f800000
  s[t * ((word >> 23) & 7)] = 2.f;                // 127 & 7 = 7: 7t, conflict-free
  int parts[2];
  memcpy(parts, &pair, sizeof(pair));             // float2 into int[2]: parts[1] = 0x40000000
  s[t * (parts[1] >> 28)] = 3.f;                  // 4t: 4-way
  out[t] = s[t];
}

int main() { memcpy_bits<<<1, 32>>>(0); }
