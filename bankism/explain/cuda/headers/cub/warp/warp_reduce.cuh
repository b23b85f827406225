// bankism's stand-in for cub::WarpReduce: a shuffle reduction (SHFL.DOWN), which touches no shared
// memory; its TempStorage is never accessed, so nvcc drops a __shared__ array of it (explain does not
// lay out a stand-in's ...NullStorage). Logical warps of 32 threads only.
#pragma once
namespace cub {
struct Sum {
    template <typename T> __device__ T operator()(const T &a, const T &b) const { return a + b; }
};
struct Max {
    template <typename T> __device__ T operator()(const T &a, const T &b) const { return a < b ? b : a; }
};
struct Min {
    template <typename T> __device__ T operator()(const T &a, const T &b) const { return b < a ? b : a; }
};

struct WarpReduceNullStorage {
    unsigned char empty;
};

template <typename T, int LOGICAL_WARP_THREADS = 32, int LEGACY_PTX_ARCH = 0>
class WarpReduce {
public:
    using TempStorage = WarpReduceNullStorage;
    __device__ WarpReduce(TempStorage &storage) {}
    template <typename ReductionOp>
    __device__ T Reduce(T input, ReductionOp op) {
        static_assert(LOGICAL_WARP_THREADS == 32, "bankism models warps of 32 threads");
        for (int offset = 1; offset < 32; offset *= 2) {
            T other = __shfl_down_sync(0xffffffff, input, offset);
            if ((threadIdx.x % 32) + offset < 32) input = op(input, other);
        }
        return input;
    }
    __device__ T Sum(T input) { return Reduce(input, cub::Sum()); }
};
}  // namespace cub
