// A double-buffered loop whose two buffers are read with different strides (32 words: every
// lane in one bank; 33 words: no conflict), so odd and even iterations cost differently.
__global__ void double_buffer(const float *in, float *out, int K) {
  __shared__ float tiles[2][32 * 33];
  const int lane = threadIdx.x;
  float acc = 0.0f;
  int b = 0;
  for (int k = 0; k < K; ++k) {
    tiles[b][lane] = in[k * 32 + lane];
    __syncthreads();
    acc += tiles[b][lane * (32 + b)];
    b ^= 1;
    __syncthreads();
  }
  out[lane] = acc;
}

int main() {
  float *in, *out;
  cudaMalloc(&in, 64 * 32 * sizeof(float));
  cudaMalloc(&out, 32 * sizeof(float));
  double_buffer<<<1, 32>>>(in, out, 64);
  cudaDeviceSynchronize();
  return 0;
}
