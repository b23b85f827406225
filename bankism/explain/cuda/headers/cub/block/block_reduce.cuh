// bankism's stand-in for cub::BlockReduce with its default algorithm, BLOCK_REDUCE_WARP_REDUCTIONS,
// as CUB 3.0 (CUDA 13.0) compiles for sm_90 (nvcc -O3, SASS of our kernels read in docs/explain.md):
// each warp reduces by shuffles; lane 0 of warp w stores its aggregate at warp_aggregates[w] (one STS,
// one lane); after a barrier thread 0 loads warp_aggregates[1..WARPS-1] (nvcc merges them into
// LDS.64/LDS.128 from aligned starts), with a partial tile (Sum(input, num_valid)) too, using only
// those of warps holding valid inputs. TempStorage: WARPS bytes of empty warp storage, then the
// aggregates and a prefix, aligned to T (44 bytes for float and 256 threads). Only thread 0's result
// is the block's. The raking algorithms are refused.
#pragma once
#include <cub/warp/warp_reduce.cuh>
namespace cub {
enum BlockReduceAlgorithm {
    BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY,
    BLOCK_REDUCE_RAKING,
    BLOCK_REDUCE_WARP_REDUCTIONS
};

template <typename T, int WARPS>
struct BlockReduceWarpStorage {
    unsigned char warp_reduce[WARPS];
    T warp_aggregates[WARPS];
    T block_prefix;
};

template <typename T, int BLOCK_DIM_X, BlockReduceAlgorithm ALGORITHM = BLOCK_REDUCE_WARP_REDUCTIONS,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockReduce {
public:
    static constexpr int BLOCK_THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
    static constexpr int WARPS = (BLOCK_THREADS + 31) / 32;
    using TempStorage = BlockReduceWarpStorage<T, WARPS>;
    TempStorage &temp_storage;
    __device__ BlockReduce(TempStorage &storage) : temp_storage(storage) {}

    // FULL: every thread holds a valid input (CUB's full-tile path, no test per warp: nvcc merges
    // thread 0's loads); else only the first num_valid threads do.
    template <bool FULL, typename ReductionOp>
    __device__ T WarpReductions(T input, ReductionOp op, int num_valid) {
        if (ALGORITHM != BLOCK_REDUCE_WARP_REDUCTIONS)
            __bankism_cub_block_reduce_raking_is_not_modelled();
        int linear_tid = threadIdx.x + BLOCK_DIM_X * (threadIdx.y + BLOCK_DIM_Y * threadIdx.z);
        int warp_id = linear_tid / 32;
        int lane_id = linear_tid % 32;
        T warp_aggregate = input;
        for (int offset = 1; offset < 32; offset *= 2) {
            T other = __shfl_down_sync(0xffffffff, warp_aggregate, offset);
            if (lane_id + offset < 32 && (FULL || linear_tid + offset < num_valid))
                warp_aggregate = op(warp_aggregate, other);
        }
        if (lane_id == 0)
            temp_storage.warp_aggregates[warp_id] = warp_aggregate;
        __syncthreads();
        if (linear_tid == 0) {
            if (FULL) {
                for (int successor = 1; successor < WARPS; ++successor) {
                    T addend = temp_storage.warp_aggregates[successor];
                    warp_aggregate = op(warp_aggregate, addend);
                }
            } else {
                T addends[WARPS];  // nvcc loads them all, then uses those of valid warps
                for (int successor = 1; successor < WARPS; ++successor)
                    addends[successor] = temp_storage.warp_aggregates[successor];
                for (int successor = 1; successor < WARPS; ++successor)
                    if (successor * 32 < num_valid)
                        warp_aggregate = op(warp_aggregate, addends[successor]);
            }
        }
        return warp_aggregate;
    }
    template <typename ReductionOp>
    __device__ T Reduce(T input, ReductionOp op) { return WarpReductions<true>(input, op, BLOCK_THREADS); }
    template <typename ReductionOp>
    __device__ T Reduce(T input, ReductionOp op, int num_valid) {
        if (num_valid >= BLOCK_THREADS) return WarpReductions<true>(input, op, BLOCK_THREADS);
        return WarpReductions<false>(input, op, num_valid);
    }
    __device__ T Sum(T input) { return WarpReductions<true>(input, cub::Sum(), BLOCK_THREADS); }
    __device__ T Sum(T input, int num_valid) { return Reduce(input, cub::Sum(), num_valid); }
};
}  // namespace cub
