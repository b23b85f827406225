"""PyTorch torch.topk over seeded random rows (issue 21): 16 rows of 8192 floats, k = 32 along dim 1.

PyTorch's single-block top-k (sbtopk::gatherTopK) runs a radix select whose warps count digits in shared
memory with atomics, many warps of one block on the same few counters.
"""

import torch


def main() -> None:
    torch.manual_seed(20261125)
    x = torch.randn(16, 8192, device="cuda")
    values, indices = torch.topk(x, 32, dim=1)
    torch.cuda.synchronize()
    expected = torch.sort(x, dim=1, descending=True).values[:, :32]
    ok = torch.equal(values, expected) and torch.equal(torch.gather(x, 1, indices), values)
    print(f"torch_topk: 16x8192 floats, k=32: {'OK' if ok else 'FAIL'}")
    raise SystemExit(0 if ok else 1)


if __name__ == "__main__":
    main()
