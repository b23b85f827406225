"""What the CUDA stand-ins (``explain/cuda``) and the loop shortcut (``repeat``) may use of the SIMT
machine: a typed ``Protocol`` in place of an untyped ``machine`` argument. ``interpreter.Machine``
is the one class that has all of it (its mixins supply the methods)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from bankism.explain.frontend import syntax as S
from bankism.explain.simt.bindings import BlockContext, Frame, LoopState, LValue, MemLV, SnapshotRequest
from bankism.explain.simt.ctype import CType
from bankism.explain.simt.memory import GlobalMatrix, SharedStore, SharedVariable
from bankism.explain.simt.recording import Recorder
from bankism.explain.simt.values import Mask, Value


class SimtMachine(Protocol):
    """One thread block being interpreted: every statement runs for all its threads at once."""

    kernel: S.Function
    context: BlockContext
    recorder: Recorder
    snapshot: SnapshotRequest | None
    snapshot_taken: bool
    #: Called with the machine when the snapshot is taken (snapshot_point.py).
    on_snapshot: Callable[[SimtMachine], None] | None
    #: Threads of the block, and each thread's linear index (lane ``i`` of warp ``i // LANES``).
    threads: int
    lanes: np.ndarray
    frames: list[Frame]
    loops: list[LoopState]
    span: tuple[int, int] | None
    call_stack: list[tuple[str, S.Node]]
    notes: list[str]
    no_repeat: set[S.Stmt]
    #: Simple statements run so far by one thread group (vectorize.kept_for_size reads it).
    executed: int
    matrices: list[GlobalMatrix]
    shared_arrays: list[SharedVariable]
    store: SharedStore
    bindings: dict[str, object]
    #: threadIdx, blockIdx, blockDim, gridDim, warpSize as values.
    builtin_variables: dict[str, Value]
    #: The expression statement whose value is unused (nvcc may compile it to another instruction).
    discarded: S.Expr | None

    @property
    def frame(self) -> Frame: ...

    def run(self) -> None: ...
    def exec(self, stmt: S.Stmt, mask: Mask) -> Mask: ...
    def eval(self, expr: S.Expr, mask: Mask) -> Value: ...
    def truth(self, expr: S.Expr, mask: Mask) -> np.ndarray | np.bool_: ...
    def truth_of(self, value: Value, expr: S.Node, mask: Mask) -> np.ndarray | np.bool_: ...
    def lvalue(self, expr: S.Expr, mask: Mask) -> LValue: ...
    def lvalue_type(self, target: LValue) -> CType: ...
    def load(self, target: LValue, mask: Mask) -> Value: ...
    def store_to(self, target: LValue, value: Value, mask: Mask, node: S.Node) -> Value: ...
    def integer_constant(self, expr: S.Expr, mask: Mask, what: str) -> int: ...
    def find_variable(self, name: str) -> object | None: ...
    def coerce(self, value: Value, t: CType, node: S.Node) -> Value: ...
    def construct(self, t: CType, args: list[Value], mask: Mask, node: S.Node) -> Value: ...
    def construct_from(self, t: CType, exprs: list[S.Expr], mask: Mask, node: S.Node) -> Value: ...
    def template_value(self, given: S.TypeName | S.Expr, mask: Mask) -> int: ...
    def bind_template(self, function: S.Function, expr: S.Node, scope: dict[str, object], mask: Mask,
                      explicit: list, args: list[S.Expr] | None, values: list[Value] | None) -> None: ...
    def resolve_type(self, type_name: S.TypeName, mask: Mask, init: Value | None = None) -> CType: ...
    def unsure_lanes(self) -> np.ndarray | None: ...
    def unsure_reason(self) -> str: ...
    def running_not_known(self, mask: Mask) -> str | None: ...
    def require_certain(self, node: S.Node, mask: Mask) -> None: ...

    def record_shared_access(self, target: MemLV, mask: Mask, op: str,
                             atomic_op: str | None = None) -> np.ndarray:
        """Per-thread shared-window byte addresses of ``target``, checked, and the warp-instructions
        recorded at its site (``UnknownAddress`` after recording them when the addresses are not known)."""
        ...

    def forget_shared(self, region: SharedVariable) -> None:
        """Every element of ``region`` reads as unknown (after a write at addresses not known)."""
        ...

    def shared_region_of(self, addresses: np.ndarray, lanes: np.ndarray, width: int,
                         node: S.Node) -> SharedVariable:
        """The __shared__ array the checked lanes' addresses fall in (bounds and alignment checked)."""
        ...
