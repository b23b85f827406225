// bankism test kernel whose tile size and padding come from headers found only through -I.
#include <tiles/layout.h>
#include "missing_but_harmless.h"

__global__ void transpose_inc(const float* in, float* out)
{
    __shared__ float tile[TILE][TILE + PAD];
    const int x = threadIdx.x, y = threadIdx.y;
    tile[y][x] = in[y * TILE + x];
    __syncthreads();
    out[y * TILE + x] = tile[x][y];
}

void run(const float* in, float* out) { transpose_inc<<<1, dim3(TILE, TILE)>>>(in, out); }
