"""A shared-memory histogram written with CuPy (RawKernel), over seeded random bytes (issue 21).

256 threads per block, 256 blocks, one byte per thread: atomicAdd(&hist[byte % BINS], 1u), result unused
(ATOMS.POPC.INC.32 on sm_90). Usage: python3 cupy_histogram.py 64|256
"""

import sys

import cupy as cp
import numpy as np

SOURCE = r"""
extern "C" __global__ void shared_histogram(const unsigned char* data, int n, unsigned int* out)
{
    __shared__ unsigned int hist[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) hist[b] = 0;
    __syncthreads();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&hist[data[i] % BINS], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&out[b], hist[b]);
}
"""


def main() -> None:
    bins = int(sys.argv[1]) if len(sys.argv) > 1 else 64
    n = 256 * 256
    data = np.random.default_rng(20261125).integers(0, 256, n, dtype=np.uint8)
    kernel = cp.RawKernel(SOURCE, "shared_histogram", options=(f"-DBINS={bins}", "-lineinfo"))
    device_data = cp.asarray(data)
    out = cp.zeros(bins, dtype=cp.uint32)
    kernel((n // 256,), (256,), (device_data, cp.int32(n), out))
    expected = np.bincount(data.astype(np.int64) % bins, minlength=bins)
    wrong = int((cp.asnumpy(out) != expected).sum())
    print(
        f"cupy_histogram {bins} bins: {n} bytes, grid {n // 256}, block 256: {wrong} wrong bins "
        f"{'OK' if not wrong else 'FAIL'}"
    )
    sys.exit(1 if wrong else 0)


if __name__ == "__main__":
    main()
