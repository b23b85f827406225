// bankism corpus: launches the kernel of header_tiles.cuh (its shared-memory lines are the
// header's). C = A * B for 128x128 floats, BM = BN = 64, BK = 8, TM = 32: block 128, grid 2x2.
//
// Usage: header_tiles
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "header_tiles.cuh"

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #call, __FILE__, __LINE__, cudaGetErrorString(e_)); \
    exit(1); } } while (0)

int main()
{
    const int M = 128, N = 128, K = 128;
    std::vector<float> a(M * K), b(K * N), c(M * N);
    for (int i = 0; i < M * K; ++i) a[i] = (float)(i % 7 - 3);
    for (int i = 0; i < K * N; ++i) b[i] = (float)(i % 5 - 2);
    float *dA, *dB, *dC;
    CK(cudaMalloc(&dA, sizeof(float) * a.size()));
    CK(cudaMalloc(&dB, sizeof(float) * b.size()));
    CK(cudaMalloc(&dC, sizeof(float) * c.size()));
    CK(cudaMemcpy(dA, a.data(), sizeof(float) * a.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, b.data(), sizeof(float) * b.size(), cudaMemcpyHostToDevice));
    dim3 grid(N / 64, M / 64), block(128);
    header_tiles<64, 64, 8, 32><<<grid, block>>>(dA, dB, dC, M, N, K);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(c.data(), dC, sizeof(float) * c.size(), cudaMemcpyDeviceToHost));
    long bad = 0;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float want = 0;
            for (int k = 0; k < K; ++k) want += a[i * K + k] * b[k * N + j];
            bad += c[i * N + j] != want;
        }
    printf("header_tiles: 128x128x128, grid 2x2, block 128: %ld wrong %s\n", bad, bad == 0 ? "OK" : "FAIL");
    return bad == 0 ? 0 : 1;
}
