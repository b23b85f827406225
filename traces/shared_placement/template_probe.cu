// reach: where nvcc places the static __shared__ arrays of template __device__ functions (one
// array per instantiation) relative to a kernel's own arrays and a non-template helper's (sm_90).
// Prints shared-window offsets.
#include <cstdio>
template <typename T>
__device__ unsigned partOf(T v) {
  static __shared__ T part[32];
  part[threadIdx.x % 32] = v;
  return (unsigned)__cvta_generic_to_shared(part);
}
__device__ unsigned plainHelper(float v) {
  __shared__ float plain[4];
  plain[threadIdx.x % 4] = v;
  return (unsigned)__cvta_generic_to_shared(plain);
}
// part<double> only here, part<float> also in k2
__global__ void k1(unsigned *o, const double *p) {
  __shared__ float own[8];
  own[threadIdx.x % 8] = 7.f;
  unsigned a = partOf<float>(1.f), b = partOf<double>(p[0]);
  if (threadIdx.x == 0)
    printf("k1 own=%u part<float>=%u part<double>=%u\n", (unsigned)__cvta_generic_to_shared(own), a, b);
}
__global__ void k2(unsigned *o) {
  __shared__ char own2[3];
  own2[threadIdx.x % 3] = 1;
  unsigned a = partOf<float>(2.f);
  if (threadIdx.x == 0) printf("k2 own2=%u part<float>=%u\n", (unsigned)__cvta_generic_to_shared(own2), a);
}
// two instantiations used by this kernel only (int first, then short), and a plain helper
__global__ void k3(unsigned *o) {
  __shared__ char own3[3];
  own3[threadIdx.x % 3] = 1;
  unsigned a = partOf<int>(2), b = partOf<short>(3), c = plainHelper(1.f);
  if (threadIdx.x == 0)
    printf("k3 own3=%u part<int>=%u part<short>=%u plain=%u\n", (unsigned)__cvta_generic_to_shared(own3), a, b, c);
}
int main() {
  unsigned *o; double *p;
  cudaMalloc(&o, 1024); cudaMalloc(&p, 1024); cudaMemset(p, 0, 1024);
  k1<<<1, 64>>>(o, p); cudaDeviceSynchronize();
  k2<<<1, 64>>>(o); cudaDeviceSynchronize();
  k3<<<1, 64>>>(o); cudaDeviceSynchronize();
  printf("err=%s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
