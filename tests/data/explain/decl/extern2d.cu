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

int main() {
  halfRows<<<1, 64, 16 * STRIDE * sizeof(half)>>>(0, 0);
  floatRows<33><<<1, 32, 32 * 33 * sizeof(float)>>>(0);
}
