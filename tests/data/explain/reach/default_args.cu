// reach: __device__ functions with default arguments.
__device__ int slot(int lane, int stride = 2, int base = 0) { return base + stride * lane; }

__global__ void defaults(float *out) {
  __shared__ float s[256];
  s[slot(threadIdx.x)] = 1.0f;
  s[slot(threadIdx.x, 1)] = 2.0f;
  s[slot(threadIdx.x, 4, 1)] = 3.0f;
  out[threadIdx.x] = s[threadIdx.x];
}

int main() { defaults<<<1, 32>>>(0); }
