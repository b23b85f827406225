// Cooperative-groups block reduction, written the way the CUDA samples write them:
// a SharedMemory<T> accessor whose conversion operator returns the extern array,
// block-level sync through the group, a warp-sized tile with shuffles and cg::reduce.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

template <class T>
struct SharedMemory {
  __device__ inline operator T *() {
    extern __shared__ int __smem[];
    return (T *)__smem;
  }
  __device__ inline operator const T *() const {
    extern __shared__ int __smem[];
    return (T *)__smem;
  }
};

template <>
struct SharedMemory<double> {
  __device__ inline operator double *() {
    extern __shared__ double __smem_d[];
    return (double *)__smem_d;
  }
};

template <class T, unsigned int blockSize>
__global__ void blockReduce(const T *g_in, T *g_out, unsigned int n) {
  cg::thread_block cta = cg::this_thread_block();
  T *sdata = SharedMemory<T>();
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockSize * 2 + threadIdx.x;

  T sum = (i < n) ? g_in[i] : 0;
  if (i + blockSize < n) sum += g_in[i + blockSize];
  sdata[tid] = sum;
  cg::sync(cta);

  for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s) {
      sdata[tid] = sum = sum + sdata[tid + s];
    }
    cta.sync();
  }

  cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);
  if (cta.thread_rank() < 32) {
    if (blockSize >= 64) sum += sdata[tid + 32];
    for (int offset = tile32.size() / 2; offset > 0; offset /= 2) {
      sum += tile32.shfl_down(sum, offset);
    }
  }
  if (cta.thread_rank() == 0) g_out[blockIdx.x] = sum;
}

template <class T>
__global__ void tileSums(const T *g_in, T *g_out) {
  cg::thread_block block = cg::this_thread_block();
  auto tile = cg::tiled_partition<32>(block);
  __shared__ T warpSums[8];
  T v = g_in[block.group_index().x * block.size() + block.thread_rank()];
  T total = cg::reduce(tile, v, cg::plus<T>());
  if (tile.thread_rank() == 0) warpSums[tile.meta_group_rank()] = total;
  block.sync();
  if (tile.meta_group_rank() == 0) {
    T w = tile.thread_rank() < tile.meta_group_size() ? warpSums[tile.thread_rank()] : 0;
    w = cg::reduce(tile, w, cg::plus<T>());
    if (tile.thread_rank() == 0) g_out[block.group_index().x] = w;
  }
}

void run(const double *in, double *out, const float *fin, float *fout, unsigned int n) {
  blockReduce<double, 256><<<n / 512, 256, 256 * sizeof(double)>>>(in, out, n);
  tileSums<float><<<64, 256>>>(fin, fout);
}
