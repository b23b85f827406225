"""CUDA started from Python through the runtime library PyTorch ships (nvidia/cu13), without PyTorch:
separates "a Python process that loads cudart" from "PyTorch's CUDA initialisation" when bisecting."""

import ctypes
import glob
import site

found = [p for d in site.getsitepackages() for p in glob.glob(d + "/nvidia/cu13/lib/libcudart.so.13")]
runtime = ctypes.CDLL(found[0])
pointer = ctypes.c_void_p()
assert runtime.cudaMalloc(ctypes.byref(pointer), ctypes.c_size_t(1024)) == 0
assert runtime.cudaFree(pointer) == 0
print("cudart_only: ok")
