// bankism corpus: float 32x32 tiled matrix multiply, with and without padding.
//
// C = A * B for 128x128 row-major float matrices, block 32x32, grid 4x4. Lanes of a warp walk DOWN a
// column of C (threadIdx.x picks the row), so C is written column-major and the inner product reads
// As[threadIdx.x][k]: a column of the A tile. With float As[32][32] the 32 lanes of a warp hit one bank
// (32-way conflict); with float As[32][33] (one word of padding per row) they hit 32 different banks.
// Bs[k][threadIdx.y] is the same word for the whole warp (a broadcast).
//
// Usage: matmul32 plain|padded
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #call, __FILE__, __LINE__, cudaGetErrorString(e_)); \
    exit(1); } } while (0)

constexpr int TILE = 32;
constexpr int N = 128;

template <int PAD>
__global__ void matmul32(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int n)
{
    __shared__ float As[TILE][TILE + PAD];
    __shared__ float Bs[TILE][TILE + PAD];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + tx;  // lanes walk down the rows of C
    const int col = blockIdx.x * TILE + ty;
    float acc = 0.0f;
    for (int t = 0; t < n / TILE; ++t) {
        As[ty][tx] = A[(blockIdx.y * TILE + ty) * n + t * TILE + tx];  // As[r][k], coalesced global read
        Bs[ty][tx] = B[(t * TILE + ty) * n + blockIdx.x * TILE + tx];  // Bs[k][c]
        __syncthreads();
        for (int k = 0; k < TILE; ++k)
            acc += As[tx][k] * Bs[k][ty];
        __syncthreads();
    }
    C[col * n + row] = acc;  // column-major C
}

int main(int argc, char** argv)
{
    const bool padded = argc > 1 && strcmp(argv[1], "padded") == 0;
    if (argc < 2 || (!padded && strcmp(argv[1], "plain") != 0)) {
        fprintf(stderr, "usage: %s plain|padded\n", argv[0]);
        return 2;
    }
    std::vector<float> a(N * N), b(N * N), c(N * N);
    srand(2024);
    for (int i = 0; i < N * N; ++i) {
        a[i] = rand() / (float)RAND_MAX - 0.5f;
        b[i] = rand() / (float)RAND_MAX - 0.5f;
    }
    float *dA, *dB, *dC;
    CK(cudaMalloc(&dA, sizeof(float) * N * N));
    CK(cudaMalloc(&dB, sizeof(float) * N * N));
    CK(cudaMalloc(&dC, sizeof(float) * N * N));
    CK(cudaMemcpy(dA, a.data(), sizeof(float) * N * N, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, b.data(), sizeof(float) * N * N, cudaMemcpyHostToDevice));
    CK(cudaMemset(dC, 0xff, sizeof(float) * N * N));
    dim3 block(TILE, TILE), grid(N / TILE, N / TILE);
    if (padded)
        matmul32<1><<<grid, block>>>(dA, dB, dC, N);
    else
        matmul32<0><<<grid, block>>>(dA, dB, dC, N);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(c.data(), dC, sizeof(float) * N * N, cudaMemcpyDeviceToHost));
    double err = 0, norm = 0;
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j) {
            double ref = 0;
            for (int k = 0; k < N; ++k) ref += (double)a[i * N + k] * b[k * N + j];
            double got = c[j * N + i];
            err += (got - ref) * (got - ref);
            norm += ref * ref;
        }
    double rel = std::sqrt(err / norm);
    bool ok = std::isfinite(rel) && rel < 1e-5;
    printf("matmul32 %s: 128x128 float, grid 4x4, block 32x32: relative error %.3e %s\n", argv[1], rel,
           ok ? "OK" : "FAIL");
    return ok ? 0 : 1;
}
