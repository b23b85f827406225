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
from functools import partial

import numpy as np

from bankism.arch import DEFAULT_ARCH, LANES, LANES_PER_MATRIX, MATRIX_OPS, Architecture, Rule, get_arch
from bankism.engine import parallel
from bankism.engine.kernel import (
    _ERR_ALIGN,
    _ERR_NEGATIVE,
    _ERR_NONE,
    _ERR_RANGE,
    _K_BANKED,
    _K_BASE,
    _K_FIELDS,
    _K_GROUP_LANES,
    _K_GROUP_SHIFT,
    _K_LANES,
    _K_LIMIT,
    _K_PER_PASS,
    _K_SERIALISED,
    _K_SUPER_SHIFT,
    _K_TX_SHIFT,
    _K_UNIT_SHIFT,
    _K_WARP_SCOPE,
    _K_WIDTH,
    _K_XORS,
    _T_CONFLICTS,
    _T_EXECUTIONS,
    _T_IDEAL,
    _T_WAVEFRONTS,
    _W_EXCESS,
    _W_INDEX,
    _W_WAVEFRONTS,
    FULL_MASK,
    _merged_pairs,
    _simulate_kernel,
)
from bankism.engine.parallel import engine_threads  # noqa: F401 (re-exported: analyze and the CLI use it)
from bankism.errors import BankismError


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
    return LANES_PER_MATRIX * matrices if op in MATRIX_OPS and matrices else LANES


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


#: Up to this many instructions, int64 addresses that fit are narrowed to int32 before the kernel
#: runs, so that small calls (explain, review, the CLI) share the one compiled kernel ``analyze``
#: uses; a first call after install then compiles once, not twice. Larger batches keep int64 (no
#: extra pass over the data).
NARROW_LIMIT = 1 << 16


def _narrow(rows: np.ndarray) -> np.ndarray:
    if rows.dtype == np.int64 and 0 < rows.shape[0] <= NARROW_LIMIT:
        low, high = int(rows.min()), int(rows.max())
        if low >= -(2**31) and high < 2**31:
            return rows.astype(np.int32)
    return rows


def _resolve(width: int, op: str, matrices: int | None, arch: str, atomic_op: str) -> tuple[int, Rule]:
    """The access width the engine uses and the rule of one instruction kind, or a BankismError."""
    architecture = get_arch(arch)
    if op in MATRIX_OPS:
        if matrices not in (1, 2, 4):
            raise BankismError(f"{op} needs matrices=1, 2 or 4; got {matrices!r}")
        if width not in (8, 16):
            raise BankismError(f"{op} moves 16-byte rows; width={width!r} does not apply")
        width = 16
    elif matrices is not None:
        raise BankismError(f"matrices= applies to ldmatrix/stmatrix only, not to {op!r}")
    return width, architecture.rule(op, width, atomic_op)


def _kind_table(
    kinds: list[tuple[int, str, int | None, Rule]], arch: Architecture, limit: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The kernel's per-kind tables (``_K_*`` columns, merge xor masks, cycle model) for (width, op,
    matrices, rule) kinds whose active lanes must lie in [0, limit)."""
    table = np.zeros((len(kinds), _K_FIELDS), np.int64)
    most_xors = max([len(rule.merge_xors) for *_, rule in kinds] + [1])
    xors = np.zeros((len(kinds), most_xors), np.int64)
    floats = np.full((len(kinds), 2), np.nan)
    for k, (width, op, matrices, rule) in enumerate(kinds):
        lanes = _lanes_used(op, matrices)
        group = rule.lanes_per_transaction
        base = lanes // group
        unit_shift, super_shift = _geometry(arch, width)
        table[k] = 0
        table[k, _K_WIDTH] = width
        table[k, _K_LANES] = lanes
        table[k, _K_GROUP_LANES] = group
        table[k, _K_GROUP_SHIFT] = _log2(group, "lanes per transaction")
        table[k, _K_BASE] = base
        table[k, _K_TX_SHIFT] = max(0, (base - 1).bit_length())
        table[k, _K_XORS] = len(rule.merge_xors)
        table[k, _K_WARP_SCOPE] = rule.merge_scope == "warp"
        table[k, _K_SERIALISED] = rule.same_address_serialised
        table[k, _K_BANKED] = rule.banked
        table[k, _K_PER_PASS] = rule.wavefronts_per_pass
        table[k, _K_UNIT_SHIFT] = unit_shift
        table[k, _K_SUPER_SHIFT] = super_shift
        table[k, _K_LIMIT] = limit
        xors[k, :len(rule.merge_xors)] = rule.merge_xors
        if rule.cycles_floor is not None and rule.cycles_per_wavefront is not None:
            floats[k] = (rule.cycles_floor, rule.cycles_per_wavefront)
    return table, xors, floats


def _run_kernel(rows, masks, kind_of, tables, n_kinds, per_record):
    """Run the kernel over the batch in pieces (``parallel``); returns the per-record arrays and the
    per-piece sums, worst instructions and errors, with instruction indices counted from 0."""
    n = rows.shape[0]
    ranges = parallel.pieces(n)
    count = max(1, len(ranges))
    size = n if per_record else 0
    outputs = (*(np.empty(size, np.int64) for _ in range(3)), np.empty(size, np.float64),
               np.empty(size, np.int64), np.empty(size, np.bool_))
    errors = np.full((count, 3), -1, np.int64)
    errors[:, 2] = _ERR_NONE
    totals = np.zeros((count, n_kinds, 4), np.int64)
    cycle_totals = np.zeros((count, n_kinds), np.float64)
    worst = np.full((count, n_kinds, 3), -1, np.int64)
    one_mask, one_kind = masks.shape[0] == 1, kind_of.shape[0] == 1

    def piece(p: int, lo: int, hi: int) -> None:
        _simulate_kernel(
            rows[lo:hi], masks if one_mask else masks[lo:hi], kind_of if one_kind else kind_of[lo:hi],
            *tables, per_record, *(out[lo:hi] if per_record else out for out in outputs),
            totals[p:p + 1], cycle_totals[p:p + 1], worst[p:p + 1], errors[p:p + 1],
        )
        if errors[p, 2] != _ERR_NONE:
            errors[p, 0] += lo
        found = worst[p, :, _W_INDEX] >= 0
        worst[p, found, _W_INDEX] += lo

    parallel.run([partial(piece, p, lo, hi) for p, (lo, hi) in enumerate(ranges)])
    return outputs, (totals, cycle_totals, worst), errors


def simulate(
    addresses: object,
    width: int = 8,
    op: str = "load",
    active: object = None,
    matrices: int | None = None,
    arch: str = DEFAULT_ARCH,
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
    width, rule = _resolve(width, op, matrices, arch, atomic_op)
    rows = _as_addresses(addresses)
    masks = _as_masks(active, rows.shape[0])
    tables = _kind_table([(width, op, matrices, rule)], architecture, architecture.shared_bytes)
    per_record, _, errors = _run_kernel(_narrow(rows), masks, np.zeros(1, np.int32), tables, 1, True)
    _raise_first_error(errors, rows, np.full(1, width), np.zeros(1, np.int32), architecture, None)
    wavefronts, ideal, conflicts, cycles, groups, merged = per_record
    return SimulationResult(
        wavefronts=wavefronts, ideal=ideal, conflicts=conflicts, cycles=cycles,
        groups=groups, merged=merged, op=op, width=width, matrices=matrices,
        arch=architecture, rule=rule, atomic_op=atomic_op if op == "atomic" else None,
        addresses=rows, masks=masks,
    )


@dataclass(frozen=True)
class Kind:
    """One instruction kind of a mixed batch (``simulate_many``): what ``simulate`` takes besides lanes."""

    op: str
    width: int
    matrices: int | None = None
    atomic_op: str = "add"


@dataclass(frozen=True)
class KindTotals:
    """Sums over the instructions of one kind in a batch, and its worst instruction.

    ``worst``: index in the batch of the first instruction with the most excess wavefronts
    (then the most wavefronts), -1 when the kind has none; ``cycles`` is NaN when the kind
    has no cycle model.
    """

    executions: int
    wavefronts: int
    ideal: int
    conflicts: int
    cycles: float
    worst: int
    worst_wavefronts: int
    worst_ideal: int


def check_kind(kind: Kind, arch: str = DEFAULT_ARCH) -> None:
    """A BankismError when the engine cannot model ``kind`` on ``arch`` (as ``simulate`` would raise)."""
    width, _ = _resolve(kind.width, kind.op, kind.matrices, arch, kind.atomic_op)
    _geometry(get_arch(arch), width)


class AddressError(BankismError):
    """An active lane's address is invalid: ``instruction`` (batch index), ``lane``, ``address`` and
    ``reason``: "negative", "range" (past the limit) or "align"."""

    def __init__(self, message: str, instruction: int, lane: int, address: int, reason: str) -> None:
        super().__init__(message)
        self.instruction = instruction
        self.lane = lane
        self.address = address
        self.reason = reason


def simulate_many(
    addresses: np.ndarray, active: np.ndarray, kind_of: np.ndarray, kinds: list[Kind],
    arch: str = DEFAULT_ARCH, limit: int | None = None,
) -> list[KindTotals]:
    """Per-kind sums over a batch of mixed kinds, in one parallel pass and without copies.

    Instruction i has the lanes ``addresses[i]`` (C-contiguous (N, 32) int32 or int64 array),
    the active-lane bitmask ``active[i]`` and the kind ``kinds[kind_of[i]]``. Active lanes must
    lie in [0, ``limit``) (default: the architecture's shared memory), else an AddressError
    names the first invalid instruction and lane. This is what ``bankism analyze`` runs per chunk.
    """
    architecture = get_arch(arch)
    limit = architecture.shared_bytes if limit is None else min(int(limit), architecture.shared_bytes)
    resolved = []
    for kind in kinds:
        width, rule = _resolve(kind.width, kind.op, kind.matrices, arch, kind.atomic_op)
        resolved.append((width, kind.op, kind.matrices, rule))
    rows = np.ascontiguousarray(addresses)
    if rows.dtype not in (np.int32, np.int64) or rows.ndim != 2 or rows.shape[1] != LANES:
        raise BankismError(
            f"addresses must be an (N, {LANES}) int32 or int64 array; got {rows.dtype} {rows.shape}"
        )
    masks = np.asarray(active, np.int64).reshape(-1)
    kind_of = np.ascontiguousarray(kind_of, np.int32).reshape(-1)
    if masks.shape[0] != rows.shape[0] or kind_of.shape[0] != rows.shape[0]:
        raise BankismError("addresses, active and kind_of must have one entry per instruction")
    if kind_of.size and (kind_of.min() < 0 or kind_of.max() >= len(kinds)):
        raise BankismError(f"kind_of must index the {len(kinds)} kinds")
    tables = _kind_table(resolved, architecture, limit)
    _, (totals, cycle_totals, worst), errors = _run_kernel(rows, masks, kind_of, tables, len(kinds), False)
    widths = tables[0][:, _K_WIDTH]
    _raise_first_error(errors, rows, widths, kind_of, architecture, limit)
    out = []
    for k in range(len(kinds)):
        chunk_worst = worst[:, k]
        found = chunk_worst[:, _W_INDEX] >= 0
        if found.any():
            candidates = chunk_worst[found]
            keys = (candidates[:, _W_INDEX], -candidates[:, _W_WAVEFRONTS], -candidates[:, _W_EXCESS])
            pick = int(np.lexsort(keys)[0])
            index, excess, wavefronts = (int(v) for v in candidates[pick])
        else:
            index, excess, wavefronts = -1, 0, 0
        out.append(KindTotals(
            executions=int(totals[:, k, _T_EXECUTIONS].sum()),
            wavefronts=int(totals[:, k, _T_WAVEFRONTS].sum()),
            ideal=int(totals[:, k, _T_IDEAL].sum()), conflicts=int(totals[:, k, _T_CONFLICTS].sum()),
            cycles=float(cycle_totals[:, k].sum()), worst=index, worst_wavefronts=wavefronts,
            worst_ideal=wavefronts - excess,
        ))
    return out


def _raise_first_error(
    errors: np.ndarray, rows: np.ndarray, widths: np.ndarray, kind_of: np.ndarray, arch: Architecture,
    limit: int | None,
) -> None:
    failed = errors[errors[:, 2] != _ERR_NONE]
    if failed.size == 0:
        return
    i, lane, code = (int(v) for v in failed[np.argmin(failed[:, 0])])
    width = int(widths[kind_of[0] if kind_of.shape[0] == 1 else kind_of[i]])
    address = int(rows[i, lane])
    if limit is None:
        text = _ERROR_TEXT[code].format(a=address, w=width, size=arch.shared_bytes, arch=arch.name)
    else:
        text = _ERROR_TEXT[code].replace("the {size}-byte shared memory of {arch}", "byte {size}").format(
            a=address, w=width, size=limit)
    reason = {_ERR_NEGATIVE: "negative", _ERR_RANGE: "range", _ERR_ALIGN: "align"}[code]
    raise AddressError(f"instruction {i}, lane {lane}: {text}", i, lane, address, reason)
