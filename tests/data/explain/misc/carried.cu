// A loop whose shared address depends on a value the previous iteration left in shared
// memory: iterations alternate between a stride of one word and of two, so no iteration
// stands for the others (the repeating-loop shortcut must not take it).
__global__ void carried(int *out) {
  __shared__ int s[64];
  __shared__ int next[1];
  if (threadIdx.x == 0) next[0] = 0;
  __syncthreads();
  for (int k = 0; k < 40; ++k) {
    const int at = next[0];
    s[threadIdx.x * (at % 2 + 1)] = k;
    __syncthreads();
    if (threadIdx.x == 0) next[0] = at + 1;
    __syncthreads();
  }
  out[threadIdx.x] = s[threadIdx.x];
}

int main() {
  int *out;
  cudaMalloc(&out, 32 * sizeof(int));
  carried<<<1, 32>>>(out);
  cudaDeviceSynchronize();
  return 0;
}
