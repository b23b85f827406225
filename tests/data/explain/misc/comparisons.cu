// Comparisons tree-sitter reads as template arguments (`row < rows && col >` looks like
// `row<...>`): a bounds test deciding which lanes store, and one deciding the address.
__global__ void bounds(float *out, int rows, int cols) {
  __shared__ float s[256];
  const int row = threadIdx.x / 8 - 1, col = threadIdx.x % 8 - 2;
  if (row >= 0 && row < rows && col >= 0 && col < cols) {
    s[row * 33 + col] = 1.0f;
  }
  const int pick = (row < rows && col > 2) ? 32 * col : threadIdx.x;
  s[pick] = 2.0f;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}

int main() {
  float *out;
  cudaMalloc(&out, 64 * sizeof(float));
  bounds<<<1, 64>>>(out, 4, 5);
  cudaDeviceSynchronize();
  return 0;
}
