"""Whole structs copied into and out of shared memory, as the instructions nvcc emits.

Read from the SASS nvcc 13.0 writes for sm_90 (-O3; traces/struct_copy/ has the kernels and
their SASS): NVVM copies a struct member by member (a vector member component by component;
``half2``-like 4-byte vectors whole), and ptxas merges runs of neighbouring members of one
size into one access of 2 or 4 of them (at most 16 bytes) where it can prove the address
aligned to that access: the element's address is aligned to the largest power of two (at
most 16) dividing both the struct's size and the array's place in the window, and the run
starts at an offset aligned to its width. So ``{float x, y, z, w}`` moves as one 128-bit
access, ``{float a, b}`` as one 64-bit access, ``{float a, b, c}`` (12-byte stride) as three
32-bit ones, ``{int id; double w;}`` as a 32-bit and a 64-bit one, ``{float v[6]}`` as
three 64-bit ones and ``{double a, b}`` as one 128-bit access.

Refused, each with one line: structs with 1- or 2-byte members (whether ptxas merges their
loads depends on how the values are used next), unions, pointers or arrays of structs as
members, and a struct with padding copied between two places in memory (nvcc copies its
padding bytes too, in pieces that depend on the layout). A struct read whole from shared
memory is counted as reading every member; nvcc loads only the members the kernel uses
afterwards."""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from bankism.explain.frontend import syntax as S
from bankism.explain.simt import ctype as C
from bankism.explain.simt.alignment import power_of_two
from bankism.explain.simt.bindings import GlobalArray, MemLV, Variable
from bankism.explain.simt.ctype import CType
from bankism.explain.simt.memory import LocalArray, SharedVariable, local_load, local_store
from bankism.explain.simt.values import (
    Failure,
    Mask,
    Scalar,
    Struct,
    Value,
    Vector,
    all_known,
    flags_per_thread,
    per_thread,
    src_per_thread,
)

#: The widest shared-memory access (bytes).
_WIDEST = 16


@dataclass(frozen=True)
class Leaf:
    """One scalar of a struct: its byte offset, type, and the piece it belongs to (the
    4-byte word of a ``half2`` is one piece for two halves)."""

    offset: int
    type: CType
    piece: int


def leaves(t: CType, node: S.Node, offset: int = 0) -> list[Leaf]:
    """The scalars of struct ``t`` in order, or a Failure naming what is not modelled."""
    out: list[Leaf] = []
    if t.kind == "struct":
        if t.info is not None and t.info.definition.kind == "union":
            raise Failure(node, f"unsupported construct: a whole union {t} copied to or from shared memory "
                                "(copy its members)")
        for _, ft, at in t.fields:
            out.extend(leaves(ft, node, offset + at))
        return out
    if t.kind == "array":
        if t.elem.kind == "struct":
            raise Failure(node, f"unsupported construct: a struct holding an array of {t.elem} copied to or "
                                "from shared memory")
        for i in range(t.count):
            out.extend(leaves(t.elem, node, offset + i * t.elem.size))
        return out
    if t.kind == "vec":
        if t.size == 4 and t.elem.size < 4:  # half2, short2, char4: one 32-bit register
            return [Leaf(offset + i * t.elem.size, t.elem, offset) for i in range(t.count)]
        return [Leaf(offset + i * t.elem.size, t.elem, offset + i * t.elem.size) for i in range(t.count)]
    if t.kind in ("int", "float", "bool"):
        if t.size < 4:
            raise Failure(node, f"unsupported construct: a whole struct with {t.size}-byte members copied to "
                                "or from shared memory (whether nvcc merges those accesses depends on how "
                                "the values are used: copy its members)")
        return [Leaf(offset, t, offset)]
    raise Failure(node, f"unsupported construct: a struct holding a {t} copied to or from shared memory")


def accesses(t: CType, alignment: int, node: S.Node) -> list[tuple[int, int]]:
    """(offset, width) of each access nvcc makes to copy struct ``t`` whose address is a
    multiple of ``alignment``: runs of 2 or 4 neighbouring pieces of one size merged where
    aligned, the rest one access per piece."""
    sizes: dict[int, int] = {}
    for leaf in leaves(t, node):
        sizes[leaf.piece] = max(sizes.get(leaf.piece, 0), leaf.offset + leaf.type.size - leaf.piece)
    pieces = sorted(sizes.items())
    out = []
    i = 0
    while i < len(pieces):
        offset, size = pieces[i]
        for count in (4, 2):
            width = size * count
            run = pieces[i:i + count]
            if (width <= _WIDEST and len(run) == count and width <= alignment and offset % width == 0
                    and all(p == (offset + k * size, size) for k, p in enumerate(run))):
                out.append((offset, width))
                i += count
                break
        else:
            out.append((offset, size))
            i += 1
    return out


def padded(t: CType, node: S.Node) -> bool:
    """Whether struct ``t`` has bytes no member covers."""
    return sum(leaf.type.size for leaf in leaves(t, node)) < t.size


def designates_memory(machine: object, expr: S.Expr) -> bool:
    """Whether ``expr`` names an object in memory (an array element, ``*p``, ``p->m``, a
    member of one, a shared or global variable) rather than a local value or a call's result."""
    if isinstance(expr, S.Subscript) or (isinstance(expr, S.Unary) and expr.op == "*"):
        return True
    if isinstance(expr, S.Member):
        return expr.arrow or designates_memory(machine, expr.base)
    if isinstance(expr, S.Name):
        binding = machine._find_local(expr.name) or machine.globals.get(expr.name)
        if isinstance(binding, Variable):
            return isinstance(binding.ref, MemLV) and not isinstance(binding.ref.region, LocalArray)
        return isinstance(binding, SharedVariable | GlobalArray)
    return False


class StructCopies:
    """Whole-struct loads and stores on shared memory (a mixin of ``Machine``)."""

    def _copy_accesses(self, target: MemLV, mask: Mask) -> tuple[np.ndarray, list[tuple[int, int]]]:
        """The element addresses of a whole-struct access (per thread) and the accesses
        nvcc makes for it."""
        region: SharedVariable = target.region
        if target.known is not True and not all_known(target.known, mask):
            raise Failure(target.node, f"the address depends on {target.taint}, which bankism does not know")
        addresses = per_thread(np.asarray(target.offset, np.int64), self.threads) + region.base
        running = addresses[mask.arr]
        alignment = min(_WIDEST, power_of_two(target.type.size))
        for value in np.unique(running % _WIDEST):
            alignment = min(alignment, power_of_two(int(value)))
        return addresses, accesses(target.type, alignment, target.node)

    def _record_copy(self, target: MemLV, mask: Mask, op: str) -> np.ndarray:
        """Record the accesses of a whole-struct copy at ``target`` (one site per width, each
        access one warp-instruction); returns the element addresses."""
        addresses, parts = self._copy_accesses(target, mask)
        for offset, width in parts:
            lane_type = _access_type(target.type, offset, width)
            site = self._copy_node(target.node, width)
            part = MemLV(target.region, target.offset + offset, lane_type, site, target.known, target.taint)
            self.record_shared_access(part, mask, op)
        return addresses

    def _copy_node(self, node: S.Node, width: int) -> S.Node:
        """The site of a struct copy's accesses of one width (the access expression itself
        for the first width seen, a copy of it for the others)."""
        nodes = self.__dict__.setdefault("_copy_nodes", {})  # (node, width) -> site node
        key = (node, width)
        if key not in nodes:
            nodes[key] = node if not any(k[0] is node for k in nodes) else copy.copy(node)
        return nodes[key]

    def check_memory_copy(self, target: MemLV, source: object, expr: S.Assign) -> None:
        """``a[i] = b[j]`` of a struct with padding, where either side is shared memory:
        refused (nvcc copies the padding bytes too, in pieces not modelled)."""
        regions = (target.region, getattr(source, "region", None))
        if any(isinstance(r, SharedVariable) for r in regions) and padded(target.type, expr):
            raise Failure(expr, f"unsupported construct: a {target.type} with padding copied between two "
                                "places in memory (nvcc copies the padding too, in pieces not modelled: copy "
                                "its members, or through a local variable)")

    def shared_struct_store(self, target: MemLV, value: Struct, mask: Mask, node: S.Node) -> None:
        """``s[i] = v`` with ``v`` a whole struct: its accesses recorded, its scalars written."""
        addresses = self._record_copy(target, mask, "store")
        lanes = mask.arr
        for leaf in leaves(target.type, node):
            scalar = self._leaf_value(value, leaf.offset, node)
            data = per_thread(scalar.data, self.threads)[lanes]
            known = flags_per_thread(scalar.known, self.threads)[lanes]
            src = src_per_thread(scalar.src, self.threads)[lanes]
            self.store.store(addresses[lanes] + leaf.offset, leaf.type, data, known, src)

    def shared_struct_load(self, target: MemLV, mask: Mask) -> Struct:
        """A whole struct read from shared memory: its accesses recorded, its value built
        from what each scalar's bytes hold."""
        addresses = self._record_copy(target, mask, "load")
        safe = np.where(mask.arr, addresses, target.region.base)
        return self._build(target.type, safe, 0)

    def _build(self, t: CType, addresses: np.ndarray, offset: int) -> Value | LocalArray:
        if t.kind == "struct":
            return Struct(t, {name: self._build(ft, addresses, offset + at) for name, ft, at in t.fields})
        if t.kind == "array":
            array = LocalArray("(member)", t, self.threads)
            full = Mask(np.ones(self.threads, bool), True, False)
            step = t.scalar.size
            for slot in range(t.size // step):
                element = self._build(t.scalar, addresses, offset + slot * step)
                local_store(array, np.int64(slot), element, full)
            return array
        if t.kind == "vec":
            step = t.elem.size
            return Vector(t, [self._build(t.elem, addresses, offset + i * step) for i in range(t.count)])
        data, known, src = self.store.load(addresses + offset, t)
        return Scalar(t, data, known, src, None if known.all() else "values in shared memory")

    def _leaf_value(self, value: Value | LocalArray, offset: int, node: S.Node) -> Scalar:
        """The scalar at byte ``offset`` of a struct value."""
        t = value.type
        if isinstance(value, Scalar):
            return value
        if isinstance(value, Struct):
            for name, ft, at in t.fields:
                if at <= offset < at + ft.size:
                    member = value.fields.get(name)
                    if member is None:
                        raise Failure(node, f"member {name} is used before it has a value")
                    return self._leaf_value(member, offset - at, node)
        if isinstance(value, Vector):
            return value.comps[offset // t.elem.size]
        if isinstance(value, LocalArray):
            full = Mask(np.ones(self.threads, bool), True, False)
            return local_load(value, np.int64(offset // value.scalar.size), value.scalar, full)
        raise Failure(node, f"unsupported construct: {t} in a struct copied to shared memory")


def _access_type(t: CType, offset: int, width: int) -> CType:
    """The type one access of a struct copy moves: the member there, or a vector of its
    scalars (``float4`` for four floats, ``double2`` for two doubles)."""
    scalar = _scalar_at(t, offset)
    if width == scalar.size:
        return scalar
    count = width // scalar.size
    names = {"float": "float", "double": "double", "int": "int", "unsigned int": "uint", "long": "long",
             "unsigned long": "ulong", "long long": "longlong", "unsigned long long": "ulonglong"}
    named = C.VECTORS.get(f"{names.get(scalar.name, '')}{count}")
    if named is not None and named.size == width:
        return named
    return CType(f"{count} x {scalar}", "vec", width, width, None, scalar.signed, 0, scalar, count)


def _scalar_at(t: CType, offset: int) -> CType:
    while t.kind != "int" and t.kind != "float" and t.kind != "bool":
        if t.kind == "struct":
            name, ft, at = next(f for f in t.fields if f[2] <= offset < f[2] + f[1].size)
            t, offset = ft, offset - at
        elif t.kind == "vec" and t.size == 4 and t.elem.size < 4:
            return C.UINT  # half2-like: one 32-bit word
        else:
            t, offset = t.elem, offset % t.elem.size
    return t
