"""Recording of shared-memory accesses: one ``SourceSite`` per source-level access
expression and operation, with every warp-instruction (block, warp, 32 addresses, active lanes)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bankism.arch import LANES
from bankism.errors import BankismError
from bankism.explain.frontend import syntax as S
from bankism.explain.simt.ctype import CType
from bankism.explain.simt.memory import (
    SharedVariable,
)
from bankism.explain.simt.values import (
    Mask,
)
from bankism.inputs import Budget


@dataclass(eq=False)
class SourceSite:
    """One source-level shared-memory access: a syntax node and an operation on it."""

    line: int
    column: int
    expression: str
    array: str
    region: SharedVariable
    op: str
    width: int
    type: CType
    order: int
    atomic_op: str | None = None
    span: tuple[int, int] = (0, 0)
    matrices: int | None = None
    #: The SASS nvcc emits for an atomic* call (bankism.isa.atomic_form), else None.
    sass: str | None = None
    blocks: list[tuple[int, int, int]] = field(default_factory=list)
    warps: list[np.ndarray] = field(default_factory=list)
    addresses: list[np.ndarray] = field(default_factory=list)
    active: list[np.ndarray] = field(default_factory=list)
    #: The file the access is in (the including file's name for the main file).
    file: str = ""
    #: The inline call stack of an access inside a helper: (function, line, file) per call,
    #: innermost first (``line 90 in ld_vec, called from line 142``).
    stack: tuple[tuple[str, int, str], ...] = ()
    #: Per recorded call (parallel to ``warps``): its place in the block's program order and its
    #: straight-line stretch (``Recorder.epoch``), which nvcc's merging of neighbours needs (vectorize.py).
    seq: list[int] = field(default_factory=list)
    epoch: list[int] = field(default_factory=list)
    #: Set on a site of merged accesses: the width of the accesses nvcc merged into it.
    merged_from: int | None = None
    #: Set on a site explain cannot count, saying why: ``the addresses depend on values read from global
    #: memory (data)``, ``whether it runs depends on kernel parameter n (...)``. Its warp-instructions are
    #: recorded, its addresses are not (``record_unknown``).
    unknown: str | None = None
    #: The access expression's syntax node (nvcc's provable alignment reads it: ``alignment.py``).
    node: object = field(default=None, repr=False, compare=False)

    def call_blocks(self) -> list[tuple[int, int, int]]:
        """The block of each recorded call (``blocks`` holds one entry per warp-instruction)."""
        blocks, start = [], 0
        for warps in self.warps:  # a call no warp issued holds no entry: (0, 0, 0) stands for it
            blocks.append(self.blocks[start] if len(warps) else (0, 0, 0))
            start += len(warps)
        return blocks

    def drop_calls(self, indices: set[int]) -> None:
        """Forget the recorded calls at ``indices`` (a load nvcc does not issue again, reloads.py)."""
        keep = [i for i in range(len(self.warps)) if i not in indices]
        starts = np.cumsum([0] + [len(warps) for warps in self.warps])
        self.blocks = [block for i in keep for block in self.blocks[starts[i]:starts[i + 1]]]
        for name in ("warps", "addresses", "active", "seq", "epoch"):
            values = getattr(self, name)
            setattr(self, name, [values[i] for i in keep])


class Recorder:
    """Collects, per site, every warp-instruction: block, warp, 32 addresses, active lanes."""

    def __init__(self, budget: Budget | None = None, copies: Budget | None = None,
                 uncounted: Budget | None = None) -> None:
        self.sites: dict[tuple[int, str], SourceSite] = {}
        #: The ``uncounted`` budget: warp-instructions listed as not counted (a loop whose trip count is not
        #: known would list its accesses iteration after iteration).
        self.uncounted = uncounted
        #: The ``copies`` budget: warp-instructions the repeating-loop shortcut adds by copying (repeat.py).
        self.copies = copies
        self.last: SourceSite | None = None  # the site of the latest record (to label its SASS)
        #: The ``accesses`` budget (bankism.inputs): warp-instructions kept, i.e. memory; None: unbounded.
        self.budget = budget
        #: Recorded calls so far (program order) and straight-line stretches so far: a barrier, a branch
        #: around memory accesses or a data-dependent loop's iteration starts a new one (``boundary``).
        self.clock = 0
        self.epoch = 0
        #: While set, an access explain cannot count refuses instead of being listed: a probe (repeat.py)
        #: learns from the refusal that the accesses depend on what it made unknown.
        self.probing = False

    def boundary(self) -> None:
        """Nothing recorded before this point merges with anything after it (vectorize.py)."""
        self.epoch += 1

    def record(self, node: S.Node, op: str, t: CType, region: SharedVariable, addresses: np.ndarray,
               mask: Mask, block: tuple[int, int, int], atomic_op: str | None = None,
               span: tuple[int, int] | None = None, calls: tuple = (), matrices: int | None = None,
               unknown: str | None = None) -> None:
        """Record one access of ``node`` by the threads of ``mask``; ``calls`` is the call
        stack ((function, call expression), outermost first): each call site is its own site."""
        site = self._site(node, op, t, region, atomic_op, span, calls, matrices, unknown)
        threads = addresses.size
        warps = -(-threads // LANES)
        padded = np.zeros(warps * LANES, np.int64)
        padded[:threads] = addresses
        lanes = np.zeros(warps * LANES, bool)
        lanes[:threads] = mask.arr
        padded, lanes = padded.reshape(warps, LANES), lanes.reshape(warps, LANES)
        issued = np.flatnonzero(lanes.any(axis=1))
        if self.budget is not None:
            self.budget.spend(issued.size)
        if unknown is not None and self.uncounted is not None:
            try:
                self.uncounted.spend(issued.size)
            except BankismError as error:
                raise BankismError(f"{error}; they depend on what is not known: {unknown}") from None
        self.last = site
        site.blocks.extend([block] * issued.size)
        site.warps.append(issued)
        site.addresses.append(padded[issued])
        site.active.append(lanes[issued])
        site.seq.append(self.clock)
        site.epoch.append(self.epoch)
        self.clock += 1

    def record_unknown(self, node: S.Node, op: str, t: CType, region: SharedVariable, mask: Mask,
                       block: tuple[int, int, int], why: str, atomic_op: str | None = None,
                       span: tuple[int, int] | None = None, calls: tuple = ()) -> None:
        """Record one access explain cannot count (``why``: "the addresses depend on ..." or "whether it
        runs depends on ..."): its own site, which counts the warp-instructions and active lanes and holds
        no addresses (every address 0)."""
        self.record(node, op, t, region, np.zeros(mask.arr.size, np.int64), mask, block, atomic_op, span,
                    calls, unknown=why)

    def _site(self, node: S.Node, op: str, t: CType, region: SharedVariable, atomic_op: str | None,
              span: tuple[int, int] | None, calls: tuple, matrices: int | None, unknown: str | None
              ) -> SourceSite:
        """The site of ``node``'s ``op`` under ``calls`` (one explain cannot count when ``unknown``)."""
        key: tuple = (id(node), op, tuple(id(call) for _, call in calls))
        if unknown is not None:
            key += ("unknown",)
        site = self.sites.get(key)
        if site is None:
            site = SourceSite(node.line, node.col, node.text, _base_name(node) or region.name, region, op,
                              t.size, t, len(self.sites), atomic_op, span or (node.line, node.line),
                              file=node.file,
                              stack=tuple((name, call.line, call.file) for name, call in reversed(calls)),
                              matrices=matrices, unknown=unknown, node=node)
            self.sites[key] = site
        return site


def _base_name(node: S.Node) -> str | None:
    """The variable an access expression starts from (``As`` in ``As[ty][k]``, ``p`` in ``*p``)."""
    current = node
    while True:
        if isinstance(current, S.Name):
            return current.name
        if isinstance(current, S.Subscript):
            current = current.base
        elif isinstance(current, S.Unary):
            current = current.operand
        elif isinstance(current, S.Cast):
            current = current.value
        elif isinstance(current, S.Member):
            current = current.base
        elif isinstance(current, S.Binary):
            current = current.left
        elif isinstance(current, S.Call) and current.args:
            current = current.args[0]
        else:
            return None

