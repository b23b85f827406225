"""The verdict of ``check``: per access site, its warp-instructions, totals and worst case."""

from __future__ import annotations

import html
import itertools
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from bankism.arch import DEFAULT_ARCH, MAX_GRID_DIMS
from bankism.engine import SimulationResult, simulate
from bankism.engine.pipe import PipeCycles
from bankism.errors import BankismError
from bankism.review.access import Access
from bankism.review.bank_grid import bank_grid_html, lane_ranges
from bankism.review.evaluate import CHECK_CHUNK, Places, evaluation_chunks, simulate_access


@dataclass(frozen=True)
class Collision:
    """One bank asked for several distinct words in one transaction: which words, which lanes."""

    transaction: int
    bank: int
    words: tuple[int, ...]
    lanes: tuple[int, ...]

    def __str__(self) -> str:
        shown = ", ".join(str(w) for w in self.words[:6]) + (", ..." if len(self.words) > 6 else "")
        return (
            f"transaction {self.transaction}, bank {self.bank}: {len(self.words)} distinct words "
            f"({shown}) <- lanes {lane_ranges(self.lanes)}"
        )


@dataclass(frozen=True)
class WarpInstruction:
    """One warp-instruction of a site: where it ran, what it cost, and the banks behind it."""

    site: Site = field(repr=False)
    index: int

    @property
    def where(self) -> str:
        """The warp (and its threads) and the loop values, or the recorded place."""
        return self.site.places.text(self.index)

    @property
    def warp(self) -> int | None:
        return self.site.places.warp(self.index)

    @property
    def loops(self) -> dict[str, object]:
        return self.site.places.loops(self.index)

    @property
    def _row(self) -> tuple[SimulationResult, int]:
        return self.site.result_of(self.index)

    @property
    def wavefronts(self) -> int:
        result, i = self._row
        return int(result.wavefronts[i])

    @property
    def ideal(self) -> int:
        result, i = self._row
        return int(result.ideal[i])

    @property
    def conflicts(self) -> int:
        result, i = self._row
        return int(result.conflicts[i])

    @property
    def addresses(self) -> np.ndarray:
        result, i = self._row
        return result.addresses[i]

    def describe(self) -> str:
        """The engine's sentence: how the warp was split or merged, and what it costs."""
        result, i = self._row
        return result.describe(i)

    @property
    def bank_map(self):
        """The engine's ``BankMap`` of this warp-instruction."""
        result, i = self._row
        return result.bank_map(i)

    @property
    def collisions(self) -> list[Collision]:
        """Banks asked for more than one distinct word in a transaction, worst first."""
        found = []
        bank_map = self.bank_map
        for t, per_bank in enumerate(bank_map.banks):
            for b in range(len(per_bank)):
                served = bank_map.words(t, b)
                if len(served) > 1:
                    lanes = sorted({lane for _, word_lanes in served for lane in word_lanes})
                    found.append(Collision(t, b, tuple(w for w, _ in served), tuple(lanes)))
        return sorted(found, key=lambda c: (-len(c.words), c.transaction, c.bank))

    def summary(self) -> str:
        """Where it ran (threads included) and what it cost."""
        return f"{self.where}: {counted(self.wavefronts, 'wavefront')}, ideal {self.ideal}"

    def short(self) -> str:
        """Warp, loop values and cost, for table cells."""
        place = self.where if self.warp is None else ", ".join(
            [f"warp {self.warp}", *(f"{k}={v}" for k, v in self.loops.items())])
        return f"{place}: {self.wavefronts} (ideal {self.ideal})"


def counted(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


Cost = tuple[int, int, int]  # (wavefronts, ideal, conflicts) of one warp-instruction


@dataclass
class Streamed:
    """What ``check`` keeps of an access too large for one engine call (more than CHECK_CHUNK
    warp-instructions): sums, how many warp-instructions have each cost, and the worst and peak
    warp-instructions (each as a one-instruction engine result), so memory stays flat."""

    instructions: int = 0
    wavefronts: int = 0
    ideal: int = 0
    conflicts: int = 0
    cycles: float = 0.0
    ideal_cycles: float = 0.0
    costs: Counter = field(default_factory=Counter)
    kept: dict[int, SimulationResult] = field(default_factory=dict)
    worst: tuple[tuple[int, int], int] | None = None  # ((conflicts, wavefronts), index)
    peak: tuple[tuple[int, int], int] | None = None  # ((wavefronts, conflicts), index)

    def add(self, result: SimulationResult, start: int, access: Access, arch: str) -> None:
        """Fold in the engine result of warp-instructions ``start``, ``start + 1``, ..."""
        n = len(result)
        if n == 0:
            return
        self.instructions += n
        self.wavefronts += result.total_wavefronts
        self.ideal += result.total_ideal
        self.conflicts += result.total_conflicts
        self.cycles += result.total_cycles
        self.ideal_cycles += result.total_ideal_cycles
        triples, counts = np.unique(np.stack([result.wavefronts, result.ideal, result.conflicts], axis=1),
                                    axis=0, return_counts=True)
        for (w, i, c), count in zip(triples.tolist(), counts.tolist(), strict=True):
            self.costs[(w, i, c)] += count
        for slot, primary, secondary in (("worst", result.conflicts, result.wavefronts),
                                         ("peak", result.wavefronts, result.conflicts)):
            candidates = np.flatnonzero(primary == primary.max())
            i = int(candidates[np.argmax(secondary[candidates])])
            key = (int(primary[i]), int(secondary[i]))
            current = getattr(self, slot)
            if current is None or key > current[0]:
                setattr(self, slot, (key, start + i))
                self.kept[start + i] = _one(result, i, access, arch)
        wanted = {entry[1] for entry in (self.worst, self.peak) if entry is not None}
        self.kept = {index: kept for index, kept in self.kept.items() if index in wanted}

    @property
    def worst_index(self) -> int | None:
        return None if self.worst is None else self.worst[1]

    @property
    def peak_index(self) -> int | None:
        return None if self.peak is None else self.peak[1]


def _one(result: SimulationResult, i: int, access: Access, arch: str) -> SimulationResult:
    """Warp-instruction ``i`` of an engine result, on its own (for its sentence and bank map)."""
    masks = result.masks if result.masks.shape[0] == 1 else result.masks[i : i + 1]
    return simulate(result.addresses[i : i + 1], width=result.width, op=result.op, active=masks,
                    matrices=result.matrices, arch=arch, atomic_op=result.atomic_op or "add")


@dataclass(frozen=True)
class Site:
    """The engine's counts for every warp-instruction of one access.

    ``result`` is the engine's ``SimulationResult`` for all of them, or None when the access has
    more warp-instructions than one engine call takes (``CHECK_CHUNK``): ``check`` then streams
    them and keeps ``streamed`` (sums, costs, worst and peak) instead.
    """

    access: Access
    result: object = field(repr=False)
    places: Places = field(repr=False)
    streamed: Streamed | None = field(default=None, repr=False)

    @property
    def label(self) -> str:
        return self.access.label

    @property
    def instructions(self) -> int:
        return self.streamed.instructions if self.streamed else len(self.result)

    @property
    def wavefronts(self) -> int:
        return self.streamed.wavefronts if self.streamed else self.result.total_wavefronts

    @property
    def ideal(self) -> int:
        return self.streamed.ideal if self.streamed else self.result.total_ideal

    @property
    def conflicts(self) -> int:
        return self.streamed.conflicts if self.streamed else self.result.total_conflicts

    @property
    def cycles(self) -> float:
        return self.streamed.cycles if self.streamed else self.result.total_cycles

    @property
    def ideal_cycles(self) -> float:
        """Shared-pipe cycles had every warp-instruction cost its ideal wavefronts."""
        return self.streamed.ideal_cycles if self.streamed else self.result.total_ideal_cycles

    @property
    def conflict_free(self) -> bool:
        return self.conflicts == 0

    @property
    def costs(self) -> dict[Cost, int]:
        """How many warp-instructions cost each (wavefronts, ideal, conflicts)."""
        if self.streamed:
            return dict(self.streamed.costs)
        r = self.result
        if not len(r):
            return {}
        triples, counts = np.unique(np.stack([r.wavefronts, r.ideal, r.conflicts], axis=1), axis=0,
                                    return_counts=True)
        return {tuple(t): int(c) for t, c in zip(triples.tolist(), counts.tolist(), strict=True)}

    @property
    def max_wavefronts(self) -> int:
        """The most wavefronts one warp-instruction of this access costs."""
        if self.streamed:
            return max((w for w, _, _ in self.streamed.costs), default=0)
        return int(self.result.wavefronts.max()) if self.instructions else 0

    def result_of(self, i: int) -> tuple[SimulationResult, int]:
        """The engine result holding warp-instruction ``i`` and its row there."""
        if self.streamed is None:
            return self.result, i
        if i not in self.streamed.kept:
            raise BankismError(
                f"{self.label}: warp-instruction {i} of {self.instructions} was streamed through the engine "
                "and not kept; a large check keeps its worst and peak warp-instructions only")
        return self.streamed.kept[i], 0

    def instruction(self, i: int) -> WarpInstruction:
        return WarpInstruction(self, i)

    @property
    def worst(self) -> WarpInstruction | None:
        """The warp-instruction with the most conflict wavefronts (then the most wavefronts)."""
        if self.streamed:
            index = self.streamed.worst_index
            return None if index is None else WarpInstruction(self, index)
        return self._first_max(self.result.conflicts, self.result.wavefronts)

    @property
    def peak(self) -> WarpInstruction | None:
        """The warp-instruction with the most wavefronts (then the most conflict wavefronts)."""
        if self.streamed:
            index = self.streamed.peak_index
            return None if index is None else WarpInstruction(self, index)
        return self._first_max(self.result.wavefronts, self.result.conflicts)

    def _first_max(self, primary: np.ndarray, secondary: np.ndarray) -> WarpInstruction | None:
        if not self.instructions:
            return None
        candidates = np.flatnonzero(primary == primary.max())
        return WarpInstruction(self, int(candidates[np.argmax(secondary[candidates])]))

    def count_like(self, instruction: WarpInstruction) -> int:
        """How many warp-instructions cost as much as ``instruction`` (wavefronts and ideal)."""
        return sum(n for (w, i, _), n in self.costs.items()
                   if w == instruction.wavefronts and i == instruction.ideal)


@dataclass(frozen=True)
class Report:
    """What ``check`` found: totals over every warp and loop value, per access, and the worst case."""

    sites: list[Site]
    arch: str = DEFAULT_ARCH
    #: thread blocks of the launch (``check(..., grid=)``), for the launch's shared-pipe cycles
    blocks: int | None = None

    @property
    def instructions(self) -> int:
        return sum(s.instructions for s in self.sites)

    @property
    def wavefronts(self) -> int:
        return sum(s.wavefronts for s in self.sites)

    @property
    def ideal(self) -> int:
        return sum(s.ideal for s in self.sites)

    @property
    def conflicts(self) -> int:
        return sum(s.conflicts for s in self.sites)

    @property
    def cycles(self) -> float:
        return sum(s.cycles for s in self.sites)

    @property
    def ideal_cycles(self) -> float:
        return sum(s.ideal_cycles for s in self.sites)

    @property
    def shared_pipe(self) -> PipeCycles:
        """Shared-pipe cycles of the block checked and of the launch (``blocks``), as given and ideal."""
        return PipeCycles(self.cycles, self.ideal_cycles, self.blocks, self.arch)

    @property
    def conflict_free(self) -> bool:
        return self.conflicts == 0

    @property
    def worst(self) -> tuple[Site, WarpInstruction] | None:
        """The site and warp-instruction with the most conflict wavefronts (None if nothing ran)."""
        best = None
        for site in self.sites:
            w = site.worst
            if w is None:
                continue
            if best is None or (w.conflicts, w.wavefronts) > (best[1].conflicts, best[1].wavefronts):
                best = (site, w)
        return best

    @property
    def verdict(self) -> str:
        """One line: conflict-free, or how many excess wavefronts and where the worst are."""
        if self.conflict_free:
            return (f"conflict-free: {counted(self.wavefronts, 'wavefront')} over "
                    f"{counted(self.instructions, 'warp-instruction')}, all at their ideal")
        bad = [s for s in self.sites if not s.conflict_free]
        site, worst = self.worst
        return (
            f"bank conflicts: {self.conflicts} excess wavefront(s) ({self.wavefronts} where {self.ideal} "
            f"would do) in {len(bad)} of {len(self.sites)} access(es); worst: {site.label}, "
            f"{worst.summary()}"
        )

    def rows(self) -> list[dict[str, object]]:
        """One dict per access (and a total): the figures of the table."""
        rows = []
        for site in self.sites:
            worst = site.worst
            rows.append({
                "access": site.label, "op": site.access.op, "bytes": site.access.width,
                "instructions": site.instructions, "wavefronts": site.wavefronts, "ideal": site.ideal,
                "conflicts": site.conflicts, "cycles": site.cycles,
                "worst": worst.short() if worst else "",
            })
        return rows

    def to_dict(self) -> dict[str, object]:
        """JSON-ready: totals, the per-access rows and the verdict."""
        return {
            "arch": self.arch, "instructions": self.instructions, "wavefronts": self.wavefronts,
            "ideal": self.ideal, "conflicts": self.conflicts, "cycles": self.cycles,
            "conflict_free": self.conflict_free, "verdict": self.verdict, "sites": self.rows(),
            "shared_pipe": self.shared_pipe.to_json(),
        }

    def table(self) -> str:
        """The per-access figures as a fixed-width text table."""
        header = [
            "access", "op", "bytes", "instr", "wavefronts", "ideal", "conflicts", "worst warp-instruction",
        ]
        body = [[r["access"], r["op"], r["bytes"], r["instructions"], r["wavefronts"], r["ideal"],
                 r["conflicts"], r["worst"]] for r in self.rows()]
        body.append(["total", "", "", self.instructions, self.wavefronts, self.ideal, self.conflicts, ""])
        cells = [[str(c) for c in row] for row in [header, *body]]
        widths = [max(len(row[k]) for row in cells) for k in range(len(header))]
        lines = []
        for n, row in enumerate(cells):
            text = "  ".join(
                c.ljust(widths[k]) if k in (0, 1, 7) else c.rjust(widths[k]) for k, c in enumerate(row)
            )
            lines.append(text.rstrip())
            if n == 0:
                lines.append("-" * len(lines[0]))
        return "\n".join(lines)

    def __str__(self) -> str:
        parts = [self.table(), "", self.verdict, self.shared_pipe.describe()]
        worst = self.worst
        if worst is not None and worst[1].conflicts:
            site, instruction = worst
            parts += ["", f"worst warp-instruction: {site.label}, {instruction.where}",
                      instruction.describe(), str(instruction.bank_map)]
        return "\n".join(parts)

    def __repr__(self) -> str:
        return (f"Report({len(self.sites)} access(es): {self.wavefronts} wavefronts, ideal {self.ideal}, "
                f"{self.conflicts} conflicts)")

    def _repr_html_(self) -> str:
        """Jupyter: the table, the verdict, and the bank map of the worst warp-instruction as a grid."""
        header = "".join(f"<th>{h}</th>" for h in
                         ("access", "op", "bytes", "instr", "wavefronts", "ideal", "conflicts", "worst"))
        rows = []
        for r in self.rows():
            style = ' style="background:#fdd"' if r["conflicts"] else ""
            cells = [r["access"], r["op"], r["bytes"], r["instructions"], r["wavefronts"], r["ideal"],
                     r["conflicts"], r["worst"]]
            rows.append(f"<tr{style}>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>")
        total = ["total", "", "", self.instructions, self.wavefronts, self.ideal, self.conflicts, ""]
        rows.append("<tr>" + "".join(f"<td><b>{c}</b></td>" for c in total) + "</tr>")
        parts = [f"<table><tr>{header}</tr>{''.join(rows)}</table>", f"<p>{html.escape(self.verdict)}</p>"]
        worst = self.worst
        if worst is not None:
            site, instruction = worst
            parts.append(
                f"<p>{'worst' if instruction.conflicts else 'costliest'} warp-instruction: "
                f"{html.escape(site.label)}, {html.escape(instruction.where)}<br>"
                f"{html.escape(instruction.describe())}</p>"
            )
            parts.append(bank_grid_html(instruction.bank_map))
        return "\n".join(parts)


def as_list(accesses: Access | Iterable[Access]) -> list[Access]:
    if not isinstance(accesses, Access | Iterable) or isinstance(accesses, str | bytes):
        raise BankismError(f"expected an Access or a list of Access objects; got {type(accesses).__name__}")
    items = [accesses] if isinstance(accesses, Access) else list(accesses)
    for item in items:
        if not isinstance(item, Access):
            raise BankismError(f"expected Access objects; got {type(item).__name__}")
    if not items:
        raise BankismError("no accesses given")
    return items


def check(
    accesses: Access | Iterable[Access],
    block: object = None,
    loops: Mapping[str, Iterable] | None = None,
    arch: str = DEFAULT_ARCH,
    grid: int | Sequence[int] | None = None,
) -> Report:
    """Count every warp-instruction of the accesses (all warps of ``block``, all loop values) with the engine.

    Each access runs once per combination of the loop variables its functions take, in
    one ``bankism.simulate`` call. ``block`` may be omitted when every access was recorded
    (``Access.from_addresses``). ``grid`` (blocks, or their x, y, z extents): the launch, for its
    shared-pipe cycles (``Report.shared_pipe``), every block costing what ``block`` does.
    """
    sites = [check_site(access, block, loops, arch) for access in as_list(accesses)]
    return Report(sites, arch, None if grid is None else grid_blocks(grid))


def grid_blocks(grid: int | Sequence[int]) -> int:
    """The number of blocks of a launch given as a count or as (x[, y[, z]]) extents."""
    extents = [grid] if isinstance(grid, int | np.integer) else list(grid)
    if not 1 <= len(extents) <= 3 or not all(
            isinstance(e, int | np.integer) and not isinstance(e, bool) and e >= 1 for e in extents):
        raise BankismError(f"grid: expected a positive block count or 1 to 3 positive extents; got {grid!r}")
    limits = MAX_GRID_DIMS if len(extents) > 1 else (math.prod(MAX_GRID_DIMS),)  # a count: all three
    if any(e > most for e, most in zip(extents, limits, strict=False)):
        raise BankismError(f"grid: {grid!r} is past CUDA's limits ({', '.join(map(str, MAX_GRID_DIMS))})")
    return int(np.prod(extents, dtype=object))


def check_site(
    access: Access, block: object, loops: Mapping[str, Iterable] | None, arch: str, chunk: int | None = None,
) -> Site:
    """One access through the engine: in one call, or streamed ``chunk`` warp-instructions at a time."""
    if not isinstance(arch, str):
        raise BankismError(f"arch must be a string such as 'sm_90'; got {arch!r}")
    places, pieces = evaluation_chunks(access, block, loops, chunk or CHECK_CHUNK)
    first = next(pieces)
    following = next(pieces, None)
    if following is None:
        return Site(access, simulate_access(access, first, arch), places)
    streamed = Streamed()
    start = 0
    for piece in itertools.chain([first, following], pieces):
        result = simulate_access(access, piece, arch)
        streamed.add(result, start, access, arch)
        start += len(result)
    return Site(access, None, places, streamed)
