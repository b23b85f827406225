// reach: a null test of a pointer parameter that only guards per-thread work.
__global__ void biasedTile(const float *in, const float *bias, float *out, int cols) {
  __shared__ float tile[32][32];
  float acc[4] = {};
  if (bias != nullptr) {
    for (int j = 0; j < 4; j++) acc[j] = bias[4 * threadIdx.y + j];
  }
  for (int j = 0; j < 4; j++) tile[threadIdx.y][threadIdx.x] += in[threadIdx.y * cols + threadIdx.x] + acc[j];
  __syncthreads();
  out[threadIdx.x * cols + threadIdx.y] = tile[threadIdx.x][threadIdx.y];
}

__global__ void guardedShared(const float *bias, float *out) {
  __shared__ float staged[64];
  if (bias != NULL) {
    for (int j = 0; j < 2; j++) staged[2 * threadIdx.x + j] = bias[j];
  }
  out[threadIdx.x] = staged[threadIdx.x];
}

int main() {
  biasedTile<<<1, dim3(32, 8)>>>(0, 0, 0, 32);
  guardedShared<<<1, 32>>>(0, 0);
}
