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
