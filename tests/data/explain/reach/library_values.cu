// reach: library values that never reach a shared address (clock_t, clock64) and
// cooperative-groups function objects written as braced temporaries.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void timedSums(const float *src, float *dst, clock_t *stamps, long long *spans) {
  __shared__ float warpTotals[8];
  __shared__ float maxes[8];
  clock_t began = clock();
  long long t0 = clock64();
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  float v = src[blockIdx.x * blockDim.x + threadIdx.x];
  float total = cg::reduce(tile, v, cg::plus<float>{});
  float top = cg::reduce(tile, v, cg::greater<float>());
  if (tile.thread_rank() == 0) {
    warpTotals[tile.meta_group_rank()] = total;
    maxes[7 - tile.meta_group_rank()] = top;
  }
  cg::sync(cg::this_thread_block());
  if (threadIdx.x < 8) dst[threadIdx.x] = warpTotals[threadIdx.x] + maxes[threadIdx.x ^ 1];
  if (threadIdx.x == 0) {
    stamps[blockIdx.x] = clock() - began;
    spans[blockIdx.x] = clock64() - t0;
  }
}

int main() { timedSums<<<4, 256>>>(0, 0, 0, 0); }
