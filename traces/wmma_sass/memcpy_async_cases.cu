// SASS probes of the C++ asynchronous copies (issue 19): cuda::memcpy_async with cuda::pipeline and
// cuda::barrier for several sizes and alignments, and cooperative_groups::memcpy_async; their SASS is
// memcpy_async_cases.sass.txt (nvcc 13.0 -arch=sm_90 -O3). Compiled only, never run.
#include <cuda/pipeline>
#include <cuda/barrier>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;
__global__ void pipe_aligned(const float* in, float* out) {
    __shared__ __align__(16) float s[256 * 4];
    auto pipe = cuda::make_pipeline();
    pipe.producer_acquire();
    cuda::memcpy_async(&s[threadIdx.x * 4], &in[threadIdx.x * 4], cuda::aligned_size_t<16>(16), pipe);
    pipe.producer_commit();
    pipe.consumer_wait();
    __syncthreads();
    out[threadIdx.x] = s[(threadIdx.x * 33) % 1024];
    pipe.consumer_release();
}
__global__ void pipe_float(const float* in, float* out) {
    __shared__ float s[256];
    auto pipe = cuda::make_pipeline();
    pipe.producer_acquire();
    cuda::memcpy_async(&s[threadIdx.x], &in[threadIdx.x], sizeof(float), pipe);
    pipe.producer_commit();
    cuda::pipeline_consumer_wait_prior<0>(pipe);
    __syncthreads();
    out[threadIdx.x] = s[(threadIdx.x * 33) % 256];
}
__global__ void pipe_al4(const float* in, float* out) {
    __shared__ float s[256];
    auto pipe = cuda::make_pipeline();
    pipe.producer_acquire();
    cuda::memcpy_async(&s[threadIdx.x], &in[threadIdx.x], cuda::aligned_size_t<4>(sizeof(float)), pipe);
    pipe.producer_commit();
    pipe.consumer_wait();
    __syncthreads();
    out[threadIdx.x] = s[(threadIdx.x * 33) % 256];
}
__global__ void bar_copy(const float* in, float* out) {
    __shared__ __align__(16) float s[256 * 4];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size());
    __syncthreads();
    cuda::memcpy_async(&s[threadIdx.x * 4], &in[threadIdx.x * 4], cuda::aligned_size_t<16>(16), bar);
    bar.arrive_and_wait();
    out[threadIdx.x] = s[(threadIdx.x * 33) % 1024];
}
__global__ void cg_copy(const float* in, float* out) {
    __shared__ __align__(16) float s[1024];
    auto block = cg::this_thread_block();
    cg::memcpy_async(block, s, in, sizeof(float) * 1024);
    cg::wait(block);
    out[threadIdx.x] = s[(threadIdx.x * 33) % 1024];
}
__global__ void cg_copy_al(const float* in, float* out) {
    __shared__ __align__(16) float s[1024];
    auto block = cg::this_thread_block();
    cg::memcpy_async(block, s, in, cuda::aligned_size_t<16>(sizeof(float) * 1024));
    cg::wait(block);
    out[threadIdx.x] = s[(threadIdx.x * 33) % 1024];
}
#define BAR_KERNEL(NAME, SIZE) \
__global__ void NAME(const float* in, float* out) { \
    __shared__ __align__(16) float s[256 * 4]; \
    __shared__ cuda::barrier<cuda::thread_scope_block> bar; \
    auto block = cg::this_thread_block(); \
    if (block.thread_rank() == 0) init(&bar, block.size()); \
    __syncthreads(); \
    cuda::memcpy_async(&s[threadIdx.x * 4], &in[threadIdx.x * 4], SIZE, bar); \
    bar.arrive_and_wait(); \
    out[threadIdx.x] = s[(threadIdx.x * 33) % 1024]; }
BAR_KERNEL(bar_plain4, sizeof(float))
BAR_KERNEL(bar_al4, cuda::aligned_size_t<4>(4))
BAR_KERNEL(bar_al8, cuda::aligned_size_t<8>(8))
BAR_KERNEL(bar_plain16, 16)
BAR_KERNEL(bar_al16_32, cuda::aligned_size_t<16>(32))
__global__ void bar_group(const float* in, float* out) {
    __shared__ __align__(16) float s[1024];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size());
    __syncthreads();
    cuda::memcpy_async(block, s, in, sizeof(float) * 1024, bar);
    bar.arrive_and_wait();
    out[threadIdx.x] = s[(threadIdx.x * 33) % 1024];
}
__global__ void pipe_plain16(const float* in, float* out) {
    __shared__ __align__(16) float s[256 * 4];
    auto pipe = cuda::make_pipeline();
    pipe.producer_acquire();
    cuda::memcpy_async(&s[threadIdx.x * 4], &in[threadIdx.x * 4], 16, pipe);
    pipe.producer_commit();
    pipe.consumer_wait();
    __syncthreads();
    out[threadIdx.x] = s[(threadIdx.x * 33) % 1024];
}
__global__ void pipe_f4(const float4* in, float* out) {
    __shared__ float4 s[256];
    auto pipe = cuda::make_pipeline();
    pipe.producer_acquire();
    cuda::memcpy_async(&s[threadIdx.x], &in[threadIdx.x], sizeof(float4), pipe);
    pipe.producer_commit();
    pipe.consumer_wait();
    __syncthreads();
    out[threadIdx.x] = s[(threadIdx.x * 33) % 256].x;
}
