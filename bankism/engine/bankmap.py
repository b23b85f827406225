"""Bank maps: which lanes and 4-byte words reach each bank, per transaction, of one instruction.

``SimulationResult.bank_map`` builds one; the CLI, explain and review draw it (``lanes_text`` is the
compact lane notation they share).
"""

from __future__ import annotations

from dataclasses import dataclass


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



def lanes_text(lanes: list[int]) -> str:
    """Lanes as compact ranges: 0-3,8,12-13."""
    parts, start = [], None
    for i, lane in enumerate(lanes):
        if start is None:
            start = lane
        if i + 1 == len(lanes) or lanes[i + 1] != lane + 1:
            parts.append(str(start) if start == lane else f"{start}-{lane}")
            start = None
    return ",".join(parts)
