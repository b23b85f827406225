// bankism: shared memory in thread-block clusters (sm_90). In a cluster launch the Sanitizer API reports
// shared addresses in the cluster's window (the block's rank above bit 24); bankism keeps a block's own
// accesses as ordinary ones and lists accesses to another block's shared memory (distributed shared memory)
// as not simulated (bankism/capture/cluster.py). Two kernels, clusters of 2 blocks of 128 threads:
//   cluster_local: only the block's own shared memory: a 2-way conflicting store (stride 2 floats), a
//     conflict-free load, a 4-way conflicting load (stride 4), a shared atomicAdd on 8 bins;
//   cluster_remote: the same own accesses, then loads and atomicAdds in the other block's shared memory
//     through cluster.map_shared_rank, then an own load again.
// Usage: dsmem [BLOCKS]   (BLOCKS even, default 264); checks the results and prints OK or FAIL.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cooperative_groups.h>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #x, __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1);} } while (0)

__global__ void __cluster_dims__(2, 1, 1) cluster_local(float* out)
{
    __shared__ float tile[512];
    __shared__ int bins[8];
    const int t = threadIdx.x;
    if (t < 8) bins[t] = 0;
    tile[2 * t] = (float)t;          // 2-way: lanes 0 and 16 share a bank
    tile[2 * t + 1] = 0.0f;
    __syncthreads();
    float v = tile[t];               // conflict-free
    v += tile[(4 * t) % 256];        // 4-way (within the 256 floats written)
    atomicAdd(&bins[t % 8], 1);      // 8 bins: 4 lanes per word
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = v + (float)bins[t % 8];
}

__global__ void __cluster_dims__(2, 1, 1) cluster_remote(float* out)
{
    __shared__ float tile[512];
    __shared__ int bins[8];
    cg::cluster_group cluster = cg::this_cluster();
    const int t = threadIdx.x;
    if (t < 8) bins[t] = 0;
    tile[2 * t] = (float)(t + 1000 * (int)cluster.block_rank());
    tile[2 * t + 1] = 0.0f;
    cluster.sync();
    const unsigned peer = cluster.block_rank() ^ 1u;
    float* peer_tile = cluster.map_shared_rank(tile, peer);
    int* peer_bins = cluster.map_shared_rank(bins, peer);
    float v = peer_tile[2 * t];      // the other block's store of thread t
    atomicAdd(&peer_bins[t % 8], 1);
    cluster.sync();
    v += tile[t] + (float)bins[t % 8];
    out[blockIdx.x * blockDim.x + t] = v;
}

int main(int argc, char** argv)
{
    const int blocks = argc > 1 ? atoi(argv[1]) : 264, threads = 128;
    if (blocks < 2 || blocks % 2) { fprintf(stderr, "BLOCKS must be even\n"); return 2; }
    float* d_out;
    CK(cudaMalloc(&d_out, (size_t)blocks * threads * sizeof(float)));
    std::vector<float> h((size_t)blocks * threads);
    long bad = 0;

    cluster_local<<<blocks, threads>>>(d_out);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h.data(), d_out, h.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; ++b)
        for (int t = 0; t < threads; ++t) {
            const int i = t, j = (4 * t) % 256;
            const float a = (i % 2) ? 0.0f : (float)(i / 2), c = (j % 2) ? 0.0f : (float)(j / 2);
            bad += h[(size_t)b * threads + t] != a + c + 16.0f;
        }
    printf("cluster_local: %d blocks x %d threads, clusters of 2: %ld wrong %s\n", blocks, threads, bad, bad ? "FAIL" : "OK");

    long bad2 = 0;
    cluster_remote<<<blocks, threads>>>(d_out);
    CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h.data(), d_out, h.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; ++b)
        for (int t = 0; t < threads; ++t) {
            const int rank = b % 2, peer = rank ^ 1;
            const float own = (t % 2) ? 0.0f : (float)(t / 2 + 1000 * rank);
            const float want = (float)(t + 1000 * peer) + own + 16.0f;
            bad2 += h[(size_t)b * threads + t] != want;
        }
    printf("cluster_remote: %d blocks x %d threads, clusters of 2: %ld wrong %s\n", blocks, threads, bad2, bad2 ? "FAIL" : "OK");
    CK(cudaFree(d_out));
    return bad || bad2 ? 1 : 0;
}
