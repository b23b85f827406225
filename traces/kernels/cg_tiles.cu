// bankism corpus: cooperative groups. A block of 256 threads is split into eight 32-thread
// tiles (cg::tiled_partition<32>); tile t writes row t of buf[8][32] (conflict-free), the
// block syncs through its group, then each tile reads buf column-wise as
// buf[rank % 8][meta * 4 + rank / 8] (lanes 8 apart share a bank: conflicts), and reduces its
// values with cg::reduce. 64 blocks; out[block * 8 + tile] = sum of the tile's reads.
//
// Usage: cg_tiles
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace cg = cooperative_groups;

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #call, __FILE__, __LINE__, cudaGetErrorString(e_)); \
    exit(1); } } while (0)

constexpr int BLOCK = 256;
constexpr int BLOCKS = 64;

__global__ void cg_tiles(const float *in, float *out)
{
    cg::thread_block cta = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cta);
    __shared__ float buf[8][32];
    unsigned int meta = tile.meta_group_rank();
    unsigned int rank = tile.thread_rank();
    buf[meta][rank] = in[cta.group_index().x * BLOCK + cta.thread_rank()];
    cta.sync();
    float v = buf[rank % 8][meta * 4 + rank / 8];
    float total = cg::reduce(tile, v, cg::plus<float>());
    if (rank == 0) out[cta.group_index().x * 8 + meta] = total;
}

int main()
{
    std::vector<float> in(BLOCK * BLOCKS), out(8 * BLOCKS);
    for (int i = 0; i < BLOCK * BLOCKS; ++i) in[i] = (float)(i % 97);
    float *dIn, *dOut;
    CK(cudaMalloc(&dIn, sizeof(float) * in.size()));
    CK(cudaMalloc(&dOut, sizeof(float) * out.size()));
    CK(cudaMemcpy(dIn, in.data(), sizeof(float) * in.size(), cudaMemcpyHostToDevice));
    cg_tiles<<<BLOCKS, BLOCK>>>(dIn, dOut);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(out.data(), dOut, sizeof(float) * out.size(), cudaMemcpyDeviceToHost));
    long bad = 0;
    for (int b = 0; b < BLOCKS; ++b)
        for (int t = 0; t < 8; ++t) {
            float want = 0;
            for (int r = 0; r < 32; ++r) want += in[b * BLOCK + (r % 8) * 32 + t * 4 + r / 8];
            bad += out[b * 8 + t] != want;
        }
    printf("cg_tiles: grid %d, block %d: %ld wrong sums %s\n", BLOCKS, BLOCK, bad, bad == 0 ? "OK" : "FAIL");
    return bad == 0 ? 0 : 1;
}
