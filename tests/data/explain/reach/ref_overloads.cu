// reach: overloads that differ only by `float4 &` and `const float4 &`.
__device__ float &first(float4 &v) { return v.x; }
__device__ float first(const float4 &v) { return v.y; }

__global__ void pickOverload(float *out) {
  __shared__ float s[256];
  float4 v = make_float4(threadIdx.x, 3.0f * threadIdx.x, 0.f, 0.f);
  first(v) = 2.0f * threadIdx.x;
  s[(int)first(v)] = 1.0f;
  s[(int)first(make_float4(0.f, threadIdx.x + 64.0f, 0.f, 0.f))] = 2.0f;
}

int main() { pickOverload<<<1, 32>>>(0); }
