"""``memset(dst, byte, n)`` in device code on per-thread objects (a kernel clearing its
register tile: ``memset(acc, 0, sizeof(acc))``): every element of a local array, or a part of
one from a pointer into it, or a local scalar or vector variable, gets ``n`` bytes of ``byte``.
On shared memory nvcc emits real stores for it, which are not modelled: refused in one line.
Also the bytes of a number or vector read back as another type (``memcpy`` as a bit cast)."""

from __future__ import annotations

import numpy as np

from bankism.explain.cuda.registry import BUILTINS
from bankism.explain.frontend import syntax as S
from bankism.explain.simt import ctype as C
from bankism.explain.simt.bindings import MemLV
from bankism.explain.simt.ctype import CType
from bankism.explain.simt.machine import SimtMachine
from bankism.explain.simt.memory import GlobalMatrix, LocalArray, local_store
from bankism.explain.simt.values import (
    Failure,
    Mask,
    Pointer,
    Scalar,
    Value,
    Vector,
    all_known,
    constant,
    flags_per_thread,
    per_thread,
)


def filled(t: CType, byte: int, node: S.Node) -> Value:
    """The value of an object of type ``t`` whose every byte is ``byte``."""
    if t.kind == "vec":
        return Vector(t, [filled(t.elem, byte, node) for _ in range(t.count)])
    if t.kind not in ("int", "float", "bool"):
        raise Failure(node, f"unsupported construct: memset() of a {t}")
    bits = np.full(t.size, byte, np.uint8).view(t.dtype)[0]
    return Scalar(t, bits)


def value_bytes(value: Value, threads: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(bytes, known) of a number or vector as the GPU holds it: (threads, size) arrays; None
    for anything else (a pointer, a struct)."""
    comps = value.comps if isinstance(value, Vector) else [value]
    if not all(isinstance(c, Scalar) for c in comps):
        return None
    parts, known = [], []
    for c in comps:
        data = np.ascontiguousarray(per_thread(c.data, threads).astype(c.type.dtype))
        parts.append(data.view(np.uint8).reshape(threads, c.type.size))
        known.append(np.repeat(flags_per_thread(c.known, threads)[:, None], c.type.size, axis=1))
    return np.concatenate(parts, axis=1), np.concatenate(known, axis=1)


def value_from_bytes(t: CType, data: np.ndarray, known: np.ndarray, taint: str | None, node: S.Node) -> Value:
    """The value of type ``t`` (a number or vector) whose bytes are ``data`` (threads, t.size)."""
    if t.kind == "vec":
        size = t.elem.size
        parts = [slice(i * size, (i + 1) * size) for i in range(t.count)]
        return Vector(t, [value_from_bytes(t.elem, data[:, p], known[:, p], taint, node) for p in parts])
    if t.kind not in ("int", "float") or data.shape[1] != t.size:
        raise Failure(node, f"unsupported construct: bytes read back as a {t}")
    ok = known.all(axis=1)
    return Scalar(t, np.ascontiguousarray(data).view(t.dtype).reshape(-1).copy(), ok, None,
                  None if ok.all() else taint or "values not known")


def _memset(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    if len(expr.args) != 3:
        raise Failure(expr, "memset() takes a destination, a byte value and a size")
    byte = machine.integer_constant(expr.args[1], mask, "memset value") & 0xFF
    size = machine.integer_constant(expr.args[2], mask, "memset size")
    dst = expr.args[0]
    if isinstance(dst, S.Unary) and dst.op == "&":
        target = machine.lvalue(dst.operand, mask)
        if not isinstance(target, MemLV):  # a local variable: the whole of it
            t = machine.lvalue_type(target)
            if size != t.size:
                raise Failure(expr, "unsupported construct: memset() of part of a variable")
            machine.store_to(target, filled(t, byte, expr), mask, expr)
            return constant(C.INT, 0)
        pointer = Pointer(C.pointer_to(target.type), target.region, target.offset, target.known, target.taint)
    else:
        pointer = machine.eval(dst, mask)
    if not isinstance(pointer, Pointer):
        raise Failure(expr, "memset() needs a pointer")
    array = pointer.region
    if isinstance(array, GlobalMatrix):
        raise Failure(expr, "unsupported construct: memset() of global memory")
    if not isinstance(array, LocalArray):
        raise Failure(expr, "unsupported construct: memset() of shared memory (the stores nvcc emits for "
                            "it are not modelled)")
    offsets = np.asarray(pointer.offset)
    if not all_known(pointer.known, mask) or (offsets.ndim and not (offsets == offsets.flat[0]).all()):
        raise Failure(expr, "unsupported construct: memset() at a place that differs between threads")
    start, unit = int(offsets.flat[0]), array.unit
    if start % unit.size or size % unit.size or start < 0 or start + size > array.type.size:
        raise Failure(expr, f"unsupported construct: memset() of {size} bytes at byte {start} of "
                            f"{array.name}")
    value = filled(unit, byte, expr)
    for slot in range(start // unit.size, (start + size) // unit.size):
        local_store(array, np.int64(slot), value, mask)
    return constant(C.INT, 0)


BUILTINS["memset"] = _memset
