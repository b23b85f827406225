// heldout: memset() in device code clearing per-thread objects (a register tile of float4s,
// part of an int array from a pointer into it, a vector variable); the values it leaves pick
// the shared addresses.
#include <cstring>

__global__ void memset_tile(float *out) {
  __shared__ float s[32 * 33];
  int t = threadIdx.x;
  float4 acc[4];
  memset(acc, 0, sizeof(acc));
  s[t * 33 + (int)acc[3].w] = 1.f;                // 0 + 33t: conflict-free
  int steps[4] = {1, 2, 3, 4};
  memset(&steps[2], 0, 2 * sizeof(int));         // {1, 2, 0, 0}
  s[t * (steps[1] + steps[3])] = 2.f;            // 2t: 2-way
  unsigned char bytes[4];
  memset(bytes, 4, sizeof(bytes));
  s[t * bytes[2]] = 3.f;                          // 4t: 4-way
  int2 pair;
  memset(&pair, 1, sizeof(pair));                 // 0x01010101 in each half
  s[t * (pair.y & 0xff) * 8] = 4.f;               // 8t: 8-way
  out[t] = s[t];
}

int main() { memset_tile<<<1, 32>>>(0); }
