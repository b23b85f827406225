// One __device__ helper reads shared memory for two call sites: a padded tile (no conflict)
// and an unpadded one (conflicts). Each call site is its own site, with its call stack.
#define TILE 32

__device__ __forceinline__ float ld_col(const float *tile, int stride, int row, int col) {
    return tile[row * stride + col];
}

__device__ float sum_both(const float *a, const float *b, int col) {
    float s = ld_col(a, TILE + 1, threadIdx.x, col);
    s += ld_col(b, TILE, threadIdx.x, col);
    return s;
}

__global__ void columns(const float *in, float *out, int n) {
    __shared__ float padded[TILE][TILE + 1];
    __shared__ float plain[TILE][TILE];
    padded[threadIdx.y][threadIdx.x] = in[threadIdx.y * n + threadIdx.x];
    plain[threadIdx.y][threadIdx.x] = in[threadIdx.y * n + threadIdx.x];
    __syncthreads();
    float s = sum_both(&padded[0][0], &plain[0][0], threadIdx.y);
    out[threadIdx.y * n + threadIdx.x] = s;
}

void run(const float *in, float *out) {
    columns<<<1, dim3(TILE, 8)>>>(in, out, 4096);
}
