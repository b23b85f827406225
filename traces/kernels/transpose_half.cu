// bankism corpus: half-precision (16-bit) tiled transpose.
//
// out = in^T for a 128x128 __half matrix; tile __half[64][64], block 64x8, grid 2x2. The warp stores 32
// consecutive halves of a tile row (2 bytes per lane, 64 bytes in all) and reads 32 halves down a tile
// column: 128 bytes apart, every lane in the same bank.
#include <cuda_fp16.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #call, __FILE__, __LINE__, cudaGetErrorString(e_)); \
    exit(1); } } while (0)

constexpr int TILE = 64;
constexpr int ROWS = 8;
constexpr int N = 128;

__global__ void transpose_half(__half* __restrict__ out, const __half* __restrict__ in, int n)
{
    __shared__ __half tile[TILE][TILE];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main()
{
    std::vector<unsigned short> in(N * N), out(N * N);
    srand(5);
    for (int i = 0; i < N * N; ++i) in[i] = (unsigned short)(rand() & 0x7bff);  // finite half bit patterns
    __half *dIn, *dOut;
    CK(cudaMalloc(&dIn, sizeof(__half) * N * N));
    CK(cudaMalloc(&dOut, sizeof(__half) * N * N));
    CK(cudaMemcpy(dIn, in.data(), sizeof(__half) * N * N, cudaMemcpyHostToDevice));
    CK(cudaMemset(dOut, 0xff, sizeof(__half) * N * N));
    transpose_half<<<dim3(N / TILE, N / TILE), dim3(TILE, ROWS)>>>(dOut, dIn, N);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(out.data(), dOut, sizeof(__half) * N * N, cudaMemcpyDeviceToHost));
    long bad = 0;
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j) bad += out[j * N + i] != in[i * N + j];
    printf("transpose_half: 128x128 __half, tile 64x64, grid 2x2, block 64x8: %ld wrong elements %s\n", bad,
           bad == 0 ? "OK" : "FAIL");
    return bad == 0 ? 0 : 1;
}
