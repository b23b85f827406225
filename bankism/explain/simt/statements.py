"""Statements of the SIMT interpreter: blocks, declarations, if, loops, return, break and
continue, each run for the threads of a lane mask (divergence as masks)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager, nullcontext

import numpy as np

from bankism.errors import BankismError
from bankism.explain.frontend import syntax as S
from bankism.explain.simt.bindings import OBJECT_MEMBERS, LoopState, ObjectArray, TypeAlias, Variable
from bankism.explain.simt.local_objects import pointer_array, struct_array
from bankism.explain.simt.memory import LocalArray
from bankism.explain.simt.phases import barrier_phases
from bankism.explain.simt.repeat import counted_loop, loop_trips, run_repeating, sized_body
from bankism.explain.simt.snapshot_point import maybe_snapshot
from bankism.explain.simt.values import (
    Failure,
    Mask,
    Pointer,
    Scalar,
    Struct,
    Vector,
    all_known,
    flags_per_thread,
    forget,
    per_thread,
    select,
)
from bankism.explain.simt.vectorize import touches_memory
from bankism.inputs import Budget

#: A loop that runs longer than this is reported instead of hanging the interpreter
#: (about 10 s of interpretation for a small loop body).
MAX_LOOP_ITERATIONS = 1 << 18


#: What an unknown value without a recorded origin depends on, as messages name it ("depends on ..., which
#: bankism does not know"): it once read "values bankism does not know", said twice.
UNTRACED = "values computed from unknown inputs"

#: Statements that only hold others: not counted in a loop body's size.
COMPOUND = frozenset({S.Block, S.For, S.While, S.DoWhile, S.If})


class Statements:
    """Statement execution (a mixin of ``Machine``)."""

    #: The ``steps`` budget of the run (bankism.inputs), shared by its blocks; None: unbounded.
    steps: Budget | None = None
    #: Simple statements run so far (not blocks, loops or ifs): a loop body's size, as nvcc's unroller
    #: weighs it (vectorize.kept_for_size).
    executed: int = 0
    current: S.Stmt | None = None

    def exec(self, stmt: S.Stmt, mask: Mask) -> Mask:
        """Execute ``stmt`` for the threads of ``mask``; return the threads that continue after it."""
        if self.steps is not None:
            self.steps.spend()
        if type(stmt) not in COMPOUND:
            self.executed += 1
            self.current = stmt  # where a failure without a node of its own is reported
        return self._stmt[type(stmt)](stmt, mask)

    def _refused(self, stmt: S.Refused, mask: Mask) -> Mask:
        raise BankismError(stmt.error)

    def _typedef(self, stmt: S.TypeDef, mask: Mask) -> Mask:
        self.declare(stmt.name, TypeAlias(self.resolve_type(stmt.type, mask)))
        return mask

    # --- lanes whose execution bankism cannot know --------------------------------------------

    def unsure_lanes(self) -> np.ndarray | None:
        """Lanes that may or may not be executing the current code (None: none)."""
        lanes = self.unsure
        for frame in self.frames:
            if frame.unsure is not None:
                lanes = frame.unsure if lanes is None else lanes | frame.unsure
        for loop in self.loops:
            if loop.unsure is not None:
                lanes = loop.unsure if lanes is None else lanes | loop.unsure
        return lanes

    def unsure_reason(self) -> str:
        return self.unsure_why or UNTRACED

    def running_not_known(self, mask: Mask) -> str | None:
        """``whether it runs depends on ...`` when lanes of ``mask`` only maybe run (their condition is not
        known), else None: an access there is listed, not counted."""
        doubtful = self.unsure_lanes()
        if doubtful is not None and (doubtful & mask.arr).any():
            return f"whether it runs depends on {self.unsure_reason()}"
        return None

    def require_certain(self, node: S.Node, mask: Mask) -> None:
        """Refuse a shared-memory access among lanes that only maybe run (their condition is not known)."""
        doubtful = self.unsure_lanes()
        if doubtful is not None and (doubtful & mask.arr).any():
            raise Failure(node, f"whether this shared-memory access runs depends on {self.unsure_reason()}, "
                                "which bankism does not know")

    @contextmanager
    def maybe_running(self, lanes: np.ndarray, why: str | None):
        """Run code in which ``lanes`` may or may not take part (their condition is not
        known): they run, values they store become unknown, and a shared-memory access or
        barrier among them is refused."""
        old, old_why = self.unsure, self.unsure_why
        self.unsure = lanes.copy() if old is None else old | lanes
        self.unsure_why = old_why or (why or UNTRACED)
        try:
            yield
        finally:
            self.unsure, self.unsure_why = old, old_why

    def truth_parts(self, expr: S.Expr, mask: Mask) -> tuple[np.ndarray | np.bool_, np.ndarray | None, str]:
        """A condition per thread: (holds, lanes of ``mask`` where it is not known, why)."""
        value = self.eval(expr, mask)
        if isinstance(value, Scalar) and not all_known(value.known, mask):
            unknown_lanes = ~flags_per_thread(value.known, self.threads) & mask.arr
            holds = per_thread(value.data != 0, self.threads) & ~unknown_lanes
            return holds, unknown_lanes, value.taint or UNTRACED
        if isinstance(value, Pointer) and value.known is not True and not all_known(value.known, mask):
            unknown_lanes = ~flags_per_thread(value.known, self.threads) & mask.arr
            return ~unknown_lanes, unknown_lanes, value.taint or UNTRACED
        return self.truth_of(value, expr, mask), None, ""

    def _registers_only(self, names: tuple[str, ...]) -> bool:
        """Whether every name of a statement ``relevance`` found skippable is, here, a local
        arithmetic variable or a local array (so the statement touches registers only)."""
        scopes = self.frame.scopes
        for name in names:
            for scope in reversed(scopes):
                binding = scope.get(name)
                if binding is not None:
                    break
            else:
                if name.startswith("return:"):
                    continue
                return False
            if isinstance(binding, LocalArray | Scalar):  # a local array, or a constant
                continue
            if not (isinstance(binding, Variable) and binding.ref is None
                    and isinstance(binding.value, Scalar | Vector)):
                return False
        return True

    def _known_state(self) -> list:
        """Which values of the current frame are known (to find a loop's fixed point)."""
        state = []
        for scope in self.frame.scopes:
            for binding in scope.values():
                if isinstance(binding, Variable) and binding.value is not None:
                    state.append(_known_bytes(binding.value))
                elif isinstance(binding, Variable) and isinstance(getattr(binding.ref, "region", None),
                                                                  LocalArray):
                    state.append(binding.ref.region.known.tobytes())  # a local whose address was taken
                elif isinstance(binding, LocalArray):
                    state.append(binding.known.tobytes())
        return state

    def _live(self, mask: Mask) -> Mask:
        """``mask`` without threads that left through return/break/continue."""
        arr = mask.arr & ~self.frame.returned
        if self.loops:
            loop = self.loops[-1]
            arr = arr & ~loop.broken & ~loop.continued
        return Mask.of(arr)

    def _block(self, stmt: S.Block, mask: Mask) -> Mask:
        self.frame.scopes.append({})
        try:
            for inner in stmt.body:
                if mask.none:
                    break
                mask = self.exec(inner, mask)
        finally:
            self.frame.scopes.pop()
        return mask

    def _expr_stmt(self, stmt: S.ExprStmt, mask: Mask) -> Mask:
        names = self.skippable.get(id(stmt))
        if names is not None and self._registers_only(names):
            return mask
        outer, self.span = self.span, (stmt.line, stmt.end_line)
        self.discarded = stmt.expr  # a call whose value is unused (nvcc may pick another instruction)
        try:
            self.eval(stmt.expr, mask)
        finally:
            self.span = outer
            self.discarded = None
        if self.snapshot is not None and stmt.end_line == self.snapshot.line:
            maybe_snapshot(self, stmt, mask)
        return mask

    def _decl(self, stmt: S.Decl, mask: Mask) -> Mask:
        outer, self.span = self.span, (stmt.line, stmt.end_line)
        try:
            for item in stmt.items:
                if stmt.shared:
                    self._declare_shared(stmt, item)
                    continue
                if stmt.extern:
                    raise Failure(item, "unsupported construct: extern declaration inside a kernel")
                self._declare_local(item, mask)
        finally:
            self.span = outer
        if self.snapshot is not None and stmt.end_line == self.snapshot.line:
            maybe_snapshot(self, stmt, mask)
        return mask

    def _declare_shared(self, stmt: S.Decl, item: S.Declarator) -> None:
        if item.init is not None:
            raise Failure(item, "a __shared__ variable cannot have an initializer")
        if id(item) in self._deferred:
            raise self._deferred[id(item)]
        templated = self.templated_region(item)  # a template function's array: this instantiation's
        if templated is not None:
            self.declare(item.name, templated)
            return
        region = self.shared.get(id(item))
        if region is None and id(item) in self._unused_shared:
            if id(item) in self._dropped_storage:  # named, never accessed (shared_layout._never_accessed)
                self.declare(item.name, self._dropped_storage[id(item)])
            return
        if region is None and stmt.extern:
            mask = Mask(np.ones(self.threads, bool), True, False)
            element = self.resolve_type(self._element_type(item), mask)
            key = (id(item), element.name)
            region = self._externs.get(key)
            if region is None:
                region = self._place_extern(item, element, element.align)
                self._externs[key] = region
        if region is None:
            raise Failure(item, "unsupported construct: a static __shared__ array declared in a __device__ "
                                "function (where nvcc places it among the kernel's arrays is not measured)")
        self.declare(item.name, region)

    def _declare_local(self, item: S.Declarator, mask: Mask) -> None:
        init_value = None
        array = bool(item.type.dims) and not item.type.array_pointers  # `T (*p)[N]` is a pointer
        if item.type.base != "auto" and not item.type.reference and not array:
            t = self.resolve_type(item.type, mask)
            if t.kind == "struct":
                value = self.init_local_struct(t, item.init, mask, item)
                self.declare(item.name, Variable(item.name, t, value))
                return
        init = item.init
        if isinstance(init, S.InitList) and len(init.items) == 1 and not array and (
                item.type.reference or item.type.base == "auto"):
            init = init.items[0]  # `auto x{v}`, `const T &r{v}`: one braced value is that value
        if init is not None and not isinstance(init, S.InitList) and (
                item.type.reference or not array):
            if item.type.reference:
                target = self.bind_reference(init, item.type, mask)
                t = self.lvalue_type(target)
                self.declare(item.name, Variable(item.name, t, None, ref=target))
                return
            init_value = self.eval(init, mask)
        t = self.resolve_type(self.sized_by_initializer(item.type, init, mask), mask, init_value)
        if t.kind == "array":
            if t.scalar.kind in OBJECT_MEMBERS and item.init is None:
                self.declare(item.name, Variable(item.name, t, ObjectArray(item.name, t)))
                return
            if t.elem.kind == "ptr":  # `unsigned *frags[] = {a, b};`: indexed by constants
                self.declare(item.name, Variable(item.name, t, pointer_array(self, item, t, mask)))
                return
            if t.scalar.kind == "struct":  # `Acc acc[2];`: likewise
                self.declare(item.name, Variable(item.name, t, struct_array(self, item, t, mask)))
                return
            if t.scalar.kind not in ("int", "float", "bool"):
                raise Failure(item, f"unsupported construct: local array of {t.scalar}")
            array = LocalArray(item.name, t, self.threads)
            self.declare(item.name, array)
            if item.init is not None:
                self._init_local_array(array, item.init, mask)
            return
        if isinstance(init, S.InitList):
            init_value = self.braced_value(t, init, mask, item)
        value = self.coerce(init_value, t, item) if init_value is not None else self._uninitialized(t)
        self.declare(item.name, Variable(item.name, t, self.copy_value(value)))

    def _if(self, stmt: S.If, mask: Mask) -> Mask:
        condition, unknown_lanes, why = self.truth_parts(stmt.condition, mask)
        if unknown_lanes is not None:
            then_mask = mask & (condition | unknown_lanes)
            else_mask = mask & (np.logical_not(condition) | unknown_lanes)
            with self.maybe_running(unknown_lanes, why):
                return self._branches(stmt, then_mask, else_mask)
        return self._branches(stmt, mask & condition, mask & np.logical_not(condition))

    def _branches(self, stmt: S.If, then_mask: Mask, else_mask: Mask) -> Mask:
        around_memory = self._branch_kinds.get(stmt)
        if around_memory is None:
            around_memory = self._branch_kinds[stmt] = touches_memory(stmt)
        if around_memory:  # a branch around memory accesses ends nvcc's straight-line stretch
            self.recorder.boundary()
        try:
            return self._run_branches(stmt, then_mask, else_mask)
        finally:
            if around_memory:
                self.recorder.boundary()

    def _run_branches(self, stmt: S.If, then_mask: Mask, else_mask: Mask) -> Mask:
        split = stmt.otherwise is not None and not then_mask.none and not else_mask.none
        if split and self.unsure_lanes() is None:  # lanes that only maybe run take no barrier
            phases = barrier_phases(stmt)
            if phases is not None:
                return self.run_phases(stmt, phases, then_mask, else_mask)
        out_then = self.exec(stmt.then, then_mask) if not then_mask.none else then_mask
        if stmt.otherwise is not None and not else_mask.none:
            out_else = self.exec(stmt.otherwise, else_mask)
        else:
            out_else = else_mask
        return self._live(out_then | out_else)

    def _loop(
        self,
        body: Callable[[Mask], Mask],
        condition: S.Expr | None,
        update: S.Expr | None,
        mask: Mask,
        check_first: bool,
        node: S.Stmt,
    ) -> Mask:
        """Shared loop driver: threads stay while the condition holds; break/continue are masks."""
        running = mask
        exited = np.zeros(self.threads, bool)
        first = True
        iterations = 0
        #: Lanes whose condition was not known in some iteration: they may have left the
        #: loop already. When only such lanes run, the loop runs until what is known stops
        #: changing (their trip count is not known, but what they could do no longer grows).
        maybe = np.zeros(self.threads, bool)
        any_maybe = False  # maybe.any(), kept up to date (asked three times per iteration)
        why = ""
        previous = None
        while True:
            iterations += 1
            if iterations > MAX_LOOP_ITERATIONS:
                raise Failure(
                    node,
                    f"this loop did not end after {MAX_LOOP_ITERATIONS} iterations "
                    "(an endless loop, or sizes to shrink with -D)",
                )
            if condition is not None and (check_first or not first):
                holds, unknown_lanes, reason = self.truth_parts(condition, running)
                if unknown_lanes is not None:
                    maybe |= unknown_lanes
                    any_maybe = bool(maybe.any())
                    why = why or reason
                    holds = holds | unknown_lanes
                stay = running & holds
                if stay is not running:
                    exited |= running.arr & ~stay.arr
                running = stay
            first = False
            if running.none:
                break
            if any_maybe and not (running.arr & ~maybe).any():
                state_now = self._known_state()
                if state_now == previous:
                    exited |= running.arr
                    break
                previous = state_now
            state = LoopState(
                np.zeros(self.threads, bool),
                np.zeros(self.threads, bool),
                maybe.copy() if any_maybe else None,
            )
            self.loops.append(state)
            try:
                with self.maybe_running(maybe, why) if any_maybe else nullcontext():
                    after = body(running)
                    running = Mask.of((after.arr | state.continued) & ~self.frame.returned)
                    if update is not None and not running.none:
                        self.eval(update, running)
            finally:
                self.loops.pop()
            exited |= state.broken
            if state.unsure is not None:
                maybe |= state.unsure
                any_maybe = bool(maybe.any())
                why = why or self.unsure_reason()
            if running.none:
                break
        return self._live(Mask.of(exited & mask.arr))

    def _for(self, stmt: S.For, mask: Mask) -> Mask:
        self.frame.scopes.append({})
        try:
            if stmt.init is not None:
                self.exec(stmt.init, mask)
            counted = counted_loop(self, stmt, mask) if self.unsure_lanes() is None else None
            if counted is not None:
                return run_repeating(self, stmt, mask, *counted)
            body = (lambda m: self.exec(stmt.body, m)) if stmt.unrolled else self._iteration(stmt.body)
            shape = loop_trips(self, stmt, mask) if stmt.unrolled and not stmt.forced else None
            if shape is not None:
                body = sized_body(self, stmt, shape[1], body)
            return self._loop(body, stmt.condition, stmt.update, mask, True, stmt)
        finally:
            self.frame.scopes.pop()

    def _while(self, stmt: S.While, mask: Mask) -> Mask:
        return self._loop(self._iteration(stmt.body), stmt.condition, None, mask, True, stmt)

    def _do_while(self, stmt: S.DoWhile, mask: Mask) -> Mask:
        return self._loop(self._iteration(stmt.body), stmt.condition, None, mask, False, stmt)

    def _iteration(self, body: S.Stmt) -> Callable[[Mask], Mask]:
        """A loop body nvcc does not unroll (a while loop, `#pragma unroll 1`): each iteration its own
        straight-line stretch."""
        def run(mask: Mask) -> Mask:
            self.recorder.boundary()
            return self.exec(body, mask)
        return run

    def _return(self, stmt: S.Return, mask: Mask) -> Mask:
        frame = self.frame
        if stmt.value is not None:
            if frame.function.return_type.reference:
                target = self.lvalue(stmt.value, mask)
                if frame.result_lvalue is not None and frame.result_lvalue is not target:
                    raise Failure(
                        stmt, "unsupported construct: a function returning references to different objects"
                    )
                frame.result_lvalue = target
            else:
                if isinstance(stmt.value, S.InitList) and frame.return_type is not None:  # `return {a, b};`
                    value = self.braced(frame.return_type, stmt.value, mask, stmt)
                else:
                    value = self.eval(stmt.value, mask)
                if frame.return_type is not None:
                    value = self.coerce(value, frame.return_type, stmt)
                value = self.copy_value(value)
                frame.result = select(mask, value, frame.result, stmt) if frame.result is not None else value
                doubtful = self.unsure_lanes()
                if doubtful is not None and (doubtful & mask.arr).any():
                    frame.result = forget(frame.result, doubtful & mask.arr, self.unsure_reason())
        return self._leave(mask, "returned")

    def _leave(self, mask: Mask, how: str) -> Mask:
        """``return``/``break``/``continue`` in the threads of ``mask``: they stop here, except
        lanes that may not have reached this statement, which run on as unsure lanes."""
        doubtful = self.unsure_lanes()
        staying = None
        if doubtful is not None and (doubtful & mask.arr).any():
            staying = doubtful & mask.arr
            leaving = mask.arr & ~staying
        else:
            leaving = mask.arr
        if how == "returned":
            self.frame.returned = self.frame.returned | leaving
            if staying is not None:
                self.frame.unsure = staying if self.frame.unsure is None else self.frame.unsure | staying
        else:
            loop = self.loops[-1]
            if how == "broken":
                loop.broken |= leaving
            else:
                loop.continued |= leaving
            if staying is not None:
                loop.unsure = staying if loop.unsure is None else loop.unsure | staying
        if staying is None:
            return Mask(np.zeros(self.threads, bool), False, True)
        return Mask.of(staying)

    def _break(self, stmt: S.Break, mask: Mask) -> Mask:
        if not self.loops:
            raise Failure(stmt, "break outside a loop")
        return self._leave(mask, "broken")

    def _continue(self, stmt: S.Continue, mask: Mask) -> Mask:
        if not self.loops:
            raise Failure(stmt, "continue outside a loop")
        return self._leave(mask, "continued")


def _known_bytes(value: object) -> bytes:
    if isinstance(value, Scalar | Pointer):
        return np.asarray(value.known).tobytes()
    if isinstance(value, Vector):
        return b"".join(_known_bytes(c) for c in value.comps)
    if isinstance(value, Struct):
        return b"".join(
            _known_bytes(v) if not isinstance(v, LocalArray) else v.known.tobytes()
            for v in value.fields.values()
        )
    return b""
