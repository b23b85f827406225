"""A shared-memory histogram written with Numba, over seeded random bytes (issue 21).

256 threads per block, 256 blocks, one byte per thread: cuda.atomic.add(hist, byte % BINS, 1) with the
result unused. Usage: python3 numba_histogram.py 64|256
"""

import sys

import numpy as np

if not hasattr(
    np, "row_stack"
):  # the device image's numba 0.68 still names np.row_stack, gone from numpy 2.5
    np.row_stack = np.vstack
from numba import cuda, uint32  # noqa: E402


def make_kernel(bins: int):
    @cuda.jit(lineinfo=True)
    def shared_histogram(data, out):
        hist = cuda.shared.array(bins, uint32)
        b = cuda.threadIdx.x
        while b < bins:
            hist[b] = 0
            b += cuda.blockDim.x
        cuda.syncthreads()
        i = cuda.grid(1)
        if i < data.size:
            cuda.atomic.add(hist, data[i] % bins, 1)
        cuda.syncthreads()
        b = cuda.threadIdx.x
        while b < bins:
            cuda.atomic.add(out, b, hist[b])
            b += cuda.blockDim.x

    return shared_histogram


def main() -> None:
    bins = int(sys.argv[1]) if len(sys.argv) > 1 else 64
    n = 256 * 256
    data = np.random.default_rng(20261125).integers(0, 256, n, dtype=np.uint8)
    out = cuda.to_device(np.zeros(bins, dtype=np.uint32))
    make_kernel(bins)[n // 256, 256](cuda.to_device(data), out)
    expected = np.bincount(data.astype(np.int64) % bins, minlength=bins)
    wrong = int((out.copy_to_host() != expected).sum())
    print(
        f"numba_histogram {bins} bins: {n} bytes, grid {n // 256}, block 256: {wrong} wrong bins "
        f"{'OK' if not wrong else 'FAIL'}"
    )
    sys.exit(1 if wrong else 0)


if __name__ == "__main__":
    main()
