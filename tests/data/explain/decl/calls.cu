// decl: expressions bound to const references, and the address of a local vector used as an
// array.
__device__ int twice(const int &v) { return 2 * v; }
__device__ void put(float *s, const int &slot, const float &x) { s[slot] = x; }

__global__ void refsAndVectors(const float4 *in, float *out) {
  __shared__ float cols[4][33];
  __shared__ float words[256];
  put(words, (threadIdx.x * 3) % 256, 1.f);
  words[twice(threadIdx.x + 1) % 256] = 2.f;
  const int &row = threadIdx.x / 32 + 1;
  float4 v = in[threadIdx.x];
  const float *parts = &v.x;
  for (int k = 0; k < 4; k++) cols[k][threadIdx.x % 32] = parts[k];
  float4 steps = make_float4(0.f, 1.f, 2.f, 3.f);
  float *f = reinterpret_cast<float *>(&steps);
  f[3] = 5.f;
  int pick = static_cast<int>(f[threadIdx.x % 4]);
  out[threadIdx.x] = cols[pick % 4][(threadIdx.x * row) % 32] + steps.w;
}

int main() { refsAndVectors<<<1, 64>>>(0, 0); }
