"""Capture side of thread-block clusters: a block's own shared memory against distributed shared memory.

In a cluster launch (sm_90) the Sanitizer API reports shared addresses in the cluster's shared window:
the low 24 bits are the offset in one block's window, the bits above name the block (its rank in the
cluster) whose shared memory the lane touched (measured on the H100, device run 13: a cluster of 2 with
only block-local accesses gives rank 1's accesses at 0x1000400 and up). The tracer stores each record's own
cluster rank in bits 16 and up of ``kind``. A lane whose address names its own block is an ordinary access
and keeps the 24-bit offset; a warp-instruction with any lane in another block's memory (distributed
shared memory, ``cluster.map_shared_rank``) is not a bank access of this SM and is not simulated: it
becomes the launch's ``distributed_shared`` summary, one entry per instruction, instead of a record.
"""

from __future__ import annotations

import numpy as np

#: Bits of the offset inside one block's shared window; the cluster rank is above them.
RANK_SHIFT = 24
KIND_MASK = 0xFFFF
KIND_RANK_SHIFT = 16
#: Record kinds whose addresses are plain shared offsets (cp.async records pack their source above bit 18).
PLAIN_KINDS = (1, 2)


def split_remote(records: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(records with plain kinds and block-local offsets, records touching another block's shared memory).

    Records from a tracer without the rank (every rank 0) and launches without clusters pass unchanged.
    """
    records = records.copy()
    rank = (records["kind"] >> KIND_RANK_SHIFT).astype(np.int64)
    records["kind"] &= KIND_MASK
    plain = np.isin(records["kind"], PLAIN_KINDS)
    addresses = records["addresses"].astype(np.int64)
    lanes = ((records["active"].astype(np.int64)[:, None] >> np.arange(addresses.shape[1])) & 1).astype(bool)
    named = addresses >> RANK_SHIFT
    elsewhere = (lanes & (named != rank[:, None])).any(axis=1) & plain
    local = plain & ~elsewhere
    offsets = addresses[local] & ((1 << RANK_SHIFT) - 1)
    records["addresses"][local] = offsets.astype(records["addresses"].dtype)
    return records[~elsewhere], records[elsewhere]

