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
    addresses, mask: int, op: str, width: int, matrices: int | None, arch: str, atomic_op: str = "add"
) -> list[list[int]]:
    """Cut the lanes into transactions, then merge neighbouring pairs where the rule allows."""
    rule = get_arch(arch).rule(op, 16 if op in MATRIX_OPS else width, atomic_op)
    lanes = lanes_of(op, matrices)
    size = rule.lanes_per_transaction
    pieces = [lanes[start:start + size] for start in range(0, len(lanes), size)]
    if not rule.merge_xors:
        return pieces
    warp_agrees = any(partners_agree(addresses, mask, lanes, xor) for xor in rule.merge_xors)
    merged = []
    for k in range(0, len(pieces), 2):
        pair = pieces[k] + pieces[k + 1]
        if rule.merge_scope == "warp":
            agrees = warp_agrees
        else:
            agrees = any(partners_agree(addresses, mask, pair, xor) for xor in rule.merge_xors)
        if agrees:
            merged.append(pair)
        else:
            merged.extend([pieces[k], pieces[k + 1]])
    return merged


def reference_count(addresses, width: int, op: str = "load", mask: int = 0xFFFFFFFF,
                    matrices: int | None = None, arch: str = "sm_90",
                    atomic_op: str = "add") -> ReferenceCount:
    """Wavefronts of one warp-instruction.

    Per transaction, each bank needs one pass per distinct word it holds (loads, stores:
    lanes on one word share it) or per lane (atomics and cp.async: lanes are served one at a time); the
    transaction costs its busiest bank's passes, times the passes' cost (2 for cas). A
    transaction of an unbanked kind (cas_spin) takes one pass whatever its banks.
    """
    if op in MATRIX_OPS:
        width = 16
    rule = get_arch(arch).rule(op, width, atomic_op)
    wavefronts = 0
    served = 0
    for transaction in transactions_of(addresses, mask, op, width, matrices, arch, atomic_op):
        requests_in_bank: dict[int, list[int]] = {}
        for lane in transaction:
            if is_active(mask, lane):
                for word in words_of(int(addresses[lane]), width):
                    requests_in_bank.setdefault(word % BANKS, []).append(word)
        if requests_in_bank:
            if not rule.banked:
                passes = 1
            elif rule.same_address_serialised:
                passes = max(len(words) for words in requests_in_bank.values())
            else:
                passes = max(len(set(words)) for words in requests_in_bank.values())
            wavefronts += passes * rule.wavefronts_per_pass
            served += 1
    return ReferenceCount(wavefronts=wavefronts, transactions=served)


def reference_cas_loop(addresses, width: int, mask: int = 0xFFFFFFFF, arch: str = "sm_90") -> list[int]:
    """The active mask of every iteration of a compiler CAS retry loop, one lane at a time.

    Groups (warp or half-warps) go to the banks in order; in each, the lowest remaining lane of each bank
    slot is chosen; with ``sees_earlier_groups``, a chosen lane whose word a winner of an earlier group
    wrote in this iteration fails. Winners leave; the rest retry.
    """
    machine = get_arch(arch)
    rule = machine.cas_loops[width]
    slots_per_row = machine.bank_row_bytes // rule.unit_bytes
    remaining = [lane for lane in range(32) if is_active(mask, lane)]
    iterations = []
    while remaining:
        iterations.append(sum(1 << lane for lane in remaining))
        winners: list[int] = []
        for start in range(0, 32, rule.lanes_per_group):
            written = {int(addresses[lane]) // rule.unit_bytes for lane in winners}
            taken: set[int] = set()
            for lane in remaining:
                if not start <= lane < start + rule.lanes_per_group:
                    continue
                unit = int(addresses[lane]) // rule.unit_bytes
                slot = unit % slots_per_row
                if slot in taken:
                    continue
                taken.add(slot)
                if rule.sees_earlier_groups and unit in written:
                    continue
                winners.append(lane)
        remaining = [lane for lane in remaining if lane not in winners]
    return iterations
