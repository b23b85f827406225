// reach: where nvcc places file-scope and __device__-function static __shared__ arrays
// relative to a kernel's own __shared__ arrays (sm_90).  Prints shared-window offsets.
#include <cstdio>
__shared__ float fileA[64];
__shared__ int fileB[3];
__device__ unsigned helperAddr(float v) {
  __shared__ float part[32];
  part[threadIdx.x % 32] = v;
  return (unsigned)__cvta_generic_to_shared(&part[0]);
}
__device__ unsigned helper2Addr() {
  __shared__ double dd[5];
  dd[0] = 1.0;
  return (unsigned)__cvta_generic_to_shared(&dd[0]);
}
__global__ void k1(float *g) {
  __shared__ float own1[16];
  __shared__ char own2[3];
  own1[threadIdx.x % 16] = g[0]; own2[0] = 1;
  fileA[threadIdx.x] = 1.f; fileB[0] = 2;
  unsigned h = helperAddr(g[1]);
  unsigned h2 = helper2Addr();
  if (threadIdx.x == 0)
    printf("k1 own1=%u own2=%u fileA=%u fileB=%u part=%u dd=%u\n",
           (unsigned)__cvta_generic_to_shared(own1), (unsigned)__cvta_generic_to_shared(own2),
           (unsigned)__cvta_generic_to_shared(fileA), (unsigned)__cvta_generic_to_shared(fileB), h, h2);
}
// kernel that uses only the helper and one own array
__global__ void k2(float *g) {
  __shared__ float own[8];
  own[threadIdx.x % 8] = g[0];
  unsigned h = helperAddr(g[1]);
  if (threadIdx.x == 0)
    printf("k2 own=%u part=%u\n", (unsigned)__cvta_generic_to_shared(own), h);
}
// kernel that uses only file-scope arrays, plus dynamic shared memory
extern __shared__ float dyn[];
__global__ void k3(float *g) {
  fileB[threadIdx.x % 3] = 1; dyn[threadIdx.x] = g[0];
  if (threadIdx.x == 0)
    printf("k3 fileB=%u dyn=%u\n", (unsigned)__cvta_generic_to_shared(fileB), (unsigned)__cvta_generic_to_shared(dyn));
}
// reversed declaration order of own arrays
__global__ void k4(float *g) {
  __shared__ char c1[3];
  __shared__ float f1[16];
  c1[0] = 1; f1[threadIdx.x % 16] = g[0]; fileA[threadIdx.x] = 2.f;
  if (threadIdx.x == 0)
    printf("k4 c1=%u f1=%u fileA=%u\n", (unsigned)__cvta_generic_to_shared(c1), (unsigned)__cvta_generic_to_shared(f1),
           (unsigned)__cvta_generic_to_shared(fileA));
}
int main() {
  float *g; cudaMalloc(&g, 1024);
  cudaMemset(g, 0, 1024);
  k1<<<1, 64>>>(g); cudaDeviceSynchronize();
  k2<<<1, 64>>>(g); cudaDeviceSynchronize();
  k3<<<1, 64, 256>>>(g); cudaDeviceSynchronize();
  k4<<<1, 64>>>(g); cudaDeviceSynchronize();
  printf("err=%s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
