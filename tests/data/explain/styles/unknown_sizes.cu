// Kernel parameters nobody gave: fine where they only touch global memory, refused (with
// the parameter to give) where a shared access depends on them.
#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transposeTile(const float *in, float *out, int width, int height) {
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void guardedCopy(const float *in, float *out, int n) {
    __shared__ float buf[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (int k = i; k < n; k += gridDim.x * blockDim.x) acc += in[k];   // grid-stride, global only
    buf[threadIdx.x] = acc;
    __syncthreads();
    if (i < n) buf[threadIdx.x] += 1.0f;                                // decided by n: refused
    out[i] = buf[255 - threadIdx.x];
}

void run(const float *in, float *out, int w, int h) {
    dim3 grid(w / TILE_DIM, h / TILE_DIM), block(TILE_DIM, BLOCK_ROWS);
    transposeTile<<<grid, block>>>(in, out, w, h);
    guardedCopy<<<64, 256>>>(in, out, w * h);
}
