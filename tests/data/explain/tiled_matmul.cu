// Textbook tiled matrix multiply, parameterized by macros so one file covers the variants:
// element type REAL (float, double, half), tile size TILE, row padding PAD (0 or 1).
#include <cuda_fp16.h>

#define REAL double
#define TILE 16
#define PAD 0
#define N 256

dim3 block(TILE, TILE);
dim3 grid(N / TILE, N / TILE);
tiled_matmul<<<grid, block>>>(A_d, B_d, C_d);

__global__ void tiled_matmul(const REAL *A, const REAL *B, REAL *C)
{
    __shared__ REAL As[TILE][TILE + PAD];
    __shared__ REAL Bs[TILE][TILE + PAD];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    REAL acc = 0;
    for (int t = 0; t < N / TILE; ++t) {
        As[threadIdx.y][threadIdx.x] = A[row * N + t * TILE + threadIdx.x];
        Bs[threadIdx.y][threadIdx.x] = B[(t * TILE + threadIdx.y) * N + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    C[row * N + col] = acc;
}
