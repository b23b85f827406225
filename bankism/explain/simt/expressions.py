"""Expressions of the SIMT interpreter: names, literals, members, operators, casts,
``sizeof`` and conditionals, evaluated per thread with C semantics."""

from __future__ import annotations

from contextlib import nullcontext

import numpy as np

from bankism.explain.cuda.registry import BUILTINS
from bankism.explain.frontend import syntax as S
from bankism.explain.simt import ctype as C
from bankism.explain.simt.bindings import GlobalArray, MemLV, TypeAlias, Variable, VarLV
from bankism.explain.simt.ctype import CType
from bankism.explain.simt.memory import SHARED_WINDOW, GlobalMatrix, LocalArray, SharedVariable
from bankism.explain.simt.records import method_path
from bankism.explain.simt.struct_copy import designates_memory
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
    Value,
    Vector,
    all_known,
    and_flags,
    binary,
    bit_not,
    constant,
    convert,
    forget,
    logical_not,
    negate,
    per_thread,
    select,
    settled,
    unknown,
)

_COMPONENTS = {"x": 0, "y": 1, "z": 2, "w": 3}
_BUILTIN_VECTORS = ("threadIdx", "blockIdx", "blockDim", "gridDim")


class Expressions:
    """Expression evaluation (a mixin of ``Machine``)."""

    def eval(self, expr: S.Expr, mask: Mask) -> Value:
        """The value of ``expr`` (an rvalue) in the threads of ``mask``."""
        return self._expr[type(expr)](expr, mask)

    def truth(self, expr: S.Expr, mask: Mask) -> np.ndarray | np.bool_:
        """A condition as bool per thread; unknown values in running threads are an error."""
        value = self.eval(expr, mask)
        return self.truth_of(value, expr, mask)

    def truth_of(self, value: Value, expr: S.Node, mask: Mask) -> np.ndarray | np.bool_:
        if isinstance(value, Pointer):
            return np.bool_(True)
        if not isinstance(value, Scalar):
            raise Failure(expr, f"a {value.type} used as a condition")
        if not all_known(value.known, mask):
            raise Failure(expr, f"the condition depends on {value.taint}, which bankism does not know")
        return value.data != 0

    def _literal(self, expr: S.Literal, mask: Mask) -> Value:
        cached = self._constants.get(expr)
        if cached is None:
            if expr.type_name == "string":
                cached = constant(C.INT, 0)
            elif expr.type_name == "nullptr":
                cached = constant(C.LONG, 0)
            else:
                cached = constant(C.lookup(expr.type_name), expr.value)
            self._constants[expr] = cached  # by the node itself: a freed node's id is reused
        return cached

    def _name(self, expr: S.Name, mask: Mask) -> Value:
        try:
            binding = self.lookup(expr.name, expr)
        except Failure:
            if not expr.scope and (expr.name in BUILTINS or expr.name in self.program.functions):
                return FunctionName(C.FUNCTION, expr.name)  # `reduce(fmaxf, v)`: called through later
            raise
        return self._binding_value(binding, expr, mask)

    def _binding_value(self, binding: object, expr: S.Node, mask: Mask) -> Value:
        if isinstance(binding, Variable):
            if binding.ref is not None:
                return self.load(binding.ref, mask)
            if binding.value is None:
                raise Failure(expr, f"{binding.name} is used before it has a value")
            return binding.value
        if isinstance(binding, Scalar | Vector | Pointer | Struct | Group | Closure | Functor):
            return binding
        if isinstance(binding, GlobalArray):
            if binding.type.kind == "array":
                return self._decay(binding.matrix, binding.type, np.int64(0))
            return self.load(MemLV(binding.matrix, np.int64(0), binding.type, expr), mask)
        if isinstance(binding, SharedVariable | LocalArray):
            if binding.type.kind == "array":
                return self._decay(binding, binding.type, np.int64(0))
            return self.load(MemLV(binding, np.int64(0), binding.type, expr), mask)
        if isinstance(binding, TypeAlias):
            raise Failure(expr, f"type {binding.type} used as a value")
        raise Failure(expr, "unsupported construct: this name cannot be used as a value")

    def _decay(self, region: object, t: CType, offset: np.ndarray | np.generic, known: object = True,
               taint: str | None = None) -> Value:
        """An array designator as a pointer to its first element (C's array-to-pointer decay)."""
        known = settled(known)
        taint = None if known is True else taint
        if t.kind == "array":
            return Pointer(C.pointer_to(t.elem), region, offset, known, taint)
        return Pointer(C.pointer_to(t), region, offset, known, taint)

    def _member_value(self, expr: S.Member, mask: Mask) -> Value:
        if isinstance(expr.base, S.Name) and expr.base.name in _BUILTIN_VECTORS and not expr.arrow:
            binding = self._find_local(expr.base.name)
            if binding is None:
                vector = self.builtin_variables[expr.base.name]
                return vector.comps[self._component(expr, vector.type)]
        return self.load(self.lvalue(expr, mask), mask)

    def _find_local(self, name: str) -> object | None:
        for scope in reversed(self.frame.scopes):
            if name in scope:
                return scope[name]
        return None

    def _component(self, expr: S.Member, t: CType) -> int:
        index = _COMPONENTS.get(expr.field)
        if t.kind != "vec" or index is None or index >= t.count:
            raise Failure(expr, f"unsupported construct: member .{expr.field} of {t}")
        return index

    def _load_expr(self, expr: S.Expr, mask: Mask) -> Value:
        return self.load(self.lvalue(expr, mask), mask)

    def _this(self, expr: S.This, mask: Mask) -> Value:
        raise Failure(expr, "unsupported construct: `this` used as a pointer value "
                            "(use this->member or *this)")

    def _null_test(self, pointer: Pointer, equal: bool, expr: S.Node) -> Scalar:
        """``p == nullptr`` / ``p != NULL``: shared and local arrays are never null; whether a
        global pointer is null is known when the launch passes nullptr or -D gives it (0: null), else
        not (a kernel may be given nullptr)."""
        if pointer.region is None:
            return constant(C.BOOL, 1 if equal else 0)
        if isinstance(pointer.region, GlobalMatrix) and pointer.region.null is not None:
            return constant(C.BOOL, 1 if pointer.region.null == equal else 0)
        if isinstance(pointer.region, GlobalMatrix):
            name = pointer.region.name
            why = f"whether pointer {name} is null (give -D {name}=0 for nullptr, -D {name}=1 for another)"
            return Scalar(C.BOOL, np.bool_(not equal), False, None, why)
        return constant(C.BOOL, 0 if equal else 1)

    # --- operators --------------------------------------------------------------------------

    def _unary(self, expr: S.Unary, mask: Mask) -> Value:
        op = expr.op
        if op == "*":
            return self.load(self.lvalue(expr, mask), mask)
        if op == "&":
            target = self.lvalue(expr.operand, mask)
            if not isinstance(target, MemLV):
                return self.local_address(target, expr, mask)
            known = settled(target.known)
            return Pointer(C.pointer_to(target.type), target.region, target.offset, known,
                           None if known is True else target.taint)
        value = self.eval(expr.operand, mask)
        if not isinstance(value, Scalar):
            if op == "!" and isinstance(value, Pointer):
                return self._null_test(value, True, expr)
            if isinstance(value, Struct):
                return self.struct_unary(op, value, expr, mask)
            raise Failure(expr, f"operator {op} on a {value.type}")
        if op == "-":
            return negate(value)
        if op == "+":
            return convert(value, C.promote(value.type))
        if op == "!":
            return logical_not(value)
        if op == "~":
            return bit_not(value, expr)
        raise Failure(expr, f"unsupported construct: operator {op}")

    def _binary(self, expr: S.Binary, mask: Mask) -> Value:
        op = expr.op
        if op in ("&&", "||"):
            return self._logical(expr, mask)
        left = self.eval(expr.left, mask)
        right = self.eval(expr.right, mask)
        return self.apply(op, left, right, expr, mask)

    def apply(self, op: str, left: Value, right: Value, expr: S.Node, mask: Mask) -> Value:
        """``left op right`` for scalars, pointers (arithmetic, comparison) and vectors."""
        if isinstance(left, Pointer) or isinstance(right, Pointer):
            return self._pointer_op(op, left, right, expr, mask)
        if isinstance(left, Struct | Vector) or isinstance(right, Struct | Vector):
            if isinstance(left, Struct) or ("operator" + op) in self.program.functions:
                return self.struct_operator(op, left, right, expr, mask)
            pair = _half_pair_arithmetic(op, left, right, mask, expr)
            if pair is not None:
                return pair
            raise Failure(
                expr,
                f"unsupported construct: operator {op} on vector type "
                f"{(left if isinstance(left, Vector) else right).type}",
            )
        if not isinstance(left, Scalar) or not isinstance(right, Scalar):
            raise Failure(expr, f"unsupported construct: operator {op} on {left.type} and {right.type}")
        return binary(op, left, right, mask, expr)

    def _pointer_op(self, op: str, left: Value, right: Value, expr: S.Node, mask: Mask) -> Value:
        if isinstance(left, Pointer) and isinstance(right, Scalar) and op in ("+", "-"):
            return self._offset_pointer(left, right, 1 if op == "+" else -1, expr, mask)
        if isinstance(right, Pointer) and isinstance(left, Scalar) and op == "+":
            return self._offset_pointer(right, left, 1, expr, mask)
        if op in ("==", "!=") and (isinstance(left, Scalar) or isinstance(right, Scalar)):
            pointer, other = (left, right) if isinstance(left, Pointer) else (right, left)
            if (
                isinstance(other, Scalar)
                and other.type.is_integer
                and all_known(other.known, mask)
                and not np.any(other.data)
            ):
                return self._null_test(pointer, op == "==", expr)
        if isinstance(left, Pointer) and isinstance(right, Pointer):
            if left.region is not right.region:
                if op in ("==", "!="):
                    return constant(C.BOOL, int(op == "!="))
                raise Failure(expr, "unsupported construct: comparing pointers into different arrays")
            a = Scalar(C.LONG, np.asarray(left.offset, np.int64), left.known, None, left.taint)
            b = Scalar(C.LONG, np.asarray(right.offset, np.int64), right.known, None, right.taint)
            if op == "-":
                diff = binary("-", a, b, mask, expr)
                return binary("/", diff, constant(C.LONG, left.type.elem.size), mask, expr)
            if op in ("==", "!=", "<", ">", "<=", ">="):
                return binary(op, a, b, mask, expr)
        raise Failure(expr, f"unsupported construct: operator {op} on pointers")

    def _offset_pointer(self, pointer: Pointer, index: Value, sign: int, expr: S.Node, mask: Mask) -> Pointer:
        if not isinstance(index, Scalar) or not index.type.is_integer:
            raise Failure(expr, "pointer offset must be an integer")
        known = and_flags(pointer.known, index.known)
        if not all_known(index.known, mask) and not isinstance(pointer.region, GlobalMatrix | SharedVariable):
            raise Failure(expr, f"the address depends on {index.taint}, which bankism does not know")
        step = pointer.type.elem.size
        if step == 0:
            raise Failure(expr, "arithmetic on a pointer to an incomplete or zero-size type")
        delta = np.asarray(index.data).astype(np.int64) * (sign * step)
        offset = np.asarray(pointer.offset, np.int64) + delta
        return Pointer(
            pointer.type,
            pointer.region,
            offset if offset.ndim else offset[()],
            known,
            pointer.taint or (index.taint if known is not True else None),
        )

    def _logical(self, expr: S.Binary, mask: Mask) -> Value:
        """``&&`` and ``||`` with short-circuit masks; where the left side is not known, the
        right side runs as maybe, and the result is known only where one side decides it."""
        is_and = expr.op == "&&"
        n = self.threads
        left, left_unknown, why = self.truth_parts(expr.left, mask)
        left = per_thread_bool(left, n)
        lu = left_unknown if left_unknown is not None else np.zeros(n, bool)
        need = mask.arr & ((left | lu) if is_and else (~left | lu))
        rest = Mask.of(need)
        right, right_unknown, why_right = np.zeros(n, bool), None, ""
        if not rest.none:
            with self.maybe_running(left_unknown, why) if left_unknown is not None else nullcontext():
                right, right_unknown, why_right = self.truth_parts(expr.right, rest)
        right = per_thread_bool(right, n) & need
        result = (left & right) if is_and else (left | right)
        if left_unknown is None and right_unknown is None:
            return Scalar(C.BOOL, result)
        ru = (right_unknown if right_unknown is not None else np.zeros(n, bool)) & need
        if is_and:
            known = (~lu & (~left | ~ru)) | (~ru & need & ~right)
        else:
            known = (~lu & (left | ~ru)) | (~ru & need & right)
        return Scalar(C.BOOL, result, known, None, why or why_right)

    def _conditional(self, expr: S.Conditional, mask: Mask) -> Value:
        condition, unknown_lanes, why = self.truth_parts(expr.condition, mask)
        if unknown_lanes is not None:
            return self._unsure_conditional(expr, condition, unknown_lanes, why, mask)
        if not isinstance(condition, np.ndarray):
            return self.eval(expr.then if condition else expr.otherwise, mask)
        then_mask = mask & condition
        else_mask = mask & np.logical_not(condition)
        if else_mask.none:
            return self.eval(expr.then, mask)
        if then_mask.none:
            return self.eval(expr.otherwise, mask)
        a = self.eval(expr.then, then_mask)
        b = self.eval(expr.otherwise, else_mask)
        if isinstance(a, Scalar) and isinstance(b, Scalar):
            t = C.common_type(a.type, b.type)
            a, b = convert(a, t), convert(b, t)
        return select(Mask.of(condition), a, b, expr)

    def _unsure_conditional(
        self, expr: S.Conditional, condition: np.ndarray, unknown_lanes: np.ndarray, why: str, mask: Mask
    ) -> Value:
        """``c ? a : b`` where ``c`` is not known in some lanes: both sides run there (as maybe),
        and the result is not known there."""
        then_mask = mask & (condition | unknown_lanes)
        else_mask = mask & (np.logical_not(condition) | unknown_lanes)
        with self.maybe_running(unknown_lanes, why):
            a = self.eval(expr.then, then_mask) if not then_mask.none else None
            b = self.eval(expr.otherwise, else_mask) if not else_mask.none else None
        if a is None or b is None:
            return forget(a if b is None else b, unknown_lanes, why)
        if isinstance(a, Scalar) and isinstance(b, Scalar):
            t = C.common_type(a.type, b.type)
            a, b = convert(a, t), convert(b, t)
        return forget(
            select(Mask.of(per_thread_bool(condition, self.threads)), a, b, expr), unknown_lanes, why
        )

    def _comma(self, expr: S.Comma, mask: Mask) -> Value:
        self.eval(expr.left, mask)
        return self.eval(expr.right, mask)

    def _assign(self, expr: S.Assign, mask: Mask) -> Value:
        target = self.lvalue(expr.target, mask)
        if isinstance(target, MemLV) and target.type.kind == "struct" and designates_memory(self, expr.value):
            source = self.lvalue(expr.value, mask)  # memory to memory: refused for padded structs
            self.check_memory_copy(target, source, expr)
            value = self.load(source, mask)
        elif isinstance(expr.value, S.InitList):  # `v = {a, b};`, `acc = {};`
            value = self.braced(self.lvalue_type(target), expr.value, mask, expr)
        else:
            value = self.eval(expr.value, mask)
        if expr.op != "=":
            t = self.lvalue_type(target)
            if t.kind == "struct" and method_path(t, "operator" + expr.op, 1) is not None:
                # `a += b` on a struct with its own operator+= (which updates *this)
                method, this, owner = self.method_target(t, target, "operator" + expr.op, 1, expr)
                frame = self.invoke(method, expr, mask, values=[value], this=this, this_type=owner,
                                    base_scope=owner.info.bindings)
                return self.load(target, mask) if frame.result is None else frame.result
            current = self.load(target, mask)
            value = self.apply(expr.op[:-1], current, value, expr, mask)
        return self.store_to(target, value, mask, expr)

    def _incdec(self, expr: S.IncDec, mask: Mask) -> Value:
        target = self.lvalue(expr.target, mask)
        current = self.load(target, mask)
        one = constant(C.INT, 1)
        updated = self.apply("+" if expr.op == "++" else "-", current, one, expr, mask)
        stored = self.store_to(target, updated, mask, expr)
        return stored if expr.prefix else current

    def _sizeof(self, expr: S.SizeOf, mask: Mask) -> Value:
        if isinstance(expr.target, S.TypeName):
            t = self.resolve_type(expr.target, mask)
        else:
            t = self._static_type(expr.target, mask)
        return constant(C.ULONG, t.size)

    def _static_type(self, expr: S.Expr, mask: Mask) -> CType:
        if isinstance(expr, S.Name) and self._find_local(expr.name) is None:
            named = C.lookup(expr.name)
            if named is not None:
                return named
        if isinstance(expr, S.Name):
            for scope in reversed(self.frame.scopes):
                if isinstance(scope.get(expr.name), TypeAlias):
                    return scope[expr.name].type
            binding = self.lookup(expr.name, expr)
            if isinstance(binding, SharedVariable | LocalArray | Variable):
                return binding.type
        value = self.eval(expr, Mask(np.zeros(self.threads, bool), False, True))
        return value.type

    def _init_list_value(self, expr: S.InitList, mask: Mask) -> Value:
        raise Failure(expr, "unsupported construct: brace list used as a value")

    def _cast(self, expr: S.Cast, mask: Mask) -> Value:
        if expr.target.reference:
            return self.load(self.lvalue(expr, mask), mask)
        t = self.resolve_type(expr.target, mask)
        value = self.eval(expr.value, mask)
        if isinstance(value, Struct) and t != value.type:
            return self.struct_conversion(value, t, expr, mask)
        if t.kind == "struct":
            return self.construct(t, [value], mask, expr)
        if t.kind == "ptr":
            if isinstance(value, Pointer):
                return Pointer(t, value.region, value.offset, value.known, value.taint)
            if isinstance(value, Scalar) and self._window_address(value, mask):
                # reinterpret_cast<T *>(__cvta_generic_to_shared(p)): a shared-window address kept in a
                # pointer for inline PTX (cp.async, ldmatrix); C never dereferences it
                offset = np.asarray(value.data).astype(np.int64)
                return Pointer(t, SHARED_WINDOW, offset if offset.ndim else np.int64(offset), value.known,
                               value.taint)
            raise Failure(expr, "unsupported construct: integer converted to a pointer")
        if t.kind == "vec":
            return self.coerce(value, t, expr)
        if not t.is_arithmetic:
            if t.kind == "void":
                return constant(C.INT, 0)
            raise Failure(expr, f"unsupported construct: cast to {t}")
        if isinstance(value, Pointer) and value.region is SHARED_WINDOW and t.is_integer:
            # the shared-window address it was made from
            return convert(Scalar(C.LONG, value.offset, value.known, None, value.taint), t)
        if isinstance(value, Pointer) and isinstance(value.region, GlobalMatrix) and t.is_integer:
            # `reinterpret_cast<size_t>(p) % 16` (an alignment test): where global memory lies is
            # not known, so neither is the address
            return unknown(t, f"the address of global memory ({value.region.name})")
        if isinstance(value, Pointer) and isinstance(value.region, SharedVariable) and t.is_integer:
            # a generic address of shared memory (`reinterpret_cast<uint64_t>(&tile[0])`, a wgmma descriptor's
            # start address): where the shared window lies in the generic space is not known
            return unknown(t, f"the generic address of shared memory ({value.region.name})")
        if expr.style == "reinterpret":
            raise Failure(expr, "unsupported construct: reinterpret_cast to a non-pointer type")
        return self.coerce(value, t, expr)

    def _window_address(self, value: Scalar, mask: Mask) -> bool:
        """Whether a 64-bit integer is, in every running thread, a known address inside the block's
        shared arrays (what ``__cvta_generic_to_shared`` gives), so that a pointer may keep it."""
        if not (value.type.is_integer and value.type.size == 8) or not all_known(value.known, mask):
            return False
        end = max((array.base + array.size for array in self.shared_arrays), default=0)
        running = per_thread(np.asarray(value.data).astype(np.int64), self.threads)[mask.arr]
        return bool(running.size) and bool(((running >= 0) & (running < end)).all())

    def struct_unary(self, op: str, value: Struct, expr: S.Node, mask: Mask) -> Value:
        methods = [
            m for m in value.type.info.definition.methods if m.name == "operator" + op and not m.params
        ]
        if not methods:
            raise Failure(expr, f"unsupported construct: operator {op} on {value.type}")
        temporary = Variable("(temporary)", value.type, value)
        frame = self.invoke(
            methods[0],
            expr,
            mask,
            values=[],
            this=VarLV(temporary),
            this_type=value.type,
            base_scope=value.type.info.bindings,
        )
        return self.call_result(frame, expr, mask)

    def _make_vector(self, t: CType, comps: list[Value], node: S.Node) -> Vector:
        if len(comps) != t.count:
            raise Failure(node, f"{t} needs {t.count} components, got {len(comps)}")
        return Vector(t, [self.coerce(c, t.elem, node) for c in comps])


def per_thread_bool(data: np.ndarray | np.bool_, size: int) -> np.ndarray:
    """A condition as one bool per thread."""
    if isinstance(data, np.ndarray) and data.shape == (size,):
        return data.astype(bool, copy=False)
    return np.full(size, bool(data))


#: The 16-bit pair types whose + - * / cuda_fp16.h / cuda_bf16.h define component-wise.
_HALF_PAIRS = ("__half2", "__nv_bfloat162")


def _half_pair_arithmetic(op: str, left: Value, right: Value, mask: Mask, expr: S.Node) -> Vector | None:
    """``a op b`` on two half2 (or two bfloat162) values: each half computed in float and
    rounded to the element type, as __hadd2/__hmul2... (None when this is not that case)."""
    if op not in ("+", "-", "*", "/") or not isinstance(left, Vector) or not isinstance(right, Vector):
        return None
    t = left.type
    if t.name not in _HALF_PAIRS or right.type.name != t.name:
        return None
    comps = []
    for a, b in zip(left.comps, right.comps, strict=True):
        result = binary(op, convert(a, C.FLOAT), convert(b, C.FLOAT), mask, expr)
        comps.append(convert(result, t.elem))
    return Vector(t, comps)
