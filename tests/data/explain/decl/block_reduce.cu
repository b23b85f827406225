// decl: static __shared__ arrays of template __device__ helpers (block reductions): one array per
// instantiation, placed as nvcc places them.
template <typename T>
__device__ T warpSum(T v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffff, v, offset);
  return v;
}

template <typename T>
__device__ T blockSum(T v) {
  static __shared__ T partial[32];
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warpSum(v);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  v = threadIdx.x < blockDim.x / 32 ? partial[lane] : (T)0;
  return warpSum(v);
}

__global__ void normalize(const float *in, float *out, double *energy) {
  __shared__ float scale[2];
  float x = in[blockIdx.x * blockDim.x + threadIdx.x];
  float total = blockSum<float>(x);
  double squares = blockSum<double>((double)x * x);
  if (threadIdx.x < 2) scale[threadIdx.x] = 1.f;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = x * scale[threadIdx.x % 2] + total;
  if (threadIdx.x == 0) energy[blockIdx.x] = squares;
}

__global__ void rowSum(const float *in, float *out) {
  float s = blockSum<float>(in[blockIdx.x * blockDim.x + threadIdx.x]);
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}

template <typename T>
__global__ void anySum(const T *in, T *out) {
  T s = blockSum(in[blockIdx.x * blockDim.x + threadIdx.x]);
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}

int main() {
  normalize<<<4, 256>>>(0, 0, 0);
  rowSum<<<4, 256>>>(0, 0);
#ifdef WITH_ANY
  anySum<<<4, 256>>>((const double *)0, (double *)0);
#endif
}
