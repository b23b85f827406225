// heldout: local arrays from nested brace lists (one element per inner list), arrays of vectors
// from vectors, and a declaration whose initializer assigns the variable itself.
__global__ void initializers(float *out) {
  __shared__ float s[128];
  int idx[2][2] = {{3}, {5}};           // idx[1][0] is 5, not 0
  float4 zero = make_float4(0.f, 0.f, 0.f, 0.f);
  float4 c[2][2] = {{zero}};            // every component zero
  int flat[4] = {1, 2};                 // brace elision: flat[1] is 2
  int offset = offset = threadIdx.x * 2;
  s[offset + idx[1][0] + (int)c[1][1].w + flat[1]] = 1.f;
  out[threadIdx.x] = s[threadIdx.x];
}

int main() { initializers<<<1, 32>>>(0); }
