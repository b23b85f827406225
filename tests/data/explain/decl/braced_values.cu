// decl: brace lists as values: returned, assigned.
struct P { float a, b; };
__device__ P pair(float x) { return {x, 2 * x}; }
__device__ int2 ix(int i) { return {i, i + 1}; }
__global__ void k(float *out) {
  __shared__ float s[128];
  float2 v;
  v = {1.f, 3.f};
  int2 q = ix(threadIdx.x);
  P p = pair(v.y);
  int z;
  z = {};
  s[q.y % 32 * 4 + z + (int)p.a % 4] = p.b;
  out[0] = s[0];
}
int main() { k<<<1, 32>>>(0); }
