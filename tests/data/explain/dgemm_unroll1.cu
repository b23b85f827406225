#define BLOCK_SIZE 16          // block size
#define MATRIX_DIM 256         // matrix dimension

// launch configuration
dim3 Block_dim(BLOCK_SIZE, BLOCK_SIZE);
dim3 Grid_dim(MATRIX_DIM / BLOCK_SIZE, MATRIX_DIM / BLOCK_SIZE);

// launch the matrix-multiply kernel (the launch itself is in main() below, with these dims)
// multiply <<< Grid_dim, Block_dim >>> (A_mat_d, B_mat_d, C_mat_d);

// kernel: matrix multiply
__global__ void multiply(const double * __restrict__ A_mat, const double * __restrict__ B_mat, double * __restrict__ C_mat)
{
    int i, j;
    double temp = 0;

    // shared memory holding the sub-matrices of this block
    __shared__ double A_shared[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ double B_shared[BLOCK_SIZE][BLOCK_SIZE];

    // global row and column of this thread
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;

    // loop over the tiles
    for (int tileNUM = 0; tileNUM < MATRIX_DIM / BLOCK_SIZE; tileNUM++)
    {
        // indices inside the tile
        j = tileNUM * BLOCK_SIZE + threadIdx.x;
        i = tileNUM * BLOCK_SIZE + threadIdx.y;

        // load the tiles into shared memory
        A_shared[threadIdx.y][threadIdx.x] = A_mat[row * MATRIX_DIM + j];
        B_shared[threadIdx.y][threadIdx.x] = B_mat[i * MATRIX_DIM + col];
        __syncthreads();  // wait until every thread has loaded

#pragma unroll 1
        for (int k = 0; k < BLOCK_SIZE; k++)
        {
            temp += A_shared[threadIdx.y][k] * B_shared[k][threadIdx.x];
        }
        __syncthreads();  // wait until every thread has computed
    }

    // write the result to global memory
    C_mat[row * MATRIX_DIM + col] = temp;
}

// ---------------------------------------------------------------------------------------------
// Lines 1-47: traces/kernels/dgemm_tile.cu (the quiz kernel, same line numbers) with line 37's comment
// replaced by `#pragma unroll 1`, so that nvcc issues line 40 as written: one LDS.64 per read per k
// (cuobjdump -sass shows exactly STS.64, STS.64, LDS.64, LDS.64). Measured counters:
// dgemm_unroll1_ncu.json. Built with nvcc -arch=sm_90 -O3 -lineinfo.
int main()
{
    double *A_mat_d, *B_mat_d, *C_mat_d;
    cudaMalloc(&A_mat_d, MATRIX_DIM * MATRIX_DIM * sizeof(double));
    cudaMalloc(&B_mat_d, MATRIX_DIM * MATRIX_DIM * sizeof(double));
    cudaMalloc(&C_mat_d, MATRIX_DIM * MATRIX_DIM * sizeof(double));
    cudaMemset(A_mat_d, 0, MATRIX_DIM * MATRIX_DIM * sizeof(double));
    cudaMemset(B_mat_d, 0, MATRIX_DIM * MATRIX_DIM * sizeof(double));
    multiply <<< Grid_dim, Block_dim >>> (A_mat_d, B_mat_d, C_mat_d);
    return cudaDeviceSynchronize() != cudaSuccess;
}
