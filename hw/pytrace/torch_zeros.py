"""The smallest PyTorch program that starts CUDA: one fill kernel (the tracer's crash reproducer)."""

import torch

x = torch.zeros(1, device="cuda")
assert x.item() == 0.0
print("torch_zeros: ok")
