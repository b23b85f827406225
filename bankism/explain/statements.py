"""Statements of the SIMT interpreter: blocks, declarations, if, loops, return, break and
continue, each run for the threads of a lane mask (divergence as masks)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from bankism.explain import syntax as S
from bankism.explain.bindings import (
    LoopState,
    Variable,
)
from bankism.explain.ctype import CType
from bankism.explain.memory import (
    LocalArray,
    local_store,
)
from bankism.explain.values import (
    Failure,
    Mask,
    Scalar,
    Value,
    Vector,
    constant,
    per_thread,
    select,
    unknown,
)

#: A loop that runs longer than this is reported instead of hanging the interpreter
#: (about 10 s of interpretation for a small loop body).
MAX_LOOP_ITERATIONS = 1 << 18


class Statements:
    """Statement execution (a mixin of ``Machine``)."""

    def exec(self, stmt: S.Stmt, mask: Mask) -> Mask:
        """Execute ``stmt`` for the threads of ``mask``; return the threads that continue after it."""
        return self._stmt[type(stmt)](stmt, mask)

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
        outer, self.span = self.span, (stmt.line, stmt.end_line)
        try:
            self.eval(stmt.expr, mask)
        finally:
            self.span = outer
        if self.snapshot is not None and stmt.end_line == self.snapshot.line:
            self._maybe_snapshot(stmt, mask)
        return mask

    def _maybe_snapshot(self, stmt: S.Stmt, mask: Mask) -> None:
        if self.snapshot_taken:
            return
        for name, wanted in self.snapshot.when:
            binding = self.find_variable(name)
            if binding is None:
                if name in self._builtins:
                    raise Failure(stmt, f"--when {name}: use a variable of the kernel, not a built-in")
                raise Failure(stmt, f"--when {name}={wanted}: no variable {name} in scope at this line")
            if not isinstance(binding, Variable) or not isinstance(binding.value, Scalar):
                raise Failure(stmt, f"--when {name}: {name} is not a scalar variable")
            value = binding.value
            data = per_thread(value.data, self.threads)[mask.arr]
            if not (data == wanted).all():
                return
        self.snapshot_taken = True
        if self.on_snapshot is not None:
            self.on_snapshot(self)

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
            self._maybe_snapshot(stmt, mask)
        return mask

    def _declare_shared(self, stmt: S.Decl, item: S.Declarator) -> None:
        if item.init is not None:
            raise Failure(item, "a __shared__ variable cannot have an initializer")
        region = self.shared.get(id(item))
        if region is None and id(item) in self._unused_shared:
            return
        if region is None:
            raise Failure(item, "unsupported construct: __shared__ declaration outside the kernel body")
        self.declare(item.name, region)

    def _declare_local(self, item: S.Declarator, mask: Mask) -> None:
        init_value = None
        if item.init is not None and not isinstance(item.init, S.InitList) and not item.type.dims:
            if item.type.reference:
                target = self.lvalue(item.init, mask)
                t = self.lvalue_type(target)
                self.declare(item.name, Variable(item.name, t, None, ref=target))
                return
            init_value = self.eval(item.init, mask)
        t = self.resolve_type(item.type, mask, init_value)
        if t.kind == "array":
            array = LocalArray(item.name, t, self.threads)
            if t.scalar.kind not in ("int", "float", "bool"):
                raise Failure(item, f"unsupported construct: local array of {t.scalar}")
            self.declare(item.name, array)
            if item.init is not None:
                self._init_local_array(array, item.init, mask)
            return
        if t.kind == "vec" and isinstance(item.init, S.InitList):
            comps = [self.eval(e, mask) for e in item.init.items]
            init_value = self._make_vector(t, comps, item)
        elif isinstance(item.init, S.InitList):
            if len(item.init.items) != 1:
                raise Failure(item, "unsupported construct: brace initializer with several values")
            init_value = self.eval(item.init.items[0], mask)
        value = self.coerce(init_value, t, item) if init_value is not None else self._uninitialized(t)
        self.declare(item.name, Variable(item.name, t, value))

    def _uninitialized(self, t: CType) -> Value | None:
        if t.kind == "vec":
            return Vector(t, [unknown(t.elem, "an uninitialized variable") for _ in range(t.count)])
        if t.is_arithmetic:
            return unknown(t, "an uninitialized variable")
        return None

    def _init_local_array(self, array: LocalArray, init: S.Expr, mask: Mask) -> None:
        if not isinstance(init, S.InitList):
            raise Failure(init, "unsupported construct: array initialized from an expression")
        flat = _flatten_init(init)
        slots = array.data.shape[0]
        if len(flat) > slots:
            raise Failure(init, f"too many initializers for {array.name}")
        zero = constant(array.scalar, 0)
        for slot in range(slots):
            value = self.eval(flat[slot], mask) if slot < len(flat) else zero
            if not isinstance(value, Scalar):
                raise Failure(init, "unsupported construct: non-scalar array initializer")
            local_store(array, np.int64(slot), value, mask)

    def _if(self, stmt: S.If, mask: Mask) -> Mask:
        condition = self.truth(stmt.condition, mask)
        then_mask = mask & condition
        else_mask = mask & np.logical_not(condition)
        out_then = self.exec(stmt.then, then_mask) if not then_mask.none else then_mask
        if stmt.otherwise is not None and not else_mask.none:
            out_else = self.exec(stmt.otherwise, else_mask)
        else:
            out_else = else_mask
        return self._live(out_then | out_else)

    def _loop(self, body: Callable[[Mask], Mask], condition: S.Expr | None, update: S.Expr | None,
              mask: Mask, check_first: bool, node: S.Stmt) -> Mask:
        """Shared loop driver: threads stay while the condition holds; break/continue are masks."""
        running = mask
        exited = np.zeros(self.threads, bool)
        first = True
        iterations = 0
        while True:
            iterations += 1
            if iterations > MAX_LOOP_ITERATIONS:
                raise Failure(node, f"this loop did not end after {MAX_LOOP_ITERATIONS} iterations "
                                    "(an endless loop, or sizes to shrink with -D)")
            if condition is not None and (check_first or not first):
                holds = self.truth(condition, running)
                stay = running & holds
                exited |= running.arr & ~stay.arr
                running = stay
            first = False
            if running.none:
                break
            state = LoopState(np.zeros(self.threads, bool), np.zeros(self.threads, bool))
            self.loops.append(state)
            try:
                after = body(running)
            finally:
                self.loops.pop()
            exited |= state.broken
            running = Mask.of((after.arr | state.continued) & ~self.frame.returned)
            if update is not None and not running.none:
                self.eval(update, running)
            if running.none:
                break
        return self._live(Mask.of(exited & mask.arr))

    def _for(self, stmt: S.For, mask: Mask) -> Mask:
        self.frame.scopes.append({})
        try:
            if stmt.init is not None:
                self.exec(stmt.init, mask)
            return self._loop(lambda m: self.exec(stmt.body, m), stmt.condition, stmt.update, mask, True,
                              stmt)
        finally:
            self.frame.scopes.pop()

    def _while(self, stmt: S.While, mask: Mask) -> Mask:
        return self._loop(lambda m: self.exec(stmt.body, m), stmt.condition, None, mask, True, stmt)

    def _do_while(self, stmt: S.DoWhile, mask: Mask) -> Mask:
        return self._loop(lambda m: self.exec(stmt.body, m), stmt.condition, None, mask, False, stmt)

    def _return(self, stmt: S.Return, mask: Mask) -> Mask:
        frame = self.frame
        if stmt.value is not None:
            value = self.coerce(self.eval(stmt.value, mask), frame.return_type, stmt)
            frame.result = select(mask, value, frame.result, stmt) if frame.result is not None else value
        frame.returned = frame.returned | mask.arr
        return Mask(np.zeros(self.threads, bool), False, True)

    def _break(self, stmt: S.Break, mask: Mask) -> Mask:
        if not self.loops:
            raise Failure(stmt, "break outside a loop")
        self.loops[-1].broken |= mask.arr
        return Mask(np.zeros(self.threads, bool), False, True)

    def _continue(self, stmt: S.Continue, mask: Mask) -> Mask:
        if not self.loops:
            raise Failure(stmt, "continue outside a loop")
        self.loops[-1].continued |= mask.arr
        return Mask(np.zeros(self.threads, bool), False, True)


def _flatten_init(init: S.InitList) -> list[S.Expr]:
    out: list[S.Expr] = []
    for item in init.items:
        if isinstance(item, S.InitList):
            out.extend(_flatten_init(item))
        else:
            out.append(item)
    return out
