"""PyTorch imported (its libraries loaded) but CUDA started by CuPy: separates "PyTorch's libraries in the
process" from "PyTorch's CUDA initialisation" when bisecting."""

import cupy
import torch  # noqa: F401  (only its shared libraries matter here)

x = cupy.arange(10, dtype=cupy.float32)
assert float(x.sum()) == 45.0
print("torch_then_cupy: ok")
