"""The engine's Numba kernel: per warp-instruction wavefront counts, in parallel over chunks.

Only ``bankism.engine`` calls it; it reads every rule and the bank geometry from the per-kind
table that ``bankism.engine`` builds from ``arch.py`` (columns ``KindColumn``).
"""

from __future__ import annotations

import numpy as np

from bankism.arch import LANES
from bankism.engine.jit import compiler
from bankism.engine.table import ErrorCode, KindColumn, TotalColumn, WorstColumn

njit = compiler(__name__)  # Numba's, or none for the plain-Python copy (kernel_python)

MAX_TRANSACTIONS = 4

_U1 = np.uint64(1)
_U7 = np.uint64(7)
_HIGH_BITS = np.uint64(0x8080808080808080)
_LOW_BITS = np.uint64(0x0101010101010101)
_BYTE_ONES = np.uint64(0xFF)


@njit(cache=True, inline="always")
def _merge_xor(addresses, i, mask, lo, hi, merge_xors):
    """The first xor mask under which every active lane in lo..hi-1 agrees with its partner, else 0."""
    for xi in range(merge_xors.size):
        x = merge_xors[xi]
        holds = True
        for lane in range(lo, hi):
            if (mask >> lane) & 1:
                partner = lane ^ x
                if (mask >> partner) & 1 and addresses[i, partner] != addresses[i, lane]:
                    holds = False
                    break
        if holds:
            return x
    return 0


@njit(cache=True, inline="always")
def merged_pairs(addresses, i, mask, lanes_used, group_lanes, merge_xors, warp_scope):
    """(bits, xor): bit p set when base transactions 2p and 2p+1 merge, and the xor mask that merged.

    With ``warp_scope`` the merge condition is tested once on the whole warp and merges
    every pair or none; otherwise on the lanes of each pair.
    """
    n_pairs = lanes_used // (2 * group_lanes)
    if merge_xors.size == 0 or n_pairs == 0:
        return 0, 0
    if warp_scope:
        fired = _merge_xor(addresses, i, mask, 0, lanes_used, merge_xors)
        return ((1 << n_pairs) - 1 if fired else 0), fired
    bits = 0
    fired = 0
    for p in range(n_pairs):
        lo = 2 * p * group_lanes
        x = _merge_xor(addresses, i, mask, lo, lo + 2 * group_lanes, merge_xors)
        if x:
            bits |= 1 << p
            fired = x
    return bits, fired


@njit(cache=True, inline="always")
def _popcount(x):
    """Set bits of a uint64 (LLVM turns this into one popcnt instruction)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * _LOW_BITS) >> np.uint64(56)


@njit(cache=True, inline="always")
def _byte_max(a, b):
    """Bytewise maximum of two words of eight 7-bit counters (SWAR)."""
    a_wins = (((a | _HIGH_BITS) - b) & _HIGH_BITS) >> _U7
    keep = a_wins * _BYTE_ONES
    return (a & keep) | (b & ~keep)


@njit(cache=True, inline="always")
def _word_max(w):
    """The largest of the eight byte counters of one word."""
    w = _byte_max(w, w >> np.uint64(32))
    w = _byte_max(w, w >> np.uint64(16))
    w = _byte_max(w, w >> np.uint64(8))
    return np.int64(w & _BYTE_ONES)


@njit(cache=True, inline="always")
def _histogram_max(keys, fresh, lanes_used, n_keys, n_super, n_transactions, words, counts, best):
    """best[t] = the largest number of fresh lanes sharing one key of transaction t.

    A key is (transaction, bank group). Up to 32 keys of at least 8 per transaction, the
    counters live in four registers, eight 8-bit counters each (no store-to-load chains);
    otherwise in an array.
    """
    if n_keys <= 32 and n_super >= 8:
        w0 = np.uint64(0)
        w1 = np.uint64(0)
        w2 = np.uint64(0)
        w3 = np.uint64(0)
        for lane in range(lanes_used):
            key = np.uint64(keys[lane])
            add = np.uint64(fresh[lane]) << ((key & _U7) << np.uint64(3))
            word = key >> np.uint64(3)
            w0 += add * np.uint64(word == 0)
            w1 += add * np.uint64(word == 1)
            w2 += add * np.uint64(word == 2)
            w3 += add * np.uint64(word == 3)
        words[0] = w0
        words[1] = w1
        words[2] = w2
        words[3] = w3
        per = n_super >> 3
        for t in range(n_transactions):
            w = words[t * per]
            for k in range(t * per + 1, (t + 1) * per):
                w = _byte_max(w, words[k])
            best[t] = _word_max(w)
        return
    for k in range(n_keys):
        counts[k] = 0
    for lane in range(lanes_used):
        counts[np.uintp(keys[lane])] += fresh[lane]
    for t in range(n_transactions):
        top = 0
        for k in range(t * n_super, (t + 1) * n_super):
            top = max(top, counts[k])
        best[t] = top


@njit(cache=True)
def _first_invalid_lane(row, mask, lanes_used, width, limit):
    """(lane, error code) of the first active lane with an invalid address (it must end by ``limit``)."""
    for lane in range(lanes_used):
        if (mask >> lane) & 1:
            a = row[lane]
            if a < 0:
                return lane, ErrorCode.NEGATIVE
            if a > limit - width:  # not a + width: that overflows for a near 2**63
                return lane, ErrorCode.RANGE
            if a & (width - 1):
                return lane, ErrorCode.ALIGN
    return -1, ErrorCode.NONE


@njit(cache=True, nogil=True)
def simulate_kernel(
    addresses, masks, kinds, table, xors, floats, per_record,
    wavefronts, ideal, conflicts, cycles, groups, merged, totals, cycle_totals, worst, errors,
):
    """Count every warp-instruction; errors[c] = (instruction, lane, code) of chunk c's first invalid lane.

    Serial and free of the GIL: ``bankism.engine`` runs it on several threads at once, one
    contiguous piece of the batch each (a serial kernel compiles much faster than a
    ``prange`` one, and threads that take pieces as they free up balance a busy machine).

    Instruction i is of kind ``kinds[i]`` (or ``kinds[0]`` for all): its rule, geometry and
    address limit are row ``kinds[i]`` of ``table`` (columns ``KindColumn``), its merge xor masks
    ``xors[k, :table[k, KindColumn.XORS]]`` and its cycle model ``floats[k]``. Per-instruction
    results go to the per-record arrays when ``per_record``; per (chunk, kind) sums and the
    worst instruction always go to ``totals``, ``cycle_totals`` and ``worst``.

    A unit is the aligned ``1 << unit_shift``-byte piece one lane occupies in the banks;
    units of one bank group (unit mod 2**super_shift) that differ need a pass each, equal
    units share one unless ``serialised``. Per instruction: one sweep validates the lanes
    and computes each lane's table slot (unit, transaction) and key (transaction, bank
    group); if no key holds two active lanes, every busy transaction takes one pass.
    Otherwise the lowest lane of each slot is found with a scatter (descending) and a
    gather, and the fresh lanes are counted per key.
    """
    n = addresses.shape[0]
    n_chunks = errors.shape[0]
    chunk = (n + n_chunks - 1) // n_chunks
    scalar_mask = masks.shape[0] == 1
    scalar_kind = kinds.shape[0] == 1
    spare_max = 0
    keys_max = 1
    for k in range(table.shape[0]):
        units = (table[k, KindColumn.LIMIT] >> table[k, KindColumn.UNIT_SHIFT]) + 1
        spare_max = max(spare_max, units << table[k, KindColumn.TX_SHIFT])
        keys_max = max(keys_max, table[k, KindColumn.BASE] << table[k, KindColumn.SUPER_SHIFT])
    for c in range(n_chunks):
        owner = np.zeros(spare_max + 1, np.uint8)
        slots = np.empty(LANES, np.int32)
        keys = np.empty(LANES, np.int32)
        fresh = np.empty(LANES, np.int32)
        words = np.empty(4, np.uint64)
        counts = np.empty(keys_max, np.int32)
        best = np.empty(MAX_TRANSACTIONS, np.int64)
        errors[c, 0] = -1
        errors[c, 1] = -1
        errors[c, 2] = ErrorCode.NONE
        for k in range(table.shape[0]):
            for f in range(4):
                totals[c, k, f] = 0
            cycle_totals[c, k] = 0.0
            worst[c, k, WorstColumn.INDEX] = -1
            worst[c, k, WorstColumn.EXCESS] = -1
            worst[c, k, WorstColumn.WAVEFRONTS] = -1
        current = np.uintp(table.shape[0])  # no kind yet: the first instruction loads its row
        width = lanes_used = group_shift = n_base = tx_shift = per_pass = unit_shift = super_shift = 0
        limit = n_super = n_keys = last_start = spare = 0
        serialised = banked = False
        for i in range(c * chunk, min(n, (c + 1) * chunk)):
            row = np.uintp(i)
            mask = masks[0] if scalar_mask else masks[i]
            kind = np.uintp(kinds[0] if scalar_kind else kinds[i])
            if kind != current:  # the rule's parameters stay in registers while the kind repeats
                current = kind
                width = table[kind, KindColumn.WIDTH]
                lanes_used = table[kind, KindColumn.LANES]
                group_shift = table[kind, KindColumn.GROUP_SHIFT]
                n_base = table[kind, KindColumn.BASE]
                tx_shift = table[kind, KindColumn.TX_SHIFT]
                serialised = table[kind, KindColumn.SERIALISED] != 0
                banked = table[kind, KindColumn.BANKED] != 0
                per_pass = table[kind, KindColumn.PER_PASS]
                unit_shift = table[kind, KindColumn.UNIT_SHIFT]
                super_shift = table[kind, KindColumn.SUPER_SHIFT]
                limit = table[kind, KindColumn.LIMIT]
                n_super = 1 << super_shift
                n_keys = n_base << super_shift
                last_start = limit - width
                spare = ((limit >> unit_shift) + 1) << tx_shift
            bits = 0
            if table[kind, KindColumn.XORS]:
                bits, _ = merged_pairs(
                    addresses, i, mask, lanes_used, table[kind, KindColumn.GROUP_LANES],
                    xors[kind, :table[kind, KindColumn.XORS]], table[kind, KindColumn.WARP_SCOPE] != 0,
                )
            bad = 0
            seen = np.uint64(0)
            for lane in range(lanes_used):
                a = addresses[row, np.uintp(lane)]
                active = (mask >> lane) & 1
                invalid = ((a < 0) | (a > last_start) | ((a & (width - 1)) != 0)) & active
                bad |= invalid
                t = lane >> group_shift
                t &= ~((bits >> (t >> 1)) & 1)
                unit = a >> unit_shift
                key = (t << super_shift) | (unit & (n_super - 1))
                # an invalid lane's slot is never used (the instruction is reported below); as plain
                # Python (engine/kernel_python.py) a huge address would not fit the int32 slot
                slots[lane] = ((unit << tx_shift) | t) if active and not invalid else spare
                keys[lane] = key
                fresh[lane] = active
                seen |= np.uint64(active) << np.uint64(key & 63)
            if bad:
                lane, code = _first_invalid_lane(addresses[i], mask, lanes_used, width, limit)
                errors[c, 0] = i
                errors[c, 1] = lane
                errors[c, 2] = code
                break
            used_lanes = (1 << lanes_used) - 1
            lonely = _popcount(seen) == _popcount(np.uint64(mask & used_lanes))
            if n_keys <= 64 and super_shift < 6 and lonely:
                for t in range(n_base):
                    in_t = (seen >> np.uint64(t << super_shift)) & np.uint64((1 << n_super) - 1)
                    best[t] = in_t != 0
            elif not banked:
                for t in range(n_base):
                    best[t] = 0
                for lane in range(lanes_used):
                    best[keys[lane] >> super_shift] |= fresh[lane]
            else:
                if not serialised:
                    for lane in range(lanes_used - 1, -1, -1):
                        owner[np.uintp(slots[lane])] = lane
                    for lane in range(lanes_used):
                        fresh[lane] &= owner[np.uintp(slots[lane])] == lane
                _histogram_max(keys, fresh, lanes_used, n_keys, n_super, n_base, words, counts, best)
            total = 0
            served = 0
            for t in range(n_base):
                passes = best[t] if banked else min(best[t], 1)
                total += passes
                served += passes > 0
            cost = total * per_pass
            lower = served * per_pass
            spent = max(floats[kind, 0], floats[kind, 1] * cost) if total > 0 else 0.0
            if per_record:
                wavefronts[i] = cost
                ideal[i] = lower
                conflicts[i] = total - served
                groups[i] = served
                merged[i] = bits != 0
                cycles[i] = spent
            else:
                totals[c, kind, TotalColumn.EXECUTIONS] += 1
                totals[c, kind, TotalColumn.WAVEFRONTS] += cost
                totals[c, kind, TotalColumn.IDEAL] += lower
                totals[c, kind, TotalColumn.CONFLICTS] += total - served
                cycle_totals[c, kind] += spent
                excess = cost - lower
                if excess > worst[c, kind, WorstColumn.EXCESS] or (
                    excess == worst[c, kind, WorstColumn.EXCESS]
                    and cost > worst[c, kind, WorstColumn.WAVEFRONTS]
                ):
                    worst[c, kind, WorstColumn.INDEX] = i
                    worst[c, kind, WorstColumn.EXCESS] = excess
                    worst[c, kind, WorstColumn.WAVEFRONTS] = cost
