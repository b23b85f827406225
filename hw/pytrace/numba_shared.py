"""A Numba CUDA kernel with cuda.shared.array: a 32x32 tile transpose through a float32[32][32] tile.
Each warp writes one tile row and reads one tile column, so the column reads hit one bank 32 times.
Compiled with lineinfo=True, so the trace's sites carry this file's line numbers. Checked with NumPy."""

import sys

import numpy as np

if not hasattr(np, "row_stack"):  # numba-cuda 0.30 registers np.row_stack, which NumPy 2.5 removed
    np.row_stack = np.vstack

from numba import cuda, float32  # noqa: E402  (after the shim above)

TILE = 32


@cuda.jit(lineinfo=True)
def transpose_tile(source, target):
    tile = cuda.shared.array((TILE, TILE), float32)
    x = cuda.blockIdx.x * TILE + cuda.threadIdx.x
    y = cuda.blockIdx.y * TILE + cuda.threadIdx.y
    tile[cuda.threadIdx.y, cuda.threadIdx.x] = source[y, x]
    cuda.syncthreads()
    tx = cuda.blockIdx.y * TILE + cuda.threadIdx.x
    ty = cuda.blockIdx.x * TILE + cuda.threadIdx.y
    target[ty, tx] = tile[cuda.threadIdx.x, cuda.threadIdx.y]


def main() -> int:
    rng = np.random.default_rng(0)
    host = rng.standard_normal((128, 128)).astype(np.float32)
    source = cuda.to_device(host)
    target = cuda.device_array_like(source)
    transpose_tile[(4, 4), (TILE, TILE)](source, target)
    result = target.copy_to_host()
    ok = np.array_equal(result, host.T)
    print(f"numba_shared: transpose {'ok' if ok else 'WRONG'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
