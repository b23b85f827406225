// decl: dynamic shared arrays whose first dimension is left open (tensor-core GEMM style).
#include <cuda_fp16.h>
#define STRIDE 40

__global__ void halfRows(const int4 *in, float *out) {
  extern __shared__ half rows[][STRIDE];
  int r = threadIdx.x / 4, c = (threadIdx.x % 4) * 8;
  *reinterpret_cast<int4 *>(&rows[r][c]) = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = __half2float(rows[threadIdx.x % 16][threadIdx.x / 16]);
}

template <int COLS>
__global__ void floatRows(float *out) {
  __shared__ float head[4];
  extern __shared__ float grid[][COLS];
  head[threadIdx.x % 4] = 1.f;
  grid[threadIdx.x][0] = 2.f;
  out[threadIdx.x] = grid[0][threadIdx.x] + head[0];
}

// the dynamic size is not a whole number of rows: the 16 bytes past the last row are still the array's
__global__ void tailRows(float *out) {
  extern __shared__ half rows[][STRIDE];
  half *flat = &rows[0][0];
  flat[16 * STRIDE + threadIdx.x % 8] = __float2half(1.f);
  __syncthreads();
  out[threadIdx.x] = __half2float(flat[16 * STRIDE + threadIdx.x % 8]);
}

int main() {
  halfRows<<<1, 64, 16 * STRIDE * sizeof(half)>>>(0, 0);
  floatRows<33><<<1, 32, 32 * 33 * sizeof(float)>>>(0);
  tailRows<<<1, 32, 16 * STRIDE * sizeof(half) + 16>>>(0);
}
