// reach: where nvcc places a template helper's static __shared__ array when template kernels
// instantiate it (tests/data/explain/decl/dispatch.cu's instantiation set: rowNorm<64,128,256>,
// rowNorm4<64,256>; blockSum<64> and blockSum<256> shared by two kernels, blockSum<128> not).
// Prints shared-window offsets.
#include <cstdio>
template <int NT>
__device__ float blockSum(float v, unsigned *where) {
  static __shared__ float part[NT / 32];
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  if (lane == 0) part[warp] = v;
  __syncthreads();
  *where = (unsigned)__cvta_generic_to_shared(part);
  return lane < NT / 32 ? part[lane] : 0.f;
}

template <int NT>
__global__ void rowNorm(const float *x, float *y, int K) {
  __shared__ float mean;
  unsigned part;
  float v = x[blockIdx.x * K + threadIdx.x];
  float s = blockSum<NT>(v, &part);
  if (threadIdx.x == 0) mean = s / K;
  __syncthreads();
  y[blockIdx.x * K + threadIdx.x] = v - mean;
  if (threadIdx.x == 0 && blockIdx.x == 0)
    printf("rowNorm<%d> mean=%u part=%u\n", NT, (unsigned)__cvta_generic_to_shared(&mean), part);
}

template <int NT>
__global__ void rowNorm4(const float4 *x, float *y, int K) {
  unsigned part;
  float4 v = x[blockIdx.x * NT + threadIdx.x];
  float s = blockSum<NT>(v.x + v.y + v.z + v.w, &part);
  if (threadIdx.x == 0) y[blockIdx.x] = s / K;
  if (threadIdx.x == 0 && blockIdx.x == 0) printf("rowNorm4<%d> part=%u\n", NT, part);
}

void normRows(const float *x, float *y, int N, int K) {
  dim3 block(K), grid(N);
  switch (K) {
  case 64: rowNorm<64><<<grid, block>>>(x, y, K); break;
  case 128: rowNorm<128><<<grid, block>>>(x, y, K); break;
  case 256: rowNorm<256><<<grid, block>>>(x, y, K); break;
  default: break;
  }
  cudaDeviceSynchronize();
}

void normRows4(const float *x, float *y, int N, int K) {
  dim3 block(K / 4), grid(N);
  if (K == 1024) rowNorm4<256><<<grid, block>>>((const float4 *)x, y, K);
  else rowNorm4<64><<<grid, block>>>((const float4 *)x, y, K);
  cudaDeviceSynchronize();
}

int main() {
  float *x, *y;
  cudaMalloc(&x, 1 << 20); cudaMalloc(&y, 1 << 20); cudaMemset(x, 0, 1 << 20);
  for (int K : {64, 128, 256}) normRows(x, y, 8, K);
  for (int K : {256, 1024}) normRows4(x, y, 8, K);
  printf("err=%s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
