"""Per-thread objects beyond scalar arrays: local arrays of pointers (``unsigned *frags[] =
{a, b};``), one pointer variable per element, so that they are indexed by constants only."""

from __future__ import annotations

from bankism.explain.frontend import syntax as S
from bankism.explain.simt.bindings import ObjectArray
from bankism.explain.simt.ctype import CType
from bankism.explain.simt.machine import SimtMachine
from bankism.explain.simt.values import Failure, Mask


def pointer_array(machine: SimtMachine, item: S.Declarator, t: CType, mask: Mask) -> ObjectArray:
    """The local array of pointers ``item`` declares (type ``t``), set from its brace list."""
    array = ObjectArray(item.name, t)
    if item.init is None:
        return array
    if not isinstance(item.init, S.InitList) or len(item.init.items) > t.count:
        raise Failure(item, f"unsupported construct: this initializer of {item.name}")
    for slot, expr in zip(array.items, item.init.items, strict=False):
        slot.value = machine.coerce(machine.eval(expr, mask), t.elem, expr)
    return array


def struct_array(machine: SimtMachine, item: S.Declarator, t: CType, mask: Mask) -> ObjectArray:
    """The local array of structs ``item`` declares (``Acc acc[2][4];``), each element built as ``T x;``
    builds it (default member initializers, a constructor without arguments); indexed by constants."""
    if item.init is not None and not (isinstance(item.init, S.InitList) and not item.init.items):
        raise Failure(item, f"unsupported construct: this initializer of the array of structs {item.name}")
    array = ObjectArray(item.name, t)
    pending = [array]
    while pending:
        for slot in pending.pop().items:
            if isinstance(slot.value, ObjectArray):
                pending.append(slot.value)
            else:
                slot.value = machine.construct(t.scalar, [], mask, item)
    return array
