"""The explain report as typed records, from ``build_report`` to ``render``: the launch, the shared
arrays, each access site with its per-warp entries and the engine's explanations, the snapshot and
the shared-pipe cycles. ``ExplainReport.to_dict()`` is the JSON of docs/explain.md (the contract:
same keys, order and values); ``from_dict`` reads that JSON back for callers that hold a dict.

Limits: the ``--trace`` comparison (``trace``), the unmodelled sites (``unmodelled``) and the
snapshot's cells stay plain JSON-ready dicts inside the records.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bankism.engine.pipe import PipeCycles

SCHEMA = "bankism.explain/1"

Dims = tuple[int, ...]


def _dims(values: Any) -> Dims:
    return tuple(values)


def site_verdict(instructions: int, wavefronts: int, ideal: int, conflicts: int, over_ideal: int) -> str:
    """One sentence on a site from its engine counts: conflict-free or not, and what the conflicts cost
    (``over_ideal``: the warp-instructions that need more wavefronts than ideal)."""
    n = instructions
    if n == 0:
        return "Never executed in the simulated blocks."
    per = wavefronts / n
    per_text = f"{per:g} wavefront{'s' if per != 1 else ''} per warp-instruction"
    if conflicts == 0:
        return f"No bank conflicts: all {n} warp-instructions take their ideal count ({per_text})."
    return (f"Bank conflicts: {over_ideal} of {n} warp-instructions need more wavefronts than ideal; "
            f"{wavefronts} wavefronts instead of {ideal} ({conflicts} counted as conflicts, "
            f"{wavefronts / ideal:.2f}x the conflict-free cost).")


#: What the verdict of a cp.async site adds (docs/rules.md, cp.async).
LDGSTS_NOTE = (" cp.async: exact when each group of lanes copies from one global 128-byte line, each lane "
               "its own bytes, else a lower bound; ncu counts no shared wavefronts for cp.async.cg "
               "(docs/rules.md, cp.async).")


@dataclass(frozen=True, slots=True)
class BankGeometry:
    """Banks per SM and bytes per bank of the modelled architecture."""

    banks: int
    bank_bytes: int

    def to_dict(self) -> dict:
        return {"banks": self.banks, "bank_bytes": self.bank_bytes}


@dataclass(frozen=True, slots=True)
class LaunchRecord:
    """The launch explained: grid, block, where they came from, the blocks simulated, the arguments."""

    grid: Dims | None
    block: Dims
    origin: str
    threads_per_block: int
    warps_per_block: int
    dynamic_shared_bytes: int
    blocks: tuple[Dims, ...]
    launches_in_file: int
    template: dict[str, int | str]
    parameters: dict[str, int | float | None]

    def to_dict(self) -> dict:
        return {
            "grid": None if self.grid is None else list(self.grid), "block": list(self.block),
            "from": self.origin,
            "threads_per_block": self.threads_per_block, "warps_per_block": self.warps_per_block,
            "dynamic_shared_bytes": self.dynamic_shared_bytes, "blocks": [list(b) for b in self.blocks],
            "launches_in_file": self.launches_in_file, "template": self.template,
            "parameters": self.parameters,
        }

    @classmethod
    def from_dict(cls, d: dict) -> LaunchRecord:
        grid = None if d["grid"] is None else _dims(d["grid"])
        return cls(grid, _dims(d["block"]), d["from"], d["threads_per_block"],
                   d["warps_per_block"], d["dynamic_shared_bytes"],
                   tuple(_dims(b) for b in d["blocks"]), d["launches_in_file"],
                   d["template"], d["parameters"])


@dataclass(frozen=True, slots=True)
class SharedArrayRecord:
    """One shared array as declared: element type, shape, where it sits in the block's shared memory."""

    name: str
    dtype: str
    shape: Dims
    base_offset: int
    size_bytes: int
    line: int
    extern: bool

    def to_dict(self) -> dict:
        return {"name": self.name, "dtype": self.dtype, "shape": list(self.shape),
                "base_offset": self.base_offset, "size_bytes": self.size_bytes, "line": self.line,
                "extern": self.extern}

    @classmethod
    def from_dict(cls, d: dict) -> SharedArrayRecord:
        return cls(d["name"], d["dtype"], _dims(d["shape"]), d["base_offset"], d["size_bytes"], d["line"],
                   d["extern"])


@dataclass(frozen=True, slots=True)
class MatrixRecord:
    """A global matrix the kernel reads or writes (a pointer parameter) and its element type."""

    name: str
    dtype: str

    def to_dict(self) -> dict:
        return {"name": self.name, "dtype": self.dtype}


@dataclass(frozen=True, slots=True)
class CallFrame:
    """One inline call on the way to an access inside a helper."""

    function: str
    line: int
    file: str

    def to_dict(self) -> dict:
        return {"function": self.function, "line": self.line, "file": self.file}


@dataclass(frozen=True, slots=True)
class WordCell:
    """One word a bank serves in a bank map, and the lanes asking for it."""

    word: int
    byte: int
    lanes: tuple[int, ...]

    def to_dict(self) -> dict:
        return {"word": self.word, "byte": self.byte, "lanes": list(self.lanes)}


@dataclass(frozen=True, slots=True)
class BankCells:
    """The words one bank serves for a lane group."""

    bank: int
    words: tuple[WordCell, ...]

    def to_dict(self) -> dict:
        return {"bank": self.bank, "words": [w.to_dict() for w in self.words]}


@dataclass(frozen=True, slots=True)
class LaneGroup:
    """The lanes of one transaction (first, last) and the banks it touches."""

    lanes: tuple[int, int]
    banks: tuple[BankCells, ...]

    def to_dict(self) -> dict:
        return {"lanes": list(self.lanes), "banks": [b.to_dict() for b in self.banks]}


@dataclass(frozen=True, slots=True)
class BankMapRecord:
    """The engine's bank map of one instruction: per lane group the words each bank serves, and its text."""

    groups: tuple[LaneGroup, ...]
    wavefronts_per_group: tuple[int, ...]
    text: str

    def to_dict(self) -> dict:
        return {"groups": [g.to_dict() for g in self.groups],
                "wavefronts_per_group": list(self.wavefronts_per_group), "text": self.text}

    @classmethod
    def from_dict(cls, d: dict) -> BankMapRecord:
        def cells(bank: dict) -> BankCells:
            return BankCells(bank["bank"], tuple(WordCell(w["word"], w["byte"], tuple(w["lanes"]))
                                                 for w in bank["words"]))

        groups = tuple(LaneGroup((g["lanes"][0], g["lanes"][1]), tuple(cells(b) for b in g["banks"]))
                       for g in d["groups"])
        return cls(groups, tuple(d["wavefronts_per_group"]), d["text"])


@dataclass(frozen=True, slots=True)
class Explanation:
    """The engine's sentence for one class of a site's instructions (same wavefronts, ideal, merge)."""

    wavefronts: int
    ideal: int
    merged: bool
    instructions: int
    example_block: Dims
    example_warp: int
    text: str
    bank_map: BankMapRecord

    def to_dict(self) -> dict:
        return {"wavefronts": self.wavefronts, "ideal": self.ideal, "merged": self.merged,
                "instructions": self.instructions,
                "example": {"block": list(self.example_block), "warp": self.example_warp},
                "text": self.text, "bank_map": self.bank_map.to_dict()}

    @classmethod
    def from_dict(cls, d: dict) -> Explanation:
        return cls(d["wavefronts"], d["ideal"], d["merged"], d["instructions"], _dims(d["example"]["block"]),
                   d["example"]["warp"], d["text"], BankMapRecord.from_dict(d["bank_map"]))


@dataclass(frozen=True, slots=True)
class WarpEntry:
    """One (block, warp) of a site: wavefronts of each execution and the lane addresses of the first."""

    block: Dims
    warp: int
    executions: int
    wavefronts: tuple[int, ...]
    ideal: tuple[int, ...]
    conflicts: int
    lane_addresses: tuple[int | None, ...]
    lane_elements: tuple[str | None, ...]
    explanation: str

    @property
    def over_ideal(self) -> int:
        """The executions that need more wavefronts than ideal."""
        return sum(1 for w, i in zip(self.wavefronts, self.ideal, strict=True) if w > i)

    def to_dict(self) -> dict:
        return {"block": list(self.block), "warp": self.warp, "executions": self.executions,
                "wavefronts": list(self.wavefronts), "ideal": list(self.ideal), "conflicts": self.conflicts,
                "lane_addresses": list(self.lane_addresses), "lane_elements": list(self.lane_elements),
                "explanation": self.explanation}

    @classmethod
    def from_dict(cls, d: dict) -> WarpEntry:
        return cls(_dims(d["block"]), d["warp"], d["executions"], tuple(d["wavefronts"]), tuple(d["ideal"]),
                   d["conflicts"], tuple(d["lane_addresses"]), tuple(d["lane_elements"]), d["explanation"])


@dataclass(frozen=True, slots=True)
class SiteRecord:
    """One modelled access site: where, what, the engine's totals and grouping, per-warp facts."""

    line: int
    column: int
    file: str
    call_stack: tuple[CallFrame, ...]
    source: str
    expression: str
    array: str
    shared_array: str
    op: str
    atomic_op: str | None
    matrices: int | None
    sass: str | None
    width: int
    dtype: str
    instructions: int
    wavefronts: int
    ideal: int
    conflicts: int
    cycles: float | None
    ideal_cycles: float | None
    split_unit: str
    merged_instructions: int
    explanations: tuple[Explanation, ...]
    warps: tuple[WarpEntry, ...]

    @property
    def verdict(self) -> str:
        """``site_verdict`` of the counts (the per-warp entries cover every warp-instruction)."""
        text = site_verdict(self.instructions, self.wavefronts, self.ideal, self.conflicts,
                            sum(w.over_ideal for w in self.warps))
        return text + LDGSTS_NOTE if self.op == "ldgsts" else text

    def to_dict(self) -> dict:
        return {
            "line": self.line, "column": self.column, "file": self.file,
            "call_stack": [c.to_dict() for c in self.call_stack],
            "source": self.source, "expression": self.expression, "array": self.array,
            "shared_array": self.shared_array, "op": self.op, "atomic_op": self.atomic_op,
            "matrices": self.matrices, "sass": self.sass, "width": self.width, "dtype": self.dtype,
            "instructions": self.instructions, "wavefronts": self.wavefronts, "ideal": self.ideal,
            "conflicts": self.conflicts, "cycles": self.cycles, "ideal_cycles": self.ideal_cycles,
            "split": {"unit": self.split_unit, "merged_instructions": self.merged_instructions,
                      "explanations": [e.to_dict() for e in self.explanations]},
            "warps": [w.to_dict() for w in self.warps],
            "verdict": self.verdict,
        }

    @classmethod
    def from_dict(cls, d: dict) -> SiteRecord:
        return cls(
            d["line"], d["column"], d["file"],
            tuple(CallFrame(c["function"], c["line"], c["file"]) for c in d["call_stack"]),
            d["source"], d["expression"], d["array"], d["shared_array"], d["op"], d["atomic_op"],
            d["matrices"], d["sass"], d["width"], d["dtype"], d["instructions"], d["wavefronts"],
            d["ideal"], d["conflicts"], d["cycles"], d["ideal_cycles"], d["split"]["unit"],
            d["split"]["merged_instructions"],
            tuple(Explanation.from_dict(e) for e in d["split"]["explanations"]),
            tuple(WarpEntry.from_dict(w) for w in d["warps"]))


@dataclass(frozen=True, slots=True)
class SnapshotArrayRecord:
    """One shared array's content at the snapshot: a cell (a JSON-ready dict) per scalar element."""

    name: str
    dtype: str
    shape: Dims
    base_offset: int
    element_size: int
    cells: tuple[dict, ...]

    def to_dict(self) -> dict:
        return {"dtype": self.dtype, "shape": list(self.shape), "base_offset": self.base_offset,
                "element_size": self.element_size, "cells": list(self.cells)}


@dataclass(frozen=True, slots=True)
class SnapshotRecord:
    """The shared arrays right after a line (``--snapshot``), in one block, when the ``when`` values hold."""

    line: int
    when: dict[str, int]
    block: Dims
    arrays: tuple[SnapshotArrayRecord, ...]

    def to_dict(self) -> dict:
        return {"line": self.line, "when": self.when, "block": list(self.block),
                "arrays": {a.name: a.to_dict() for a in self.arrays}}

    @classmethod
    def from_dict(cls, d: dict) -> SnapshotRecord:
        arrays = tuple(SnapshotArrayRecord(name, a["dtype"], _dims(a["shape"]), a["base_offset"],
                                           a["element_size"], tuple(a["cells"]))
                       for name, a in d["arrays"].items())
        return cls(d["line"], d["when"], _dims(d["block"]), arrays)


@dataclass(frozen=True, slots=True)
class ExplainReport:
    """The whole explain report: what ``render`` prints and ``to_dict`` (``--json``) serializes."""

    file: str
    kernel: str
    arch: str
    bank_geometry: BankGeometry
    launch: LaunchRecord
    shared_arrays: tuple[SharedArrayRecord, ...]
    matrices: tuple[MatrixRecord, ...]
    assumptions: tuple[str, ...]
    sites: tuple[SiteRecord, ...]
    snapshot: SnapshotRecord | None
    shared_pipe: PipeCycles
    unmodelled: tuple[dict, ...] = ()
    trace: dict | None = None
    schema: str = SCHEMA

    def to_dict(self) -> dict:
        """The JSON-ready report of docs/explain.md (what ``bankism.explain.explain`` returns)."""
        report = {
            "schema": self.schema, "file": self.file, "kernel": self.kernel, "arch": self.arch,
            "bank_geometry": self.bank_geometry.to_dict(), "launch": self.launch.to_dict(),
            "shared_arrays": [a.to_dict() for a in self.shared_arrays],
            "matrices": [m.to_dict() for m in self.matrices],
            "assumptions": list(self.assumptions),
            "sites": [s.to_dict() for s in self.sites],
            "snapshot": None if self.snapshot is None else self.snapshot.to_dict(),
            "shared_pipe": self.shared_pipe.to_json(),
        }
        if self.unmodelled:
            report["unmodelled"] = list(self.unmodelled)
        if self.trace is not None:
            report["trace"] = self.trace
        return report

    @classmethod
    def from_dict(cls, d: dict) -> ExplainReport:
        """The records of a report dict (``to_dict``'s output, or the ``--json`` document)."""
        geometry = BankGeometry(d["bank_geometry"]["banks"], d["bank_geometry"]["bank_bytes"])
        pipe = d.get("shared_pipe")
        nan = float("nan")
        cycles = (PipeCycles(pipe["block_cycles"], pipe["ideal_block_cycles"], pipe["blocks"], d["arch"])
                  if pipe else PipeCycles(nan, nan, None, d["arch"]))
        return cls(
            d["file"], d["kernel"], d["arch"], geometry, LaunchRecord.from_dict(d["launch"]),
            tuple(SharedArrayRecord.from_dict(a) for a in d["shared_arrays"]),
            tuple(MatrixRecord(m["name"], m["dtype"]) for m in d.get("matrices", [])),
            tuple(d.get("assumptions", [])),
            tuple(SiteRecord.from_dict(s) for s in d["sites"]),
            None if d.get("snapshot") is None else SnapshotRecord.from_dict(d["snapshot"]),
            cycles, tuple(d.get("unmodelled") or ()), d.get("trace"), d.get("schema", SCHEMA))
