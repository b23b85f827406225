// bankism surplus kernels: column sums of a ROWS x COLS double matrix. Block 32x8: each thread sums
// rows ty, ty+8, ... of column blockIdx.x*32+tx, then the 8 partial sums of a column are reduced
// through a double[8][32] shared array (stores, then loads by threadIdx.y == 0).
// Usage: colsum_f64 [ROWS COLS]
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void colsum_f64(const double* __restrict__ a, double* __restrict__ sums, int rows, int cols)
{
    __shared__ double part[8][32];
    const int col = blockIdx.x * 32 + threadIdx.x;
    const int row0 = blockIdx.y * 256;
    double s = 0.0;
    for (int r = row0 + threadIdx.y; r < row0 + 256 && r < rows; r += 8) s += a[(size_t)r * cols + col];
    part[threadIdx.y][threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.y == 0) {
        double t = 0.0;
        for (int k = 0; k < 8; ++k) t += part[k][threadIdx.x];
        atomicAdd(&sums[col], t);
    }
}

int main(int argc, char** argv)
{
    const int rows = argc > 2 ? atoi(argv[1]) : 8192, cols = argc > 2 ? atoi(argv[2]) : 4096;
    std::vector<double> h((size_t)rows * cols);
    for (size_t i = 0; i < h.size(); ++i) h[i] = (double)(i % 101) * 0.25;
    double *d_a, *d_s;
    CK(cudaMalloc(&d_a, h.size() * 8)); CK(cudaMalloc(&d_s, cols * 8));
    CK(cudaMemcpy(d_a, h.data(), h.size() * 8, cudaMemcpyHostToDevice));
    CK(cudaMemset(d_s, 0, cols * 8));
    dim3 grid(cols / 32, (rows + 255) / 256), block(32, 8);
    colsum_f64<<<grid, block>>>(d_a, d_s, rows, cols);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    std::vector<double> r(cols);
    CK(cudaMemcpy(r.data(), d_s, cols * 8, cudaMemcpyDeviceToHost));
    long bad = 0;
    for (int c = 0; c < cols; ++c) {
        double e = 0.0;
        for (int k = 0; k < rows; ++k) e += h[(size_t)k * cols + c];
        bad += fabs(r[c] - e) > 1e-6 * fabs(e) + 1e-9;
    }
    printf("colsum_f64: %dx%d doubles, grid %dx%d, block 32x8: %ld wrong %s\n", rows, cols, grid.x, grid.y, bad, bad ? "FAIL" : "OK");
    return bad ? 1 : 0;
}
