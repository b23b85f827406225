// explain with the launch's grid not known: the host computes it from a run-time size (argv), or the
// file has no launch at all. The block alone answers per block; gridDim is an unknown value.
#include <cstdlib>

// A 32x32 tile transposed through a padded tile, then a grid-stride histogram of the tile's row sums.
__global__ void tile_stride(const float *in, float *out, int *hist, int n)
{
    __shared__ float tile[32][33];
    __shared__ int bins[64];
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
    tile[threadIdx.y][threadIdx.x] = in[y * n + x];                   // line 12: conflict-free store
    if (threadIdx.y < 2)
        bins[threadIdx.y * 32 + threadIdx.x] = 0;                     // line 14: 2 warps, conflict-free
    __syncthreads();
    out[x * n + y] = tile[threadIdx.x][threadIdx.y];                  // line 16: padded column read, free
    if (blockIdx.x == gridDim.x - 1)
        tile[threadIdx.x][0] = 0.0f;                                  // line 18: runs only in the last column
    for (int i = threadIdx.y; i < 64; i += gridDim.y)
        atomicAdd(&bins[i], 1);                                       // line 20: the step is the grid's
    __syncthreads();
    if (threadIdx.y == 0)
        atomicAdd(&hist[threadIdx.x], bins[threadIdx.x * 2]);         // line 23: stride 2, 2-way conflict
}

// No launch of this one in the file: --block answers it.
__global__ void no_launch(float *out)
{
    __shared__ float s[128];
    s[threadIdx.x * 4 % 128] = 1.0f;                                  // line 30: 4-way conflict
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x];      // line 32: free
}

int main(int argc, char **argv)
{
    int n = atoi(argv[1]);
    dim3 grid(n / 32, n / 32);
    tile_stride<<<grid, dim3(32, 32)>>>(nullptr, nullptr, nullptr, n);
    return 0;
}
