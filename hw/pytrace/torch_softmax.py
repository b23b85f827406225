"""PyTorch eager softmax over rows of 4096 floats: too long for the one-warp-per-row kernel, so PyTorch
runs its block softmax (cunn_SoftMaxForward*), whose max and sum are reduced across the block's warps
through shared memory. The result is checked against a float64 softmax on the CPU."""

import sys

import torch

torch.manual_seed(0)
x = torch.randn(64, 4096, device="cuda")
y = torch.softmax(x, dim=1)
torch.cuda.synchronize()
expected = torch.softmax(x.cpu().double(), dim=1)
error = (y.cpu().double() - expected).abs().max().item()
print(f"torch_softmax: max abs error {error:.2e}")
sys.exit(0 if error < 1e-6 else 1)
