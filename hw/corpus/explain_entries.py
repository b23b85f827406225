"""Corpus entries of the explain helper (issue 10): a cooperative-groups kernel, a struct-based
shared accessor (plain and padded) and a kernel kept in a header; traced and profiled with
hw/corpus/corpus.py's own steps."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path("hw/corpus").resolve()))
import corpus  # noqa: E402

corpus.ENTRIES = (
    corpus.Entry("cg_tiles", "cg_tiles.cu", (), "cg_tiles", "first:4",
                 "Cooperative groups: a 256-thread block split into eight 32-thread tiles "
                 "(cg::tiled_partition<32>); tile t writes row t of float buf[8][32], cta.sync(), then reads "
                 "buf[rank % 8][meta * 4 + rank / 8] and sums with cg::reduce. Grid 64; the first 4 blocks "
                 "are recorded, counters cover all 64."),
    corpus.Entry("accessor_struct", "accessor_struct.cu", ("plain",), "accessor_transpose", "first:4",
                 "Struct-based shared accessor: SharedMemory<double> (conversion operator returning the "
                 "extern __shared__ array) wrapped in Tile<double> with operator()(row, col), pitch 32: a "
                 "128x128 double transpose, block 32x8, grid 4x4; the first 4 of 16 blocks are recorded."),
    corpus.Entry("header_tiles", "header_tiles.cu", (), "header_tiles", "all",
                 "A tiled SGEMM kept in a header (header_tiles.cuh): float4 loads of A stored transposed "
                 "into "
                 "As[8*64], float4 copies of B into Bs, a namespaced function template loader; 128x128x128, "
                 "BM=BN=64, BK=8, TM=32, block 128, grid 2x2; all blocks."),
)
sys.argv = [sys.argv[0]]
sys.exit(corpus.main())
