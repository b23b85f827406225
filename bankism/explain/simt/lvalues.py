"""Lvalues of the SIMT interpreter: what an expression designates, loads and stores through
it, shared-memory addresses (bounds, alignment, recording) and implicit conversions."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from bankism.explain.frontend import syntax as S
from bankism.explain.simt.bindings import (
    OBJECT_MEMBERS,
    CompLV,
    Frame,
    GlobalArray,
    LValue,
    MemLV,
    ObjectArray,
    Variable,
    VarLV,
)
from bankism.explain.simt.calls import returned_lvalue
from bankism.explain.simt.ctype import CType
from bankism.explain.simt.memory import (
    SHARED_WINDOW,
    GlobalMatrix,
    LocalArray,
    SharedVariable,
    global_load,
    local_load,
    local_slots,
    local_store,
)
from bankism.explain.simt.punning import read_as, reinterpreted, write_as
from bankism.explain.simt.values import (
    Closure,
    Failure,
    FunctionName,
    Functor,
    Group,
    Mask,
    Pointer,
    Scalar,
    Struct,
    UnknownAddress,
    Value,
    Vector,
    all_known,
    convert,
    flags_per_thread,
    forget,
    per_thread,
    select,
    src_per_thread,
    unknown,
)

#: Why C cannot read or write through a shared-window address kept in a pointer.
WINDOW_ACCESS = ("unsupported construct: memory access through a shared-window address "
                 "(__cvta_generic_to_shared) cast to a pointer: only inline PTX with a .shared address "
                 "takes it")


class Lvalues:
    """Lvalues, loads and stores (a mixin of ``Machine``)."""

    def lvalue(self, expr: S.Expr, mask: Mask) -> LValue:
        """The object ``expr`` designates (a variable, a memory location, a component)."""
        if isinstance(expr, S.Name):
            binding = self.lookup(expr.name, expr)
            if isinstance(binding, Variable):
                return binding.ref if binding.ref is not None else VarLV(binding)
            if isinstance(binding, SharedVariable | LocalArray):
                return MemLV(binding, np.int64(0), binding.type, expr)
            if isinstance(binding, GlobalArray):
                return MemLV(binding.matrix, np.int64(0), binding.type, expr)
            raise Failure(expr, f"{expr.name} cannot be assigned")
        if isinstance(expr, S.Subscript):
            base = self.eval(expr.base, mask)
            if isinstance(base, Struct) and not self.has_method(base.type, "operator[]"):
                base = self.pointer_conversion(base, expr, mask)  # the samples' SharedMemory<T>
            if isinstance(base, Struct):
                return self._struct_subscript(expr, base, mask)
            if isinstance(base, ObjectArray):
                index = self.integer_constant(expr.index, mask, "the index of an array of fragments")
                if not 0 <= index < len(base.items):
                    raise Failure(expr, f"index {index} outside an array of {len(base.items)} fragments")
                return VarLV(base.items[index])
            index = self.eval(expr.index, mask)
            if isinstance(index, Pointer) and isinstance(base, Scalar):
                base, index = index, base
            if not isinstance(base, Pointer):
                raise Failure(expr, "subscript of something that is not an array or pointer")
            return self._deref(self._offset_pointer(base, index, 1, expr, mask), expr)
        if isinstance(expr, S.Unary) and expr.op == "*":
            if isinstance(expr.operand, S.This):
                return self._this_lvalue(expr)
            pointer = self.eval(expr.operand, mask)
            if not isinstance(pointer, Pointer):
                raise Failure(expr, "dereference of something that is not a pointer")
            return self._deref(pointer, expr)
        if isinstance(expr, S.Member):
            if expr.arrow and isinstance(expr.base, S.This):
                base = self._this_lvalue(expr)
            elif expr.arrow:
                pointer = self.eval(expr.base, mask)
                if not isinstance(pointer, Pointer):
                    raise Failure(expr, "-> on something that is not a pointer")
                base = self._deref(pointer, expr)
            elif isinstance(expr.base, S.Call | S.MethodCall):
                base = self._call_lvalue(expr.base, mask)
            else:
                base = self.lvalue(expr.base, mask)
            t = self.lvalue_type(base)
            if t.kind == "struct":
                return self.member_lvalue(base, expr.field, expr)
            if t.kind in OBJECT_MEMBERS:
                return OBJECT_MEMBERS[t.kind](self, base, expr, mask)
            index = self._component(expr, t)
            return self._component_lvalue(base, index, t, expr)
        if isinstance(expr, S.Cast):
            if expr.target.reference:
                return self._reference_cast(expr, mask)
            return self.lvalue(expr.value, mask)
        if isinstance(expr, S.Call | S.MethodCall):
            return self._call_lvalue(expr, mask)
        raise Failure(expr, "unsupported construct: this expression cannot be assigned or addressed")

    def _reference_cast(self, expr: S.Cast, mask: Mask) -> LValue:
        """``reinterpret_cast<T(&)[N]>(a)``, ``reinterpret_cast<T&>(x)``: the same bytes seen as
        ``T`` (memory, local arrays included); a variable only as its own type."""
        t = self.resolve_type(expr.target, mask)
        base = self.lvalue(expr.value, mask)
        if isinstance(base, MemLV):
            return MemLV(base.region, base.offset, t, expr, base.known, base.taint)
        if self.lvalue_type(base) == t:
            return base
        raise Failure(expr, f"unsupported construct: a {self.lvalue_type(base)} variable seen as {t} "
                            "through a reference")

    def _this_lvalue(self, expr: S.Node) -> LValue:
        if self.frame.this is None:
            raise Failure(expr, "`this` outside a member function")
        return self.frame.this

    def _call_lvalue(self, expr: S.Call | S.MethodCall, mask: Mask) -> LValue:
        """The object a call designates: the reference it returned, else a temporary holding
        its value."""
        frame = self.call_frame(expr, mask)
        if not isinstance(frame, Frame):
            return VarLV(Variable("(temporary)", frame.type, frame))
        if frame.result_lvalue is not None:
            return returned_lvalue(frame, expr)
        value = self.call_result(frame, expr, mask)
        return VarLV(Variable("(temporary)", value.type, value))

    def _struct_subscript(self, expr: S.Subscript, base: Struct, mask: Mask) -> LValue:
        """``obj[i]`` on a struct: its ``operator[]`` (a returned reference is the lvalue)."""
        target = self.object_lvalue(expr.base, base, mask)
        method = self.find_method(base.type, "operator[]", 1, expr)
        frame = self.invoke(method, expr, mask, args=[expr.index], this=target, this_type=base.type,
                            base_scope=base.type.info.bindings)
        if frame.result_lvalue is not None:
            return returned_lvalue(frame, expr)
        value = self.call_result(frame, expr, mask)
        return VarLV(Variable("(temporary)", value.type, value))

    def _component_lvalue(self, base: LValue, index: int, t: CType, expr: S.Node) -> LValue:
        if isinstance(base, MemLV):
            return MemLV(base.region, base.offset + index * t.elem.size, t.elem, expr, base.known, base.taint)
        return CompLV(base, index, t.elem)

    def _deref(self, pointer: Pointer, expr: S.Node) -> MemLV:
        pointee = pointer.type.elem
        if pointee.kind == "void":
            raise Failure(expr, "dereference of a void pointer")
        if pointer.region is None:
            raise Failure(expr, "dereference of a pointer bankism does not know")
        return MemLV(pointer.region, pointer.offset, pointee, expr, pointer.known, pointer.taint)

    def lvalue_type(self, target: LValue) -> CType:
        if isinstance(target, VarLV):
            return target.var.type
        return target.type

    def load(self, target: LValue, mask: Mask) -> Value:
        """Read an lvalue; shared-memory reads are recorded as a load at the lvalue's site."""
        if isinstance(target, VarLV):
            var = target.var
            if var.value is None:
                raise Failure(None, f"{var.name} is used before it has a value")
            return var.value
        if isinstance(target, CompLV):
            base = self.load(target.base, mask)
            if isinstance(base, Struct):
                member = base.fields[target.index]
                if isinstance(member, LocalArray):
                    return self._decay(member, member.type, np.int64(0))
                if member is None:
                    raise Failure(None, f"member {target.index} is used before it has a value")
                return member
            return base.comps[target.index]
        if target.type.kind == "array":
            return self._decay(target.region, target.type, target.offset, target.known, target.taint)
        if target.type.kind == "struct":
            return self._struct_read(target, mask)
        return self.memory_read(target, mask, "load")

    def _struct_read(self, target: MemLV, mask: Mask) -> Value:
        """A whole struct read from memory: member by member from global memory (unknown
        values); from shared memory as the accesses nvcc makes (struct_copy.py)."""
        if isinstance(target.region, SharedVariable):
            return self.shared_struct_load(target, mask)
        fields = {}
        for name, ft, offset in target.type.fields:
            member = MemLV(target.region, target.offset + offset, ft, target.node, target.known, target.taint)
            fields[name] = self._array_read(member, mask) if ft.kind == "array" else self.load(member, mask)
        return Struct(target.type, fields)

    def _array_read(self, target: MemLV, mask: Mask) -> LocalArray | None:
        """An array member of a struct read from global memory, as a local array of its
        elements' (unknown) values with their provenance; None for arrays of non-scalars."""
        t = target.type
        if t.scalar.kind not in ("int", "float", "bool"):
            return None
        array = LocalArray("(member)", t, self.threads)
        step = t.scalar.size
        for slot in range(t.size // step):
            element = MemLV(target.region, target.offset + slot * step, t.scalar, target.node, target.known,
                            target.taint)
            local_store(array, np.int64(slot), self.load(element, mask), mask)
        return array

    def memory_read(self, target: MemLV, mask: Mask, op: str) -> Value:
        region, t = target.region, target.type
        if region is SHARED_WINDOW:
            raise Failure(target.node, WINDOW_ACCESS)
        if isinstance(region, SharedVariable):
            try:
                addresses = self.record_shared_access(target, mask, op)
            except UnknownAddress:  # counted at a site of unknown addresses; the value is not known
                return self._per_component(t, lambda ct, off: unknown(ct, UNKNOWN_VALUE))
            return self._shared_read(addresses, t)
        if isinstance(region, GlobalMatrix):
            if target.known is not True and not all_known(target.known, mask):
                return self._per_component(t, lambda ct, off: _unknown_global(region, ct, target.taint))
            return self._per_component(t, lambda ct, off: global_load(region, target.offset + off, ct))
        if isinstance(region, LocalArray):
            if target.known is not True and not all_known(target.known, mask):
                raise Failure(
                    target.node,
                    f"the index into local array {region.name} depends on {target.taint}, "
                    "which bankism does not know",
                )
            comp = t.elem if t.kind == "vec" else t
            if comp.is_arithmetic and reinterpreted(region.unit, comp):
                if t.kind == "vec":
                    return Vector(t, [read_as(region, target.offset + i * comp.size, comp, mask, target.node)
                                      for i in range(t.count)])
                return read_as(region, target.offset, t, mask, target.node)
            slots = local_slots(region, target.offset, t, target.node)
            if t.kind == "vec":
                return Vector(t, [local_load(region, slots + i, t.elem, mask) for i in range(t.count)])
            return local_load(region, slots, t, mask)
        raise Failure(target.node, "unsupported construct: memory access through this pointer")

    def _per_component(self, t: CType, read: Callable[[CType, int], Scalar]) -> Value:
        if t.kind == "vec":
            return Vector(t, [read(t.elem, i * t.elem.size) for i in range(t.count)])
        if t.kind == "ptr":
            raise Failure(None, "unsupported construct: pointers stored in memory")
        return read(t, 0)

    def record_shared_access(
        self, target: MemLV, mask: Mask, op: str, atomic_op: str | None = None
    ) -> np.ndarray:
        """Per-thread byte addresses in the shared window; checks bounds and alignment in the
        threads that run, and records the warp-instructions at the lvalue's site."""
        region: SharedVariable = target.region
        t = target.type
        if t.kind == "vec" and t.size not in (1, 2, 4, 8, 16) and op in ("load", "store"):
            return self._record_split_vector(target, mask, op)
        if t.kind == "vec" and t.size not in (1, 2, 4, 8, 16):
            raise Failure(
                target.node,
                f"unsupported construct: {t.size}-byte {t} access to shared memory "
                "(the compiler splits it into several instructions)",
            )
        if t.kind == "ptr":
            raise Failure(target.node, "unsupported construct: pointers stored in shared memory")
        no_size = (f"extern __shared__ array {region.name} has no size: give "
                   "--dynamic-smem BYTES or launch with <<<grid, block, BYTES>>>") if region.size == 0 else ""
        also = f" (and {no_size})" if no_size else ""  # a listed access says its array has no size
        maybe = self.running_not_known(mask)
        if maybe is not None:
            self._not_counted(target, mask, op, atomic_op, maybe + also)
        if target.known is not True and not all_known(target.known, mask):
            self._not_counted(target, mask, op, atomic_op,
                              f"the addresses depend on {target.taint or 'values not known'}{also}")
        if no_size:
            raise Failure(target.node, no_size)
        offsets = per_thread(np.asarray(target.offset, np.int64), self.threads)
        running = offsets[mask.arr]
        bad = (running < 0) | (running + t.size > region.size)
        if bad.any():
            lane = int(np.flatnonzero(mask.arr)[np.argmax(bad)])
            raise Failure(
                target.node,
                f"thread {self._thread_name(lane)} accesses {region.name} at byte "
                f"{int(offsets[lane])}, outside its {region.size} bytes",
            )
        addresses = offsets + region.base
        misaligned = addresses[mask.arr] % t.size != 0 if t.size in (2, 4, 8, 16) else np.zeros(0, bool)
        if misaligned.any():
            lane = int(np.flatnonzero(mask.arr)[np.argmax(misaligned)])
            raise Failure(
                target.node,
                f"thread {self._thread_name(lane)}: {t.size}-byte access to "
                f"{region.name} at shared byte {int(addresses[lane])} is misaligned",
            )
        self.recorder.record(
            target.node,
            op,
            t,
            region,
            addresses,
            mask,
            self.context.block_index,
            atomic_op,
            self.span,
            tuple(self.call_stack),
        )
        return np.where(mask.arr, addresses, region.base) if not mask.full else addresses

    def _not_counted(self, target: MemLV, mask: Mask, op: str, atomic_op: str | None, why: str) -> None:
        """An access explain cannot count (``why``): recorded at a site of its own (listed, not counted), then
        ``UnknownAddress`` for the caller to go on without its addresses; a refusal while the repeating-loop
        probe runs (it learns from the refusal that the loop's accesses change)."""
        if self.recorder.probing:
            raise Failure(target.node, f"{why}, which bankism does not know")
        self.recorder.record_unknown(target.node, op, target.type, target.region, mask,
                                     self.context.block_index, why, atomic_op, self.span,
                                     tuple(self.call_stack))
        raise UnknownAddress(target.node, why)

    def _record_split_vector(self, target: MemLV, mask: Mask, op: str) -> np.ndarray:
        """A vector no single instruction moves (``float3``, ``double3``, ``double4``): nvcc moves it
        component by component, merging neighbours into one access as far as the address's alignment
        allows, as it copies a struct (``struct_copy``): a 12-byte-strided ``float3`` as three 32-bit
        accesses, a ``double4`` as two 128-bit ones (SASS and H100 traces of two public n-body kernels:
        three STS/LDS per float3, two STS.128/LDS.128 per double4;
        traces/surplus/public_diverse_heldout.json)."""
        addresses = self._record_copy(target, mask, op)  # type: ignore[attr-defined]
        return np.where(mask.arr, addresses, target.region.base) if not mask.full else addresses

    def _thread_name(self, lane: int) -> str:
        return f"({int(self.tx[lane])},{int(self.ty[lane])},{int(self.tz[lane])})"

    def _shared_read(self, addresses: np.ndarray, t: CType) -> Value:
        def read(ct: CType, off: int) -> Scalar:
            data, known, src = self.store.load(addresses + off, ct)
            taint = None if known.all() else "values in shared memory"
            return Scalar(ct, data, known, src, taint)

        return self._per_component(t, read)

    def store_to(self, target: LValue, value: Value, mask: Mask, node: S.Node) -> Value:
        """Write ``value`` (converted to the target's type) in the threads of ``mask``."""
        if isinstance(target, VarLV):
            var = target.var
            value = self.copy_value(self.coerce(value, var.type, node))
            stored = select(mask, value, var.value, node) if var.value is not None else value
            doubtful = self.unsure_lanes()
            if doubtful is not None and var.born_unsure is not None:
                doubtful = doubtful & ~var.born_unsure
            if doubtful is not None and (doubtful & mask.arr).any():
                stored = forget(stored, doubtful & mask.arr, self.unsure_reason())
            var.value = stored
            return value
        if isinstance(target, CompLV):
            base_type = self.lvalue_type(target.base)
            current = self.load(target.base, mask)
            if isinstance(current, Struct):
                member_type = next(ft for name, ft, _ in base_type.fields if name == target.index)
                fields = dict(current.fields)
                fields[target.index] = self.coerce(value, member_type, node)
                self.store_to(target.base, Struct(base_type, fields), mask, node)
                return fields[target.index]
            comps = list(current.comps)
            comps[target.index] = self.coerce(value, base_type.elem, node)
            self.store_to(target.base, Vector(base_type, comps), mask, node)
            return comps[target.index]
        t = target.type
        value = self.coerce(value, t, node)
        region = target.region
        if region is SHARED_WINDOW:
            raise Failure(node, WINDOW_ACCESS)
        if isinstance(region, SharedVariable):
            if isinstance(value, Struct):
                self.shared_struct_store(target, value, mask, node)
                return value
            if not isinstance(value, Scalar | Vector):
                raise Failure(node, f"unsupported construct: a {value.type} stored to shared memory")
            try:
                addresses = self.record_shared_access(target, mask, "store")
            except UnknownAddress:  # counted at a site of unknown addresses; any element may now hold it
                self.forget_shared(region)
                return value
            self._shared_write(addresses, value, t, mask)
        elif isinstance(region, LocalArray):
            if target.known is not True and not all_known(target.known, mask):
                raise Failure(
                    node,
                    f"the index into local array {region.name} depends on {target.taint}, "
                    "which bankism does not know",
                )
            doubtful = self.unsure_lanes()
            if doubtful is not None and (doubtful & mask.arr).any():
                value = forget(value, doubtful & mask.arr, self.unsure_reason())
            comp = t.elem if t.kind == "vec" else t
            if comp.is_arithmetic and reinterpreted(region.unit, comp):
                comps = value.comps if isinstance(value, Vector) else [value]
                for i, part in enumerate(comps):
                    write_as(region, target.offset + i * comp.size, part, mask, node)
                return value
            slots = local_slots(region, target.offset, t, node)
            if isinstance(value, Vector):
                for i, comp in enumerate(value.comps):
                    local_store(region, slots + i, comp, mask)
            else:
                local_store(region, slots, value, mask)
        elif not isinstance(region, GlobalMatrix):
            raise Failure(node, "unsupported construct: store through this pointer")
        return value

    def forget_shared(self, region: SharedVariable) -> None:
        """After a store or atomic at addresses not known: every element of ``region`` reads as unknown."""
        self.store.forget(region.base, region.size)

    def _shared_write(self, addresses: np.ndarray, value: Value, t: CType, mask: Mask) -> None:
        comps = value.comps if isinstance(value, Vector) else [value]
        step = t.elem.size if t.kind == "vec" else t.size
        for i, comp in enumerate(comps):
            data = per_thread(comp.data, self.threads)[mask.arr]
            known = flags_per_thread(comp.known, self.threads)[mask.arr]
            src = src_per_thread(comp.src, self.threads)[mask.arr]
            self.store.store(addresses[mask.arr] + i * step, comp.type, data, known, src)

    def coerce(self, value: Value, t: CType, node: S.Node) -> Value:
        """Implicit conversion of ``value`` to ``t`` (assignment, initialization, argument)."""
        if t.kind in ("sync", "wmma") and getattr(getattr(value, "type", None), "kind", "") == t.kind:
            return value
        if t.kind in ("group", "closure", "functor"):
            if isinstance(value, Group | Closure | Functor | FunctionName):
                return value
            raise Failure(node, f"cannot convert {value.type} to {t}")
        if isinstance(value, Struct) and value.type != t:
            return self.struct_conversion(value, t, node, Mask(np.ones(self.threads, bool), True, False))
        if t.kind == "struct":
            if isinstance(value, Struct):
                return value
            return self.construct(t, [value], Mask(np.ones(self.threads, bool), True, False), node)
        if t.kind == "vec":
            if isinstance(value, Vector) and value.type.name == t.name:
                return value
            if isinstance(value, Vector) and value.type.count == t.count:
                return Vector(t, [convert(c, t.elem) for c in value.comps])
            raise Failure(node, f"cannot convert {value.type} to {t}")
        if t.kind == "ptr":
            if isinstance(value, Pointer):
                if value.type == t:
                    return value
                return Pointer(t, value.region, value.offset, value.known, value.taint)
            if (
                isinstance(value, Scalar)
                and value.type.is_integer
                and value.known is True
                and not np.any(value.data)
            ):
                return Pointer(t, None, np.int64(0))
            raise Failure(node, f"cannot convert {value.type} to {t}")
        if t.kind == "array":
            raise Failure(node, "unsupported construct: array assignment")
        if isinstance(value, Scalar):
            return convert(value, t)
        if isinstance(value, Vector) and t.is_arithmetic:
            raise Failure(node, f"cannot convert {value.type} to {t}")
        if isinstance(value, Pointer) and t.kind in ("int", "bool"):
            raise Failure(node, "unsupported construct: pointer converted to an integer")
        raise Failure(node, f"cannot convert {value.type} to {t}")


#: What a value read at a shared address not known depends on (the data refusal's hint names it).
UNKNOWN_VALUE = "values in shared memory"


def _unknown_global(matrix: GlobalMatrix, t: CType, taint: str | None) -> Scalar:
    """A global read at an address bankism does not know: neither value nor provenance."""
    return Scalar(t, t.dtype.type(0), False, None, taint or f"values read from global memory ({matrix.name})")
