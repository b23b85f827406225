"""A plain, scalar reference implementation of the shared-memory rules, written for reading.

It interprets the same rule tables as the engine (``bankism.arch``) but in the most direct
way: lists of lanes, a set of 4-byte words per bank, one instruction at a time. The fast
engine must agree with it on every warp.
"""

from __future__ import annotations

from dataclasses import dataclass

from bankism.arch import MATRIX_OPS, get_arch

BANKS = 32
WORD_BYTES = 4


@dataclass
class ReferenceCount:
    wavefronts: int
    transactions: int


def lanes_of(op: str, matrices: int | None) -> list[int]:
    """Lanes whose addresses the instruction uses: all 32, or one row address per matrix row."""
    return list(range(8 * matrices)) if op in MATRIX_OPS else list(range(32))


def is_active(mask: int, lane: int) -> bool:
    return (mask >> lane) & 1 == 1


def words_of(address: int, width: int) -> list[int]:
    """The 4-byte words a lane touches: one for 1/2/4 bytes, width/4 consecutive words otherwise."""
    first = address // WORD_BYTES
    return [first + k for k in range(max(1, width // WORD_BYTES))]


def partners_agree(addresses, mask: int, lanes: list[int], xor: int) -> bool:
    """True when every active lane's xor partner is inactive or reads the same address."""
    for lane in lanes:
        partner = lane ^ xor
        if is_active(mask, lane) and is_active(mask, partner) and addresses[partner] != addresses[lane]:
            return False
    return True


def transactions_of(
    addresses, mask: int, op: str, width: int, matrices: int | None, arch: str
) -> list[list[int]]:
    """Cut the lanes into transactions, then merge neighbouring pairs where the rule allows."""
    rule = get_arch(arch).rule(op, 16 if op in MATRIX_OPS else width)
    lanes = lanes_of(op, matrices)
    size = rule.lanes_per_transaction
    pieces = [lanes[start:start + size] for start in range(0, len(lanes), size)]
    if not rule.merge_xors:
        return pieces
    merged = []
    for k in range(0, len(pieces), 2):
        pair = pieces[k] + pieces[k + 1]
        if any(partners_agree(addresses, mask, pair, xor) for xor in rule.merge_xors):
            merged.append(pair)
        else:
            merged.extend([pieces[k], pieces[k + 1]])
    return merged


def reference_count(addresses, width: int, op: str = "load", mask: int = 0xFFFFFFFF,
                    matrices: int | None = None, arch: str = "sm_90") -> ReferenceCount:
    """Wavefronts of one warp-instruction: per transaction, the most distinct words in one bank."""
    if op in MATRIX_OPS:
        width = 16
    wavefronts = 0
    served = 0
    for transaction in transactions_of(addresses, mask, op, width, matrices, arch):
        words_in_bank: dict[int, set[int]] = {}
        for lane in transaction:
            if is_active(mask, lane):
                for word in words_of(int(addresses[lane]), width):
                    words_in_bank.setdefault(word % BANKS, set()).add(word)
        if words_in_bank:
            wavefronts += max(len(words) for words in words_in_bank.values())
            served += 1
    return ReferenceCount(wavefronts=wavefronts, transactions=served)
