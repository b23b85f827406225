// bankism test kernel: the C++ asynchronous copies into shared memory, as nvcc 13.0 compiles them
// for sm_90 (traces/wmma_sass/memcpy_async.sass.txt):
//   cuda::memcpy_async(dst, src, cuda::aligned_size_t<16>(16), pipe)   one LDGSTS.128 (.cg) per thread
//   cuda::memcpy_async(dst, src, sizeof(float), pipe)                 one LDGSTS (4 bytes, .ca)
//   cooperative_groups::memcpy_async(block, dst, src, bytes)           4-byte LDGSTS, element rank + k*size
//   __pipeline_memcpy_async(dst, src, 8)                               one LDGSTS.64
//   cuda::memcpy_async(dst, src, cuda::aligned_size_t<8>(8), barrier) one LDGSTS.64 (+ ARRIVES)
//   cuda::memcpy_async(dst, src, cuda::aligned_size_t<16>(16), barrier) a bulk copy (UBLKCP) per thread
// One block of 128 threads; in[i] = i. The transposed copy (tile T) puts each warp's 32 words in one
// bank. The host checks every element read back.
//
// Usage: memcpy_async_tiles
#include <cuda/pipeline>
#include <cuda/barrier>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda_pipeline.h>
#include <cstdio>
#include <vector>
namespace cg = cooperative_groups;

constexpr int THREADS = 128;

__global__ void memcpy_async_tiles(const float* in, float* out)
{
    __shared__ __align__(16) float V[THREADS * 4];
    __shared__ float T[THREADS];
    __shared__ __align__(16) float G[THREADS * 4];
    __shared__ __align__(16) float P[THREADS * 2];
    __shared__ __align__(16) float W[THREADS * 2];
    __shared__ __align__(16) float U[THREADS * 4];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cg::this_thread_block();
    const int t = threadIdx.x;
    if (t == 0) init(&bar, THREADS);
    __syncthreads();

    auto pipe = cuda::make_pipeline();
    pipe.producer_acquire();
    cuda::memcpy_async(&V[t * 4], &in[t * 4], cuda::aligned_size_t<16>(16), pipe);
    cuda::memcpy_async(&T[(t % 32) * 4 + t / 32], &in[t], sizeof(float), pipe);
    pipe.producer_commit();
    pipe.consumer_wait();
    pipe.consumer_release();

    cg::memcpy_async(block, G, in, sizeof(float) * THREADS * 4);
    cg::wait(block);

    __pipeline_memcpy_async(&P[t * 2], &in[t * 2], 8);
    __pipeline_commit();
    __pipeline_wait_prior(0);

    cuda::memcpy_async(&W[t * 2], &in[t * 2], cuda::aligned_size_t<8>(8), bar);
    cuda::memcpy_async(&U[t * 4], &in[t * 4], cuda::aligned_size_t<16>(16), bar);
    bar.arrive_and_wait();
    __syncthreads();

    for (int i = t; i < THREADS * 4; i += THREADS) {
        out[i] = V[i];
        out[THREADS * 4 + i] = G[i];
        out[THREADS * 8 + i] = U[i];
    }
    out[THREADS * 12 + t] = T[(t % 32) * 4 + t / 32];
    out[THREADS * 13 + t] = P[t];
    out[THREADS * 14 + t] = W[t];
}

int main()
{
    const int n = THREADS * 4, n_out = THREADS * 15;
    std::vector<float> in(n), out(n_out);
    for (int i = 0; i < n; ++i) in[i] = float(i);
    float *d_in, *d_out;
    cudaMalloc(&d_in, n * 4);
    cudaMalloc(&d_out, n_out * 4);
    cudaMemcpy(d_in, in.data(), n * 4, cudaMemcpyHostToDevice);
    memcpy_async_tiles<<<1, THREADS>>>(d_in, d_out);
    cudaError_t error = cudaDeviceSynchronize();
    cudaMemcpy(out.data(), d_out, n_out * 4, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < THREADS * 12; ++i) bad += out[i] != float(i % (THREADS * 4));
    for (int t = 0; t < THREADS; ++t) {
        bad += out[THREADS * 12 + t] != float(t);
        bad += out[THREADS * 13 + t] != float(t);
        bad += out[THREADS * 14 + t] != float(t);
    }
    printf("memcpy_async_tiles: %s, %d wrong\n", cudaGetErrorString(error), bad);
    return bad == 0 && error == cudaSuccess ? 0 : 1;
}
