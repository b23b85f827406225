// reach: tiles of a block whose size is not a multiple of the tile size (the last tile is partial).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void rowsOf120(const int *in, int *out) {
  __shared__ int grid2d[4][33];
  __shared__ int counts[16];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> row = cg::tiled_partition<32>(block);
  auto half = cg::tiled_partition<16>(block);
  grid2d[row.meta_group_rank()][row.thread_rank()] = in[block.thread_rank()];
  if (half.thread_rank() == 0) counts[half.meta_group_rank() + half.meta_group_size()] = 1;
  block.sync();
  out[block.thread_rank()] = grid2d[row.thread_rank() % 4][row.meta_group_size()];
}

int main() { rowsOf120<<<1, 120>>>(0, 0); }
