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


def _flatten_init(init: S.InitList) -> list[S.Expr]:
    out: list[S.Expr] = []
    for item in init.items:
        if isinstance(item, S.InitList):
            out.extend(_flatten_init(item))
        else:
            out.append(item)
    return out
