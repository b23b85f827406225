// A benchmark-shaped program for timing `bankism record` itself: a 16x16-tiled SGEMM (512^3, its B tile
// read down a column: 16-way conflicts) launched the way benchmarks launch it, 1 check run, 5 warm-up
// runs and 20 timed runs (26 launches of one shape), then one launch of a small reduction.
// Usage: bench_loop [N]   (N = 512 by default)
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

constexpr int TILE = 16;

__global__ void sgemm_tiled(const float *a, const float *b, float *c, int n) {
    __shared__ float as[TILE][TILE];
    __shared__ float bs[TILE][TILE];
    const int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float sum = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        as[threadIdx.y][threadIdx.x] = a[row * n + k0 + threadIdx.x];
        bs[threadIdx.x][threadIdx.y] = b[(k0 + threadIdx.y) * n + col];  // transposed store: conflicts
        __syncthreads();
        for (int k = 0; k < TILE; ++k) sum += as[threadIdx.y][k] * bs[threadIdx.x][k];
        __syncthreads();
    }
    c[row * n + col] = sum;
}

__global__ void block_sum(const float *c, float *out, int count) {
    __shared__ float partial[256];
    float value = 0.0f;
    for (int i = threadIdx.x; i < count; i += blockDim.x) value += c[i];
    partial[threadIdx.x] = value;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) *out = partial[0];
}

int main(int argc, char **argv) {
    const int n = argc > 1 ? atoi(argv[1]) : 512;
    const size_t bytes = size_t(n) * n * sizeof(float);
    float *a, *b, *c, *out;
    cudaMalloc(&a, bytes); cudaMalloc(&b, bytes); cudaMalloc(&c, bytes); cudaMalloc(&out, sizeof(float));
    float *host = (float *)malloc(bytes);
    for (int i = 0; i < n * n; ++i) host[i] = float(i % 7) * 0.25f;
    cudaMemcpy(a, host, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(b, host, bytes, cudaMemcpyHostToDevice);
    const dim3 grid(n / TILE, n / TILE), block(TILE, TILE);
    sgemm_tiled<<<grid, block>>>(a, b, c, n);  // check run
    for (int i = 0; i < 5; ++i) sgemm_tiled<<<grid, block>>>(a, b, c, n);  // warm-up
    cudaEvent_t start, stop;
    cudaEventCreate(&start); cudaEventCreate(&stop);
    cudaEventRecord(start);
    for (int i = 0; i < 20; ++i) sgemm_tiled<<<grid, block>>>(a, b, c, n);  // timed
    cudaEventRecord(stop); cudaEventSynchronize(stop);
    float ms = 0.0f;
    cudaEventElapsedTime(&ms, start, stop);
    block_sum<<<1, 256>>>(c, out, n * n);
    float sum = 0.0f;
    cudaMemcpy(&sum, out, sizeof(float), cudaMemcpyDeviceToHost);
    printf("n=%d: %.4f ms per sgemm_tiled, checksum %g\n", n, ms / 20, sum);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) { printf("error: %s\n", cudaGetErrorString(err)); return 1; }
    return 0;
}
