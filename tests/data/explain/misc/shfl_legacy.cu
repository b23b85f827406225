// Pre-CUDA-9 warp shuffles and votes, without a member mask (older textbooks' reductions).
// nvcc 13 no longer declares them for sm_70 and newer; explain reads them as their _sync
// forms over the lanes that run.
__global__ void legacy(int *out) {
  __shared__ int s[1024];
  const int t = threadIdx.x;
  const int lane = t % 32;
  s[__shfl_xor(lane, 16)] = 1;
  s[__shfl_down(lane, 8) * 2] = 2;
  s[__shfl_up(lane, 4, 16)] = 3;
  s[__shfl(t, 0) % 32 + lane * 32] = 4;
  const unsigned votes = __ballot(lane < 8);
  s[__popc(votes) * lane] = 5;
  s[lane + 32 * (__any(lane == 5) + __all(lane < 40))] = 6;
  __syncthreads();
  out[t] = s[t];
}

int main() {
  int *out;
  cudaMalloc(&out, 64 * sizeof(int));
  legacy<<<1, 64>>>(out);
  cudaDeviceSynchronize();
  return 0;
}
