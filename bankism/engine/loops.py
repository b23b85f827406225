"""Compiler CAS retry loops (float atomicAdd, 64-bit atomics on sm_90): which lanes remain at each iteration.

Interprets ``arch.CasLoopRule`` on an (N, 32) batch with NumPy: ``cas_loop_masks`` gives, per warp, the
active mask of every iteration (the lanes that load their word and issue the CAS). The wavefronts of each
iteration's LDS and ATOMS.CAST.SPIN are then ``simulate`` of those masks; the loop is not one instruction,
so ``simulate`` refuses it. Limit: a single warp's loop; another warp writing the same words in between
adds iterations no rule predicts (docs/rules.md, "Whole kernels").
"""

from __future__ import annotations

import numpy as np

from bankism.arch import DEFAULT_ARCH, LANES, get_arch
from bankism.errors import BankismError

#: Lanes a loop can need at most: every iteration retires at least one lane.
MAX_ITERATIONS = LANES


def cas_loop_masks(addresses: object, active: object = 0xFFFFFFFF, width: int = 4,
                   arch: str = DEFAULT_ARCH) -> np.ndarray:
    """(N, iterations) uint32 masks: the lanes that run iteration k of each warp's loop (0 once done).

    ``addresses``: (N, 32) or (32,) byte addresses; ``active``: one mask or one per warp.
    """
    rule = get_arch(arch).cas_loops.get(width)
    if rule is None:
        raise BankismError(f"{arch} has no CAS retry loop of {width}-byte lanes")
    rows = np.atleast_2d(np.asarray(addresses, dtype=np.int64))
    if rows.shape[1] != LANES:
        raise BankismError(f"addresses must have {LANES} lanes per warp, got {rows.shape[1]}")
    masks = np.broadcast_to(np.asarray(active, dtype=np.int64), (rows.shape[0],)).astype(np.uint64)
    lanes = np.arange(LANES, dtype=np.uint64)
    remaining = ((masks[:, None] >> lanes) & np.uint64(1)).astype(bool)
    units = rows // rule.unit_bytes
    slots = units % (get_arch(arch).bank_row_bytes // rule.unit_bytes)
    size = rule.lanes_per_group
    out = []
    while remaining.any():
        out.append((remaining.astype(np.uint64) << lanes).sum(axis=1).astype(np.uint32))
        won = np.zeros_like(remaining)
        for lo in range(0, LANES, size):
            group = slice(lo, lo + size)
            chosen = _lowest_per_slot(remaining[:, group], slots[:, group])
            if rule.sees_earlier_groups and lo:
                written = _hits_earlier_words(units[:, group], units[:, :lo], won[:, :lo])
                chosen &= ~written
            won[:, group] = chosen
        remaining &= ~won
        if len(out) > MAX_ITERATIONS:
            raise BankismError("CAS loop did not finish in 32 iterations (internal error)")
    if not out:
        return np.zeros((rows.shape[0], 0), np.uint32)
    return np.stack(out, axis=1)


def _lowest_per_slot(remaining: np.ndarray, slots: np.ndarray) -> np.ndarray:
    """Per row, True for the lowest remaining lane of each bank slot."""
    big = np.int64(1 << 40)
    key = np.where(remaining, slots, big + np.arange(remaining.shape[1]))
    chosen = np.zeros_like(remaining)
    for lane in range(remaining.shape[1]):
        earlier = key[:, :lane] == key[:, lane:lane + 1]
        chosen[:, lane] = remaining[:, lane] & ~earlier.any(axis=1)
    return chosen


def _hits_earlier_words(units: np.ndarray, earlier_units: np.ndarray, earlier_won: np.ndarray) -> np.ndarray:
    """Per row and lane of this group: its word was written by a winner of an earlier group."""
    same = units[:, :, None] == earlier_units[:, None, :]
    return (same & earlier_won[:, None, :]).any(axis=2)
