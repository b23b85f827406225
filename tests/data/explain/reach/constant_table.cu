// reach: a __constant__ table sized by its initializer, next to a file-scope __shared__ tile.
__constant__ float weights[] = {0.25f, 0.5f, 0.125f, 0.125f, 1.0f, 2.0f};
__constant__ int pairs[][2] = {{0, 1}, {2, 3}, {4, 5}};
__shared__ float taps[8][32];

__global__ void weighTaps(const float *in, float *out) {
  taps[threadIdx.x % 8][threadIdx.x / 8] = in[threadIdx.x] * weights[threadIdx.x % 6];
  __syncthreads();
  out[threadIdx.x] = taps[threadIdx.x / 32][threadIdx.x % 32] + pairs[threadIdx.x % 3][1];
}

int main() { weighTaps<<<1, 256>>>(0, 0); }
