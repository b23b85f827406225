// 32x32 tiled transpose (coalesced reads and writes through shared memory), with PAD words
// of padding per tile row: PAD 0 conflicts on the column read, PAD 1 does not.
#define TILE_DIM 32
#define BLOCK_ROWS 8
#define PAD 0

__global__ void transpose(float *odata, const float *idata, int width, int height)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + PAD];

    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < width && y + j < height)
            tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];

    __syncthreads();

    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < height && y + j < width)
            odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

void run_transpose(float *out, const float *in)
{
    const int width = 1024, height = 1024;
    dim3 grid(width / TILE_DIM, height / TILE_DIM), block(TILE_DIM, BLOCK_ROWS);
    transpose<<<grid, block>>>(out, in, width, height);
}
