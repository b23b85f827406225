"""``SimulationResult``: the per-instruction counts ``simulate`` returns, with the bank map and the
one-sentence description of each instruction."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bankism.arch import MATRIX_OPS, Architecture, Rule
from bankism.engine.bankmap import BankMap
from bankism.engine.inputs import lanes_mask, lanes_used
from bankism.engine.kernel_python import merged_pairs  # a few calls per report: no need to compile
from bankism.errors import BankismError


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

    @property
    def ideal_cycles(self) -> np.ndarray:
        """Shared-pipe cycles of each warp-instruction at its ideal wavefronts (NaN: not measured)."""
        return self.rule.cycles_of(self.ideal)

    @property
    def total_ideal_cycles(self) -> float:
        return float(self.ideal_cycles.sum())

    def _mask(self, i: int) -> int:
        return int(self.masks[0] if self.masks.shape[0] == 1 else self.masks[i])

    def _transactions(self, i: int) -> tuple[list[tuple[int, int]], int]:
        """Lane ranges of instruction i's transactions after merging, and the xor mask that merged."""
        lanes = lanes_used(self.op, self.matrices)
        size = self.rule.lanes_per_transaction
        bits, fired = merged_pairs(
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
        active = bin(self._mask(i) & lanes_mask(self.op, self.matrices)).count("1")
        if self.op in MATRIX_OPS:
            kind = f"{self.op} x{self.matrices}"
        elif self.op == "atomic":
            kind = f"{self.width}-byte atomic {self.atomic_op}"
        else:
            kind = f"{self.width}-byte {self.op}"
        parts = [f"{kind}, {active} active lane(s)"]
        base = lanes_used(self.op, self.matrices) // self.rule.lanes_per_transaction
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
        if isinstance(i, bool | np.bool_) or not isinstance(i, int | np.integer):
            raise BankismError(f"instruction index {i!r} must be an integer")
        if not 0 <= i < len(self):
            raise BankismError(f"instruction {i} does not exist: the result holds {len(self)}")
