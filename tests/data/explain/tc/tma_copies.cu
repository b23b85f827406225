// TMA copies through libcu++ and through inline PTX, with a CUtensorMap kernel parameter
// (tests/test_explain_tma.py). The copies are listed, not counted; the other accesses are counted.
#include <cuda.h>
#include <cuda/barrier>
#include <cuda_runtime.h>

using block_barrier = cuda::barrier<cuda::thread_scope_block>;
namespace cde = cuda::device::experimental;

__global__ void tma_tile(const __grid_constant__ CUtensorMap map, int *out)
{
    __shared__ alignas(128) int tile[32][32];
    __shared__ block_barrier bar;
    if (threadIdx.x == 0)
        init(&bar, blockDim.x);
    __syncthreads();
    block_barrier::arrival_token token;
    if (threadIdx.x == 0) {
        cde::cp_async_bulk_tensor_2d_global_to_shared(&tile, &map, 0, 0, bar);
        token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(tile));
    } else {
        token = bar.arrive();
    }
    bar.wait(std::move(token));
    out[threadIdx.x] = tile[threadIdx.x][0];  // a column: 32-way
    tile[0][threadIdx.x] = out[threadIdx.x] + 1;  // a row: no conflict
    cde::fence_proxy_async_shared_cta();
    __syncthreads();
    if (threadIdx.x == 0) {
        cde::cp_async_bulk_tensor_2d_shared_to_global(&map, 0, 0, &tile);
        cde::cp_async_bulk_commit_group();
        cde::cp_async_bulk_wait_group_read<0>();
    }
    if (threadIdx.x == 0)
        (&bar)->~block_barrier();
}

__global__ void tma_ptx(const __grid_constant__ CUtensorMap map, float *out)
{
    __shared__ alignas(128) float tile[32][33];
    __shared__ alignas(8) unsigned long long full;
    unsigned to = (unsigned)__cvta_generic_to_shared(tile);
    unsigned barrier = (unsigned)__cvta_generic_to_shared(&full);
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(barrier), "r"(1));
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3}], [%4];" ::"r"(to), "l"(&map), "r"(0), "r"(0), "r"(barrier)
                     : "memory");
    }
    __syncthreads();
    out[threadIdx.x] = tile[threadIdx.x][0];  // padded: no conflict
}

void run(CUtensorMap map, int *a, float *b)
{
    tma_tile<<<4, 32>>>(map, a);
    tma_ptx<<<4, 32>>>(map, b);
}
