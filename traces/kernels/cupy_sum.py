"""bankism corpus: a library kernel, CuPy's own reduction kernel for ``sum(axis=1)``.

CUPY_ACCELERATORS is emptied so CuPy compiles its generic reduction kernel (``cupy_sum``, a block-wide
tree reduction through shared memory) instead of calling CUB. The input is a 64 x 4096 float32 array
(one block of the reduction per row); the result is checked against NumPy in float64.
"""

import os
import sys

os.environ["CUPY_ACCELERATORS"] = ""

import cupy  # noqa: E402
import numpy  # noqa: E402


def main() -> int:
    """Sum the rows of a random matrix on the GPU and compare with NumPy."""
    rng = numpy.random.default_rng(2026)
    host = rng.standard_normal((64, 4096)).astype(numpy.float32)
    device = cupy.asarray(host)
    got = cupy.asnumpy(device.sum(axis=1))
    cupy.cuda.runtime.deviceSynchronize()
    want = host.astype(numpy.float64).sum(axis=1)
    error = float(numpy.linalg.norm(got - want) / numpy.linalg.norm(want))
    ok = bool(numpy.isfinite(error) and error < 1e-5)
    print(
        f"cupy_sum: 64x4096 float32 sum(axis=1) with CuPy {cupy.__version__}: relative error {error:.3e} "
        f"{'OK' if ok else 'FAIL'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
