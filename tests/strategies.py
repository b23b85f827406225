"""Hypothesis strategies for random warp-instructions of every kind."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

SHARED_WINDOW = 64 * 1024

#: (op, width, matrices, atomic_op) of every instruction kind the engine models on sm_90.
KINDS = [
    ("load", 1, None, "add"), ("load", 2, None, "add"), ("load", 4, None, "add"),
    ("load", 8, None, "add"), ("load", 16, None, "add"),
    ("store", 1, None, "add"), ("store", 2, None, "add"), ("store", 4, None, "add"),
    ("store", 8, None, "add"), ("store", 16, None, "add"),
    ("atomic", 4, None, "add"), ("atomic", 4, None, "exch"), ("atomic", 4, None, "cas"),
    ("atomic", 8, None, "exch"), ("atomic", 8, None, "cas"), ("atomic", 8, None, "cas_spin"),
    ("atomic", 4, None, "popc_inc"), ("atomic", 4, None, "inc"), ("atomic", 4, None, "dec"),
    ("atomic", 4, None, "min"), ("atomic", 4, None, "max"), ("atomic", 4, None, "and"),
    ("atomic", 4, None, "or"), ("atomic", 4, None, "xor"), ("atomic", 4, None, "cas_spin"),
    ("ldmatrix", 16, 1, "add"), ("ldmatrix", 16, 2, "add"), ("ldmatrix", 16, 4, "add"),
    ("stmatrix", 16, 1, "add"), ("stmatrix", 16, 2, "add"), ("stmatrix", 16, 4, "add"),
    ("ldgsts", 4, None, "add"), ("ldgsts", 8, None, "add"), ("ldgsts", 16, None, "add"),
]

kinds = st.sampled_from(KINDS)


@st.composite
def lane_addresses(draw, width: int) -> np.ndarray:
    """32 aligned byte offsets from a family that makes conflicts, broadcasts and pairs likely."""
    family = draw(st.sampled_from(["stride", "pool", "pairs", "random", "small"]))
    if family == "stride":
        stride = draw(st.integers(0, 66)) * width
        base = draw(st.integers(0, 64)) * width
        addresses = base + stride * np.arange(32)
    elif family == "pool":
        pool = draw(st.lists(st.integers(0, 511), min_size=1, max_size=8))
        picks = draw(st.lists(st.integers(0, len(pool) - 1), min_size=32, max_size=32))
        addresses = np.asarray([pool[p] for p in picks]) * width
    elif family == "pairs":
        xor = draw(st.sampled_from([1, 2, 3, 4, 8, 16]))
        stride = draw(st.sampled_from([1, 2, 4, 8, 16, 32, 33]))
        lanes = np.arange(32)
        addresses = np.minimum(lanes, lanes ^ xor) * stride * width
        if draw(st.booleans()):
            broken = draw(st.integers(0, 31))
            addresses[broken] = draw(st.integers(0, 1023)) * width
    elif family == "small":
        addresses = np.asarray(draw(st.lists(st.integers(0, 63), min_size=32, max_size=32))) * width
    else:
        addresses = np.asarray(
            draw(st.lists(st.integers(0, SHARED_WINDOW // width - 1), min_size=32, max_size=32))
        ) * width
    return np.asarray(addresses, dtype=np.int64) % SHARED_WINDOW


@st.composite
def masks(draw) -> int:
    """Full, random, single-lane, half and quarter lane masks."""
    choice = draw(st.sampled_from(["full", "random", "single", "half", "quarter"]))
    if choice == "full":
        return 0xFFFFFFFF
    if choice == "single":
        return 1 << draw(st.integers(0, 31))
    if choice == "half":
        return draw(st.sampled_from([0x0000FFFF, 0xFFFF0000]))
    if choice == "quarter":
        return 0xFF << (8 * draw(st.integers(0, 3)))
    return draw(st.integers(1, 0xFFFFFFFF))


@st.composite
def warp_instructions(draw):
    """(op, width, matrices, addresses, mask, atomic_op) of one random warp-instruction."""
    op, width, matrices, atomic_op = draw(kinds)
    addresses = draw(lane_addresses(width))
    mask = 0xFFFFFFFF if matrices else draw(masks())
    return op, width, matrices, addresses, mask, atomic_op
