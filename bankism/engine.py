"""The engine: how many wavefronts each shared-memory warp-instruction costs.

``simulate`` validates and packs the input with NumPy, then one Numba kernel walks the
warp-instructions in parallel. For each instruction it cuts the active lanes into
transactions following the architecture's rule (``arch.py``), merges neighbouring
transactions when the rule's xor condition holds, and counts, per transaction, the
largest number of distinct bank-wide units requested from one bank group. The bank
geometry (banks, bytes per bank) comes from ``Architecture``; every rule field is
interpreted, none looked up by op name.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numba
import numpy as np
from numba import njit, prange

from bankism.arch import MATRIX_OPS, SPLIT_LANES, Architecture, Rule, get_arch
from bankism.errors import BankismError

FULL_MASK = 0xFFFFFFFF
MAX_TRANSACTIONS = 4

_ERR_NONE, _ERR_NEGATIVE, _ERR_RANGE, _ERR_ALIGN = 0, 1, 2, 3

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
def _merged_pairs(addresses, i, mask, lanes_used, group_lanes, merge_xors, warp_scope):
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
def _first_invalid_lane(row, mask, lanes_used, width, shared_bytes):
    """(lane, error code) of the first active lane with an invalid address."""
    for lane in range(lanes_used):
        if (mask >> lane) & 1:
            a = row[lane]
            if a < 0:
                return lane, _ERR_NEGATIVE
            if a + width > shared_bytes:
                return lane, _ERR_RANGE
            if a & (width - 1):
                return lane, _ERR_ALIGN
    return -1, _ERR_NONE


@njit(parallel=True, cache=True)
def _simulate_kernel(
    addresses, masks, width, lanes_used, group_lanes, merge_xors, warp_scope, serialised, banked,
    per_pass, cycles_floor, cycles_per_wavefront, shared_bytes, unit_shift, super_shift,
    wavefronts, ideal, conflicts, cycles, groups, merged, errors,
):
    """Per warp-instruction counts; errors[c] = (instruction, lane, code) of chunk c's first invalid lane.

    A unit is the aligned ``1 << unit_shift``-byte piece one lane touches (a bank word, or the
    whole access when it is wider); units that share a bank group (unit mod n_super) but differ
    need a pass each, equal units share one unless ``serialised``. Per instruction: one
    sweep validates the lanes and computes each lane's transaction, table slot (unit,
    transaction) and key (transaction, bank group); if no key holds two active lanes, every
    busy transaction takes one pass. Otherwise, the lowest lane of each slot is found with a
    scatter (descending) and a gather, and the fresh lanes are counted per key.
    """
    n = addresses.shape[0]
    n_chunks = errors.shape[0]
    chunk = (n + n_chunks - 1) // n_chunks
    n_super = 1 << super_shift
    super_mask = n_super - 1
    group_shift = 0
    while (1 << group_shift) < group_lanes:
        group_shift += 1
    n_base = lanes_used >> group_shift
    tx_shift = 0
    while (1 << tx_shift) < n_base:
        tx_shift += 1
    n_keys = n_base << super_shift
    key_bits = n_keys <= 64 and super_shift < 6
    last_start = shared_bytes - width
    spare = ((shared_bytes >> unit_shift) + 1) << tx_shift
    used_lanes = (1 << lanes_used) - 1
    scalar_mask = masks.shape[0] == 1
    has_merge = merge_xors.size > 0
    for c in prange(n_chunks):
        owner = np.zeros(spare + 1, np.uint8)
        slots = np.empty(32, np.int32)
        keys = np.empty(32, np.int32)
        fresh = np.empty(32, np.int32)
        words = np.empty(4, np.uint64)
        counts = np.empty(n_keys, np.int32)
        best = np.empty(n_base, np.int64)
        errors[c, 0] = -1
        errors[c, 1] = -1
        errors[c, 2] = _ERR_NONE
        for i in range(c * chunk, min(n, (c + 1) * chunk)):
            row = np.uintp(i)
            mask = masks[0] if scalar_mask else masks[i]
            bits = 0
            if has_merge:
                bits, _ = _merged_pairs(addresses, i, mask, lanes_used, group_lanes, merge_xors, warp_scope)
            bad = 0
            seen = np.uint64(0)
            for lane in range(lanes_used):
                a = addresses[row, np.uintp(lane)]
                active = (mask >> lane) & 1
                bad |= ((a < 0) | (a > last_start) | ((a & (width - 1)) != 0)) & active
                t = lane >> group_shift
                t &= ~((bits >> (t >> 1)) & 1)
                unit = a >> unit_shift
                key = (t << super_shift) | (unit & super_mask)
                slots[lane] = ((unit << tx_shift) | t) if active else spare
                keys[lane] = key
                fresh[lane] = active
                seen |= np.uint64(active) << np.uint64(key & 63)
            if bad:
                lane, code = _first_invalid_lane(addresses[i], mask, lanes_used, width, shared_bytes)
                errors[c, 0] = i
                errors[c, 1] = lane
                errors[c, 2] = code
                break
            if key_bits and _popcount(seen) == _popcount(np.uint64(mask & used_lanes)):
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
            wavefronts[i] = total * per_pass
            ideal[i] = served * per_pass
            conflicts[i] = total - served
            groups[i] = served
            merged[i] = bits != 0
            cycles[i] = max(cycles_floor, cycles_per_wavefront * total * per_pass) if total > 0 else 0.0


@dataclass(frozen=True)
class BankMap:
    """Which lanes and 4-byte words reach each bank, per transaction, for one instruction.

    ``banks[t][b]`` lists the (lane, word) pairs bank ``b`` serves in transaction ``t``.
    A bank serves each distinct word once per pass, or, when ``serialised`` (atomics), each
    lane once; every pass costs ``wavefronts_per_pass`` wavefronts.
    """

    transactions: list[tuple[int, int]]
    banks: list[list[list[tuple[int, int]]]]
    bank_bytes: int = 4
    serialised: bool = False
    wavefronts_per_pass: int = 1
    banked: bool = True

    @property
    def groups(self) -> list[list[int]]:
        """Lane ranges of the transactions (as lists of lanes)."""
        return [list(range(lo, hi)) for lo, hi in self.transactions]

    def words(self, transaction: int, bank: int) -> list[tuple[int, list[int]]]:
        """The distinct words bank ``bank`` serves in ``transaction``, in first-use order, each with the
        (sorted) lanes asking for it: the one grouping every bank-map renderer draws."""
        by_word: dict[int, list[int]] = {}
        for lane, word in self.banks[transaction][bank]:
            by_word.setdefault(int(word), []).append(int(lane))
        return [(word, sorted(set(lanes))) for word, lanes in by_word.items()]

    def passes(self, transaction: int, bank: int) -> int:
        """How many passes bank ``bank`` needs in ``transaction``."""
        hits = self.banks[transaction][bank]
        if not self.banked:
            return min(len(hits), 1)
        return len(hits) if self.serialised else len({word for _, word in hits})

    @property
    def wavefronts_per_transaction(self) -> list[int]:
        return [
            self.wavefronts_per_pass * max(self.passes(t, b) for b in range(len(per_bank)))
            for t, per_bank in enumerate(self.banks)
        ]

    @property
    def wavefronts(self) -> int:
        return sum(self.wavefronts_per_transaction)

    @property
    def worst_bank(self) -> tuple[int, int]:
        """(transaction, bank) needing the most passes."""
        best = (0, 0, -1)
        for t, per_bank in enumerate(self.banks):
            for b in range(len(per_bank)):
                if self.passes(t, b) > best[2]:
                    best = (t, b, self.passes(t, b))
        return best[0], best[1]

    def __str__(self) -> str:
        lines = []
        for t, (lo, hi) in enumerate(self.transactions):
            lines.append(
                f"transaction {t} (lanes {lo}-{hi - 1}): "
                f"{self.wavefronts_per_transaction[t]} wavefront(s)"
            )
            for b, hits in enumerate(self.banks[t]):
                if not hits:
                    continue
                cells = "  ".join(
                    f"word {word} (byte {word * self.bank_bytes}) <- lanes {_lane_list(lanes)}"
                    for word, lanes in self.words(t, b)
                )
                lines.append(f"  bank {b:2d}: {cells}")
        return "\n".join(lines)


def _lane_list(lanes: list[int]) -> str:
    return ",".join(str(lane) for lane in lanes)


@dataclass(frozen=True)
class SimulationResult:
    """Per warp-instruction counts (arrays of shape (N,)) and the context to explain them."""

    wavefronts: np.ndarray
    ideal: np.ndarray
    conflicts: np.ndarray
    cycles: np.ndarray
    groups: np.ndarray
    merged: np.ndarray
    op: str
    width: int
    matrices: int | None
    arch: Architecture
    rule: Rule
    atomic_op: str | None
    addresses: np.ndarray = field(repr=False)
    masks: np.ndarray = field(repr=False)

    @property
    def split(self) -> str:
        """How the warp is cut before merging: "warp", "half-warp", "quarter-warp" or "matrix"."""
        return self.rule.split

    def __len__(self) -> int:
        return int(self.wavefronts.shape[0])

    @property
    def total_wavefronts(self) -> int:
        return int(self.wavefronts.sum())

    @property
    def total_ideal(self) -> int:
        return int(self.ideal.sum())

    @property
    def total_conflicts(self) -> int:
        return int(self.conflicts.sum())

    @property
    def total_cycles(self) -> float:
        return float(self.cycles.sum())

    def _mask(self, i: int) -> int:
        return int(self.masks[0] if self.masks.shape[0] == 1 else self.masks[i])

    def _transactions(self, i: int) -> tuple[list[tuple[int, int]], int]:
        """Lane ranges of instruction i's transactions after merging, and the xor mask that merged."""
        lanes = _lanes_used(self.op, self.matrices)
        size = self.rule.lanes_per_transaction
        bits, fired = _merged_pairs(
            self.addresses, i, self._mask(i), lanes, size,
            np.asarray(self.rule.merge_xors, np.int64), self.rule.merge_scope == "warp",
        )
        ranges = []
        for lo in range(0, lanes, size):
            if (lo // size) % 2 == 1 and (bits >> (lo // size // 2)) & 1:
                ranges[-1] = (ranges[-1][0], lo + size)
            else:
                ranges.append((lo, lo + size))
        return ranges, int(fired)

    def bank_map(self, i: int = 0) -> BankMap:
        """The per-bank picture of instruction ``i``: lanes and 4-byte words in every bank."""
        self._check_index(i)
        return self._bank_map(i, self._transactions(i)[0])

    def _bank_map(self, i: int, transactions: list[tuple[int, int]]) -> BankMap:
        mask = self._mask(i)
        row = self.addresses[i]
        words_per_lane = max(1, max(self.width, 4) // self.arch.bank_bytes)
        banks = []
        for lo, hi in transactions:
            per_bank: list[list[tuple[int, int]]] = [[] for _ in range(self.arch.banks)]
            for lane in range(lo, hi):
                if (mask >> lane) & 1:
                    first = int(row[lane]) // self.arch.bank_bytes
                    for word in range(first, first + words_per_lane):
                        per_bank[word % self.arch.banks].append((lane, word))
            banks.append(per_bank)
        return BankMap(
            transactions, banks, self.arch.bank_bytes,
            self.rule.same_address_serialised, self.rule.wavefronts_per_pass, self.rule.banked,
        )

    def describe(self, i: int = 0) -> str:
        """One sentence: how instruction ``i`` was split or merged and why, and what it costs."""
        self._check_index(i)
        transactions, fired = self._transactions(i)
        bank_map = self._bank_map(i, transactions)
        active = bin(self._mask(i) & _lanes_mask(self.op, self.matrices)).count("1")
        if self.op in MATRIX_OPS:
            kind = f"{self.op} x{self.matrices}"
        elif self.op == "atomic":
            kind = f"{self.width}-byte atomic {self.atomic_op}"
        else:
            kind = f"{self.width}-byte {self.op}"
        parts = [f"{kind}, {active} active lane(s)"]
        base = _lanes_used(self.op, self.matrices) // self.rule.lanes_per_transaction
        if self.rule.split == "warp":
            parts.append("served as one warp-wide transaction")
        elif self.rule.split == "matrix":
            parts.append(f"one transaction per 8x16-byte matrix ({base})")
        else:
            parts.append(f"split into {base} {self.rule.split}s")
            if fired:
                parts.append(
                    f"{base - len(transactions)} pair(s) merged because every active lane's "
                    f"xor-{fired} partner is inactive or reads the same address"
                )
        if not self.rule.banked:
            parts.append("each non-empty transaction takes one pass whatever its banks")
        if self.rule.wavefronts_per_pass > 1:
            parts.append(f"each pass over the banks costs {self.rule.wavefronts_per_pass} wavefronts")
        if int(self.conflicts[i]) > 0:
            t, b = bank_map.worst_bank
            if self.rule.same_address_serialised:
                parts.append(
                    f"bank {b} serves {bank_map.passes(t, b)} lanes one after another in transaction {t} "
                    f"({'cp.async' if self.op == 'ldgsts' else 'atomics'} serialise lanes, even on the same "
                    "address)"
                )
            else:
                parts.append(f"bank {b} must serve {bank_map.passes(t, b)} distinct words in transaction {t}")
        verdict = (
            "no bank conflict" if int(self.conflicts[i]) == 0
            else f"{int(self.conflicts[i])} conflict wavefront(s)"
        )
        parts.append(f"{int(self.wavefronts[i])} wavefront(s), ideal {int(self.ideal[i])}, {verdict}")
        return "; ".join(parts) + "."

    def _check_index(self, i: int) -> None:
        if not 0 <= i < len(self):
            raise BankismError(f"instruction {i} does not exist: the result holds {len(self)}")


def _lanes_used(op: str, matrices: int | None) -> int:
    """Lanes whose addresses count: the warp, or one row address per matrix row."""
    return SPLIT_LANES["matrix"] * matrices if op in MATRIX_OPS and matrices else SPLIT_LANES["warp"]


def _lanes_mask(op: str, matrices: int | None) -> int:
    return (1 << _lanes_used(op, matrices)) - 1


def _as_addresses(addresses: object) -> np.ndarray:
    """The addresses as a C-contiguous (N, 32) int32/int64 array, or a BankismError."""
    array = np.asarray(addresses)
    if array.ndim == 1:
        array = array[np.newaxis, :]
    if array.ndim != 2 or array.shape[1] != 32:
        raise BankismError(
            f"addresses must have shape (32,) or (N, 32); got {np.asarray(addresses).shape}"
        )
    if array.dtype.kind == "f":
        huge = np.argwhere(np.isfinite(array) & (np.abs(array) >= 2.0**63))
        if huge.size:
            i, lane = huge[0]
            value = float(array[i, lane])
            raise BankismError(f"instruction {i}, lane {lane}: address {value!r} is too large")
        fractional = np.argwhere(array != np.floor(array))
        if fractional.size:
            i, lane = fractional[0]
            raise BankismError(
                f"instruction {i}, lane {lane}: address {array[i, lane]!r} is not an integer"
            )
        array = array.astype(np.int64)
    elif array.dtype.kind == "u":
        if array.dtype.itemsize == 8 and array.size and array.max() > np.iinfo(np.int64).max:
            i, lane = np.unravel_index(int(array.argmax()), array.shape)
            raise BankismError(f"instruction {i}, lane {lane}: address {array[i, lane]} is too large")
        array = array.astype(np.int64)
    elif array.dtype.kind != "i":
        raise BankismError(f"addresses must be integers; got {array.dtype} values")
    if array.dtype not in (np.int32, np.int64):
        array = array.astype(np.int64)
    return np.ascontiguousarray(array)


def _as_masks(active: object, n: int) -> np.ndarray:
    """Active lanes as int64 bitmasks: shape (1,) for one mask shared by all, else (N,)."""
    if active is None:
        return np.full(1, FULL_MASK, np.int64)
    array = np.asarray(active)
    if array.dtype == np.bool_:
        if array.ndim == 1:
            array = array[np.newaxis, :]
        if array.shape != (n, 32):
            raise BankismError(f"active lanes must have shape ({n}, 32) like addresses; got {array.shape}")
        return (array.astype(np.int64) << np.arange(32, dtype=np.int64)).sum(axis=1)
    if array.dtype.kind not in "iu":
        raise BankismError(f"active must be None, a bool array or integer bitmasks; got {array.dtype}")
    narrow = array.dtype.kind == "u" and array.dtype.itemsize <= 4
    array = array.astype(np.int64).reshape(-1)
    if array.shape[0] not in (1, n):
        raise BankismError(f"active bitmasks must have shape ({n},); got {np.asarray(active).shape}")
    if narrow:
        return array
    out_of_range = np.flatnonzero((array < 0) | (array > FULL_MASK))
    if out_of_range.size:
        i = int(out_of_range[0])
        raise BankismError(f"instruction {i}: active mask {int(array[i])} is not a 32-bit lane mask")
    return array


def _log2(value: int, what: str) -> int:
    if value < 1 or value & (value - 1):
        raise BankismError(f"{what} must be a power of two; got {value}")
    return value.bit_length() - 1


def _geometry(arch: Architecture, width: int) -> tuple[int, int]:
    """(log2 unit bytes, log2 bank groups per row) for accesses of ``width`` bytes on ``arch``.

    A unit is the aligned piece one lane occupies in the banks: one bank word, or the whole
    access when it spans several banks; units of one bank group (unit mod groups) share banks.
    """
    unit = max(width, arch.bank_bytes)
    groups = arch.banks * arch.bank_bytes // unit
    if groups < 1:
        raise BankismError(f"{arch.name}: a {width}-byte access is wider than a row of banks")
    return _log2(unit, f"{arch.name}: the unit size"), _log2(groups, f"{arch.name}: the bank-group count")


def _chunks(n: int) -> int:
    return max(1, min(n // 4096 + 1, numba.get_num_threads() * 4))


_ERROR_TEXT = {
    _ERR_NEGATIVE: "address {a} is negative",
    _ERR_RANGE: "address {a} + {w} bytes is past the {size}-byte shared memory of {arch}",
    _ERR_ALIGN: "address {a} is not aligned to the {w}-byte access width",
}


def _check_arguments(width: object, op: object, matrices: object, arch: object, atomic_op: object) -> int:
    """The types of simulate's arguments, checked at the API edge so that a wrong type is a one-line
    BankismError instead of an error deep in Numba; returns ``width`` as a plain int."""
    for name, value, optional in (("width", width, False), ("matrices", matrices, True)):
        if value is None and optional:
            continue
        if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
            raise BankismError(f"{name} must be an integer; got {value!r} ({type(value).__name__})")
    for name, value in (("op", op), ("arch", arch), ("atomic_op", atomic_op)):
        if not isinstance(value, str):
            raise BankismError(f"{name} must be a string; got {value!r} ({type(value).__name__})")
    return int(width)  # type: ignore[arg-type]


def simulate(
    addresses: object,
    width: int = 8,
    op: str = "load",
    active: object = None,
    matrices: int | None = None,
    arch: str = "sm_90",
    *,
    atomic_op: str = "add",
) -> SimulationResult:
    """Wavefronts, ideal count, ncu-style conflicts and cycles of each warp-instruction.

    ``addresses``: byte offsets in the shared window, shape (32,) or (N, 32). ``active``:
    None, bool lanes of the same shape, or integer bitmasks. Matrix ops take
    ``matrices`` (1, 2 or 4) and read one 16-byte row address from lanes 0..8*matrices-1.
    ``atomic_op`` (one of ``arch.ATOMIC_OPS``: "add", "exch", "cas", "popc_inc", "min", ...) picks the
    atomic instruction for op="atomic".
    """
    width = _check_arguments(width, op, matrices, arch, atomic_op)
    if matrices is not None:
        matrices = int(matrices)
    architecture = get_arch(arch)
    if op in MATRIX_OPS:
        if matrices not in (1, 2, 4):
            raise BankismError(f"{op} needs matrices=1, 2 or 4; got {matrices!r}")
        if width not in (8, 16):
            raise BankismError(f"{op} moves 16-byte rows; width={width!r} does not apply")
        width = 16
    elif matrices is not None:
        raise BankismError(f"matrices= applies to ldmatrix/stmatrix only, not to {op!r}")
    rule = architecture.rule(op, width, atomic_op)
    rows = _as_addresses(addresses)
    n = rows.shape[0]
    masks = _as_masks(active, n)
    lanes_used = _lanes_used(op, matrices)
    wavefronts, ideal, conflicts, groups = (np.empty(n, np.int64) for _ in range(4))
    cycles = np.empty(n, np.float64)
    merged = np.empty(n, np.bool_)
    errors = np.empty((_chunks(n), 3), np.int64)
    measured = rule.cycles_floor is not None and rule.cycles_per_wavefront is not None
    unit_shift, super_shift = _geometry(architecture, width)
    if n:
        _simulate_kernel(
            rows, masks, width, lanes_used, rule.lanes_per_transaction,
            np.asarray(rule.merge_xors, np.int64), rule.merge_scope == "warp",
            rule.same_address_serialised, rule.banked, rule.wavefronts_per_pass,
            rule.cycles_floor if measured else np.nan,
            rule.cycles_per_wavefront if measured else np.nan,
            architecture.shared_bytes, unit_shift, super_shift,
            wavefronts, ideal, conflicts, cycles, groups, merged, errors,
        )
        _raise_first_error(errors, rows, width, architecture)
    return SimulationResult(
        wavefronts=wavefronts, ideal=ideal, conflicts=conflicts, cycles=cycles,
        groups=groups, merged=merged, op=op, width=width, matrices=matrices,
        arch=architecture, rule=rule, atomic_op=atomic_op if op == "atomic" else None,
        addresses=rows, masks=masks,
    )


def _raise_first_error(errors: np.ndarray, rows: np.ndarray, width: int, arch: Architecture) -> None:
    failed = errors[errors[:, 2] != _ERR_NONE]
    if failed.size == 0:
        return
    i, lane, code = failed[np.argmin(failed[:, 0])]
    text = _ERROR_TEXT[int(code)].format(
        a=int(rows[i, lane]), w=width, size=arch.shared_bytes, arch=arch.name
    )
    raise BankismError(f"instruction {int(i)}, lane {int(lane)}: {text}")
