"""Two Triton kernels, each checked against PyTorch:

- softmax_rows: one program per row of 1024 floats, 4 warps; tl.max and tl.sum reduce across the warps
  (Triton exchanges the per-warp partials through shared memory);
- matmul_tile: one 64x64x32 fp16 tile product with tl.dot (fp32 accumulator); the operands go through
  shared memory on their way to the tensor cores.
"""

import sys

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_rows(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    shifted = x - tl.max(x, axis=0)
    numerator = tl.exp(shifted)
    denominator = tl.sum(numerator, axis=0)
    tl.store(out_ptr + row * n_cols + cols, numerator / denominator, mask=mask)


@triton.jit
def matmul_tile(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    inner = tl.arange(0, K)
    a = tl.load(a_ptr + rows[:, None] * K + inner[None, :])
    b = tl.load(b_ptr + inner[:, None] * N + cols[None, :])
    c = tl.dot(a, b)
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], c)


def main() -> int:
    torch.manual_seed(0)
    x = torch.randn(64, 1024, device="cuda")
    y = torch.empty_like(x)
    softmax_rows[(64,)](y, x, 1024, BLOCK=1024, num_warps=4)
    a = torch.randn(64, 32, device="cuda", dtype=torch.float16)
    b = torch.randn(32, 64, device="cuda", dtype=torch.float16)
    c = torch.empty(64, 64, device="cuda", dtype=torch.float32)
    matmul_tile[(1,)](a, b, c, M=64, N=64, K=32, num_warps=4)
    torch.cuda.synchronize()
    softmax_error = (y - torch.softmax(x, dim=1)).abs().max().item()
    matmul_error = (c - a.float() @ b.float()).abs().max().item()
    print(f"triton_kernels: softmax error {softmax_error:.2e}, matmul error {matmul_error:.2e}")
    return 0 if softmax_error < 1e-5 and matmul_error < 1e-2 else 1


if __name__ == "__main__":
    sys.exit(main())
