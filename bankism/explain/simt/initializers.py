"""Initial values: brace lists (``T x{...}``, ``x = {a, b}``, ``return {};``), local arrays
from their brace lists, and what an uninitialized variable holds (a mixin of ``Machine``)."""

from __future__ import annotations

import numpy as np

from bankism.explain.frontend import syntax as S
from bankism.explain.simt.ctype import CType
from bankism.explain.simt.memory import LocalArray, local_store
from bankism.explain.simt.values import Failure, Mask, Pointer, Scalar, Value, Vector, constant, unknown


class Initializers:
    """Brace lists and local-array initializers (a mixin of ``Machine``)."""

    def braced(self, t: CType, init: S.InitList, mask: Mask, node: S.Node) -> Value:
        """The value ``{...}`` gives an object of type ``t`` (``x = {a, b}``, ``return {};``)."""
        if t.kind == "struct":
            return self.construct(t, [self.eval(e, mask) for e in init.items], mask, node)
        return self.braced_value(t, init, mask, node)

    def braced_value(self, t: CType, init: S.InitList, mask: Mask, node: S.Node) -> Value:
        """The value ``T x{...}`` gives a scalar, vector or pointer: ``{}`` is zero (null),
        ``{v}`` is ``v`` converted (a vector from a vector of its type too), ``{a, b, ..}``
        a vector's components."""
        values = [self.eval(e, mask) for e in init.items]
        if not values:
            if t.kind == "vec":
                return Vector(t, [constant(t.elem, 0) for _ in range(t.count)])
            if t.kind == "ptr":
                return Pointer(t, None, np.int64(0))
            return constant(t, 0)
        if len(values) == 1 and (t.kind != "vec" or isinstance(values[0], Vector)):
            return self.coerce(values[0], t, node)
        if t.kind == "vec":
            return self._make_vector(t, values, node)
        raise Failure(node, f"unsupported construct: a {t} initialized from {len(values)} values")

    def _uninitialized(self, t: CType) -> Value | None:
        if t.kind == "vec":
            return Vector(t, [unknown(t.elem, "an uninitialized variable") for _ in range(t.count)])
        if t.is_arithmetic:
            return unknown(t, "an uninitialized variable")
        return None

    def _init_local_array(self, array: LocalArray, init: S.Expr, mask: Mask) -> None:
        """``T a[M][N] = {...}``: nested braces fill one element each, a flat list fills the
        slots in order (brace elision); vectors fill their components; the rest is zero."""
        if not isinstance(init, S.InitList):
            raise Failure(init, "unsupported construct: array initialized from an expression")
        slots = array.data.shape[0]
        filled = np.zeros(slots, bool)
        self._fill_slots(array, array.type, init, 0, filled, mask)
        zero = constant(array.scalar, 0)
        for slot in np.flatnonzero(~filled):
            local_store(array, np.int64(slot), zero, mask)

    def _fill_slots(self, array: LocalArray, t: CType, init: S.InitList, first: int, filled: np.ndarray,
                    mask: Mask) -> None:
        per_element = t.elem.size // array.scalar.size if t.kind == "array" else 0
        if t.kind == "array" and t.elem.kind == "array" and init.items and all(
                isinstance(item, S.InitList) for item in init.items):
            if len(init.items) > t.count:
                raise Failure(init, f"too many initializers for {array.name}")
            for index, item in enumerate(init.items):
                self._fill_slots(array, t.elem, item, first + index * per_element, filled, mask)
            return
        end = first + (t.size // array.scalar.size if t.kind == "array" else 1)
        slot = first
        for expr in _flatten_init(init):
            value = self.eval(expr, mask)
            comps = value.comps if isinstance(value, Vector) else [value]
            if not all(isinstance(comp, Scalar) for comp in comps):
                raise Failure(init, "unsupported construct: non-scalar array initializer")
            if slot + len(comps) > end:
                raise Failure(init, f"too many initializers for {array.name}")
            for comp in comps:
                local_store(array, np.int64(slot), comp, mask)
                filled[slot] = True
                slot += 1


def _flatten_init(init: S.InitList) -> list[S.Expr]:
    out: list[S.Expr] = []
    for item in init.items:
        if isinstance(item, S.InitList):
            out.extend(_flatten_init(item))
        else:
            out.append(item)
    return out
