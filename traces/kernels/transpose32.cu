// bankism corpus: 32x32 tiled matrix transpose, with and without padding.
//
// out = in^T for a 256x256 float matrix; tile 32x32, block 32x8 (each thread moves 4 elements), grid 8x8.
// The warp writes a row of the tile and reads a column of it: with float tile[32][32] the column read hits
// one bank 32 times; with tile[32][33] the 32 words fall in 32 different banks.
//
// Usage: transpose32 plain|padded
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #call, __FILE__, __LINE__, cudaGetErrorString(e_)); \
    exit(1); } } while (0)

constexpr int TILE = 32;
constexpr int ROWS = 8;
constexpr int N = 256;

template <int PAD>
__global__ void transpose32(float* __restrict__ out, const float* __restrict__ in, int n)
{
    __shared__ float tile[TILE][TILE + PAD];
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

int main(int argc, char** argv)
{
    const bool padded = argc > 1 && strcmp(argv[1], "padded") == 0;
    if (argc < 2 || (!padded && strcmp(argv[1], "plain") != 0)) {
        fprintf(stderr, "usage: %s plain|padded\n", argv[0]);
        return 2;
    }
    std::vector<float> in(N * N), out(N * N);
    srand(7);
    for (int i = 0; i < N * N; ++i) in[i] = (float)rand();
    float *dIn, *dOut;
    CK(cudaMalloc(&dIn, sizeof(float) * N * N));
    CK(cudaMalloc(&dOut, sizeof(float) * N * N));
    CK(cudaMemcpy(dIn, in.data(), sizeof(float) * N * N, cudaMemcpyHostToDevice));
    CK(cudaMemset(dOut, 0xff, sizeof(float) * N * N));
    dim3 block(TILE, ROWS), grid(N / TILE, N / TILE);
    if (padded)
        transpose32<1><<<grid, block>>>(dOut, dIn, N);
    else
        transpose32<0><<<grid, block>>>(dOut, dIn, N);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(out.data(), dOut, sizeof(float) * N * N, cudaMemcpyDeviceToHost));
    long bad = 0;
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j) bad += out[j * N + i] != in[i * N + j];
    printf("transpose32 %s: 256x256 float, grid 8x8, block 32x8: %ld wrong elements %s\n", argv[1], bad,
           bad == 0 ? "OK" : "FAIL");
    return bad == 0 ? 0 : 1;
}
