"""References and addresses of locals in the SIMT interpreter: what a reference parameter or
variable binds to (an object, or a temporary holding an expression's value, as C++ binds a
``const T&`` to ``a + b``), and ``&v`` / ``&v.x`` of a local variable used as an array (the
variable moves into a per-thread local array, which a pointer can index)."""

from __future__ import annotations

import numpy as np

from bankism.explain.frontend import syntax as S
from bankism.explain.simt import ctype as C
from bankism.explain.simt.bindings import CompLV, MemLV, Variable, VarLV
from bankism.explain.simt.ctype import CType
from bankism.explain.simt.memory import LocalArray, local_store
from bankism.explain.simt.values import Failure, Mask, Pointer, Scalar, Struct, Value, Vector

#: Expressions that designate an object (a reference binds to the object itself).
_OBJECTS = (S.Name, S.Subscript, S.Member, S.Call, S.MethodCall, S.This)


def designates_object(expr: S.Expr) -> bool:
    """Whether ``expr`` is an lvalue a reference binds to directly (not a temporary)."""
    return (isinstance(expr, _OBJECTS) or (isinstance(expr, S.Unary) and expr.op == "*")
            or (isinstance(expr, S.Cast) and expr.target.reference))  # reinterpret_cast<T(&)[N]>(a)


class References:
    """Reference binding and addresses of locals (a mixin of ``Machine``)."""

    def bind_reference(self, expr: S.Expr, declared: S.TypeName, mask: Mask, t: CType | None = None,
                       value: Value | None = None) -> object:
        """The lvalue a reference of type ``declared`` (``t`` once resolved) binds to: the
        object ``expr`` designates, or, for a ``const T&``, a temporary holding the value of
        an expression that is not an object (or not one of type T); ``value`` is that value
        when the caller evaluated it already."""
        if value is not None:
            pass
        elif designates_object(expr):
            target = self.lvalue(expr, mask)
            if not declared.const or t is None or declared.base == "auto":
                return target
            held = self.lvalue_type(target)
            if held == t or held.kind == "struct" or t.kind not in ("int", "float", "bool", "ptr", "vec"):
                return target
            value = self.load(target, mask)
        elif not declared.const:
            raise Failure(expr, "unsupported construct: a non-const reference bound to a value that is not "
                                "an object")
        else:
            value = self.eval(expr, mask)
        if t is not None and declared.base != "auto":
            value = self.coerce(value, t, expr)
        return VarLV(Variable("(temporary)", value.type, self.copy_value(value)))

    def argument_value(self, expr: S.Expr, mask: Mask) -> Value | None:
        """The value of an argument passed to a reference parameter when it is not an object
        (for template deduction); None when it designates one."""
        return None if designates_object(expr) else self.eval(expr, mask)

    def local_address(self, target: VarLV | CompLV, expr: S.Node, mask: Mask) -> Pointer:
        """``&v`` or ``&v.x`` of a local scalar or vector variable: the variable moves into a
        per-thread local array (its value copied in), so a pointer can index its components."""
        base, component = (target, 0) if isinstance(target, VarLV) else (target.base, target.index)
        if isinstance(base, VarLV) and isinstance(component, str) and base.var.type.kind == "struct":
            return self._struct_member_address(base.var, component, expr)
        if not isinstance(base, VarLV) or not isinstance(component, int):
            raise Failure(expr, "unsupported construct: address of a member of a local struct")
        var = base.var
        t = var.type
        if t.kind == "sync" and t.size > 0 and component == 0:  # an opaque object (a TMA descriptor): its
            array = self._move_to_memory(var, C.UCHAR, [None] * t.size, expr)  # bytes, none of them known
            return Pointer(C.pointer_to(t), array, np.int64(0))
        padded = t.kind == "vec" and t.size != t.elem.size * t.count
        if t.kind not in ("int", "float", "bool", "vec") or padded:
            raise Failure(expr, f"unsupported construct: address of a local {t}")
        scalar = t.elem if t.kind == "vec" else t
        if t.kind == "vec":
            values = var.value.comps if isinstance(var.value, Vector) else [None] * t.count
        else:
            values = [var.value]
        array = self._move_to_memory(var, scalar, values, expr)
        return Pointer(C.pointer_to(scalar), array, np.int64(component * scalar.size))

    def _struct_member_address(self, var: Variable, member: str, expr: S.Node) -> Pointer:
        """``&v.x`` of a local struct whose members are scalars of one type laid end to end
        (``struct half4 { half x, y, z, w; }``): the struct moves into a per-thread local array
        of that type (its values copied in), so the pointer can index and reinterpret it."""
        t = var.type
        types = {ft for _, ft, _ in t.fields}
        scalar = next(iter(types)) if len(types) == 1 else None
        if (scalar is None or scalar.kind not in ("int", "float", "bool")
                or [offset for _, _, offset in t.fields] != [i * scalar.size for i in range(len(t.fields))]
                or t.size != scalar.size * len(t.fields)):
            raise Failure(expr, f"unsupported construct: address of a member of a local {t} (members of "
                                "different types or with padding)")
        fields = var.value.fields if isinstance(var.value, Struct) else {}
        array = self._move_to_memory(var, scalar, [fields.get(name) for name, _, _ in t.fields], expr)
        offset = next(offset for name, _, offset in t.fields if name == member)
        return Pointer(C.pointer_to(scalar), array, np.int64(offset))

    def _move_to_memory(self, var: Variable, scalar: CType, values: list, expr: S.Node) -> LocalArray:
        """Move the local ``var`` into a per-thread array of ``len(values)`` ``scalar`` slots,
        its known values copied in, so pointers into it can index and reinterpret it."""
        array = LocalArray(var.name, C.array_of(scalar, len(values)), self.threads)
        full = Mask(np.ones(self.threads, bool), True, False)
        for slot, value in enumerate(values):
            if isinstance(value, Scalar):
                local_store(array, np.int64(slot), value, full)
        var.value = None
        var.ref = MemLV(array, np.int64(0), var.type, expr)
        return array

