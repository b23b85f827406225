"""WMMA (``nvcuda::wmma``) in explain: fragment types (their shape and element type may be
template parameters or named constants), arrays of fragments, ``f.num_elements`` and
``f.x[i]``, and ``load_matrix_sync`` / ``store_matrix_sync`` on shared memory as the
instructions nvcc emits for them (``wmma_layouts``, read from SASS and checked on the H100);
``fill_fragment`` and ``mma_sync`` touch no memory.

Fragment values are not tracked beyond a uniform fill: a store writes values explain does
not know, except after ``fill_fragment`` with a known value and no element written since.
Fragments explain has no instruction table for (integer, sub-byte) are refused when a load
or store of one runs, naming the fragment."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bankism.arch import LANES
from bankism.explain.cuda.builtins import BUILTINS
from bankism.explain.cuda.wmma_layouts import TF32, FragmentSpec, Plan, Unmodelled, plan
from bankism.explain.frontend import syntax as S
from bankism.explain.simt import ctype as C
from bankism.explain.simt.bindings import OBJECT_MEMBERS, OBJECT_TYPES, MemLV, Variable, VarLV
from bankism.explain.simt.ctype import CType
from bankism.explain.simt.machine import SimtMachine
from bankism.explain.simt.memory import GlobalMatrix, LocalArray, SharedVariable, local_store
from bankism.explain.simt.values import (
    Failure,
    Mask,
    Pointer,
    Scalar,
    Value,
    all_known,
    constant,
    convert,
    per_thread,
    require_known_offset,
)

_USES = ("matrix_a", "matrix_b", "accumulator")
_LAYOUTS = ("row_major", "col_major")
#: Names that are WMMA tag types (a template type parameter may be bound to one).
_TAGS = (*_USES, *_LAYOUTS, "tf32", "precision::tf32")
_ELEMENT_TYPES = {"half": C.HALF, "__half": C.HALF, "float": C.FLOAT, "double": C.DOUBLE, "tf32": C.FLOAT,
                  "__nv_bfloat16": C.lookup("__nv_bfloat16"), "nv_bfloat16": C.lookup("__nv_bfloat16")}


@dataclass(frozen=True, eq=False)
class FragmentType(CType):
    """``wmma::fragment<...>``: a warp's registers; ``spec`` says which."""

    spec: FragmentSpec | None = None


class Fragment:
    """A fragment's value: a uniform fill (``fill_fragment``) or nothing known, and the
    per-thread elements ``x`` once the kernel names them."""

    __slots__ = ("type", "fill", "x")

    def __init__(self, type: FragmentType, fill: Scalar | None) -> None:
        self.type = type
        self.fill = fill
        self.x: LocalArray | None = None


def _make(spec: FragmentSpec) -> FragmentType:
    layout = f",{spec.layout}" if spec.layout else ""
    name = f"wmma::fragment<{spec.use},{spec.m},{spec.n},{spec.k},{spec.element}{layout}>"
    return FragmentType(name, "wmma", 0, 1, None, False, 0, None, 1, spec=spec)


def tag_type(text: str) -> CType | None:
    """The WMMA tag type spelled ``text`` (``wmma::row_major``, ``nvcuda::wmma::matrix_a``), else None:
    a kernel's template argument may be one."""
    name = "".join(text.split()).split("wmma::")[-1]
    return CType(name, "wmma_tag") if name in _TAGS else None


def fragment_type(machine: SimtMachine, type_name: S.TypeName) -> CType | None:
    """The type ``wmma::fragment<use, m, n, k, T[, layout]>`` denotes (its arguments may be
    template parameters or constants), a WMMA tag type (``wmma::row_major``), else None."""
    base = type_name.base
    if base in _TAGS and not type_name.args:
        return tag_type(base)
    if base != "fragment" or type_name.args is None or not (type_name.scope.endswith("wmma") or
                                                           base not in machine.program.structs):
        return None
    args = type_name.args
    if len(args) not in (5, 6):
        raise Failure(type_name, "wmma::fragment takes 5 or 6 template arguments")
    full = Mask(np.ones(machine.threads, bool), True, False)
    use = _tag(machine, args[0], _USES, "fragment use", full)
    m, n, k = (machine.template_value(a, full) for a in args[1:4])
    element = _element(machine, args[4], full)
    layout = _tag(machine, args[5], _LAYOUTS, "fragment layout", full) if len(args) == 6 else ""
    return _make(FragmentSpec(use, m, n, k, element, layout))


def _tag(machine: SimtMachine, arg: S.TypeName | S.Expr, names: tuple[str, ...], what: str,
         mask: Mask) -> str:
    name = (arg.base if isinstance(arg, S.TypeName) else getattr(arg, "name", arg.text)).split("::")[-1]
    if name not in names and isinstance(arg, S.TypeName):
        resolved = machine.resolve_type(arg, mask)        # a template type parameter
        name = resolved.name
    if name not in names:
        raise Failure(arg, f"{what} {arg.text} is not one of {', '.join(names)}")
    return name


def _element(machine: SimtMachine, arg: S.TypeName | S.Expr, mask: Mask) -> str:
    if isinstance(arg, S.TypeName) and (arg.base in TF32 or arg.text.replace(" ", "").endswith("tf32")):
        return "tf32"
    if not isinstance(arg, S.TypeName):
        arg = S.TypeName(arg.line, arg.text, getattr(arg, "name", arg.text), file=arg.file)
    return machine.resolve_type(arg, mask).name


# --- elements -------------------------------------------------------------------------------


def _member(machine: SimtMachine, base, expr: S.Member, mask: Mask):  # noqa: ANN001, ANN202
    """``f.num_elements`` (a constant) and ``f.x`` (the thread's elements, values not known
    unless the kernel wrote them or the fragment was filled)."""
    fragment = _fragment_of(machine, base, expr)
    spec = fragment.type.spec
    count = spec.num_elements
    if count is None:
        raise Failure(expr, f"unsupported construct: {expr.field} of {fragment.type}")
    if expr.field == "num_elements":
        return VarLV(Variable("num_elements", C.INT, constant(C.INT, count)))
    if expr.field != "x":
        raise Failure(expr, f"unsupported construct: member .{expr.field} of a WMMA fragment")
    if fragment.x is None:
        element = _ELEMENT_TYPES.get(spec.element) or C.FLOAT
        fragment.x = LocalArray(f"{expr.base.text}.x", C.array_of(element, count), machine.threads)
        if fragment.fill is not None:
            everyone = Mask.of(np.ones(machine.threads, bool))
            for slot in range(count):
                local_store(fragment.x, np.int64(slot), fragment.fill, everyone)
    fragment.fill = None  # elements may be written from here on: a store no longer writes the fill
    return MemLV(fragment.x, np.int64(0), fragment.x.type, expr)


def _fragment_of(machine: SimtMachine, target, node: S.Node) -> Fragment:  # noqa: ANN001
    if not isinstance(target, VarLV) or not isinstance(target.var.type, FragmentType):
        raise Failure(node, "expected a wmma::fragment variable")
    if not isinstance(target.var.value, Fragment):
        target.var.value = Fragment(target.var.type, None)
    return target.var.value


OBJECT_MEMBERS["wmma"] = _member
OBJECT_TYPES.append(fragment_type)


# --- the built-ins --------------------------------------------------------------------------


def _fragment_target(machine: SimtMachine, expr: S.Expr, mask: Mask) -> tuple[Variable, FragmentType]:
    target = machine.lvalue(expr, mask)
    if not isinstance(target, VarLV) or not isinstance(target.var.type, FragmentType):
        raise Failure(expr, "expected a wmma::fragment variable")
    return target.var, target.var.type


def _layout_argument(expr: S.Call, index: int) -> str:
    if len(expr.args) <= index:
        return ""
    arg = expr.args[index]
    name = arg.name if isinstance(arg, S.Name) else arg.text.split("::")[-1].strip()
    if name not in ("mem_row_major", "mem_col_major"):
        raise Failure(arg, "the layout must be wmma::mem_row_major or wmma::mem_col_major")
    return name


def _ldm(machine: SimtMachine, expr: S.Expr, mask: Mask) -> int:
    value = machine.eval(expr, mask)
    if not isinstance(value, Scalar) or not value.type.is_integer or not all_known(value.known, mask):
        raise Failure(expr, "ldm must be a known integer")
    data = per_thread(np.asarray(value.data, np.int64), machine.threads)[mask.arr]
    if data.size and not (data == data[0]).all():
        raise Failure(expr, "ldm differs between threads")
    return int(data[0]) if data.size else 0


def _transfer(machine: SimtMachine, expr: S.Call, mask: Mask, load: bool) -> Value:
    """load_matrix_sync(frag, ptr, ldm[, layout]) / store_matrix_sync(ptr, frag, ldm, layout)."""
    if len(expr.args) not in (3, 4):
        raise Failure(expr, f"{expr.function}() takes 3 or 4 arguments")
    frag_expr, pointer_expr = (expr.args[0], expr.args[1]) if load else (expr.args[1], expr.args[0])
    variable, t = _fragment_target(machine, frag_expr, mask)
    spec = t.spec
    layout = _layout_argument(expr, 3)
    if spec.use == "accumulator" and not layout:
        raise Failure(expr, f"{expr.function}() of an accumulator needs wmma::mem_row_major or mem_col_major")
    pointer = machine.eval(pointer_expr, mask)
    if not isinstance(pointer, Pointer):
        raise Failure(pointer_expr, f"{expr.function}() needs a pointer")
    if isinstance(pointer.region, SharedVariable):
        ldm = _ldm(machine, expr.args[2], mask)  # a global matrix's ldm moves no shared access
        try:
            instructions = plan(spec, layout)
        except Unmodelled as error:
            raise Failure(expr, f"unsupported construct: {error}") from None
        _shared(machine, expr, mask, load, variable, pointer, ldm, instructions)
    elif not isinstance(pointer.region, GlobalMatrix):
        raise Failure(pointer_expr, f"{expr.function}() through this pointer")
    if load:
        variable.value = Fragment(t, None)
    return constant(C.INT, 0)


def _shared(machine: SimtMachine, expr: S.Call, mask: Mask, load: bool, variable: Variable, pointer: Pointer,
            ldm: int, instructions: Plan) -> None:
    region = pointer.region
    why = machine.running_not_known(mask)
    if why is not None and not machine.recorder.probing:  # listed, not counted (probing: refused below)
        for access in instructions.accesses:
            recorded = C.VECTORS["uint4"] if access.width == 16 else _WIDTH_TYPES[access.width]
            op = access.op or ("load" if load else "store")
            machine.recorder.record_unknown(expr, op, recorded, region, mask, machine.context.block_index,
                                            why, span=machine.span, calls=tuple(machine.call_stack))
        if not load:
            machine.forget_shared(region)
        return
    require_known_offset(pointer, mask, expr)
    base = per_thread(np.asarray(pointer.offset, np.int64), machine.threads) + region.base
    lane = machine.lanes % LANES
    for access in instructions.accesses:
        addresses = base + (access.rows[lane] * ldm + access.cols[lane]) * instructions.element
        op = access.op or ("load" if load else "store")
        machine.shared_region_of(addresses, mask.arr, access.width, expr)
        recorded = C.VECTORS["uint4"] if access.width == 16 else _WIDTH_TYPES[access.width]
        extra = {"matrices": access.matrices} if access.matrices else {}
        machine.require_certain(expr, mask)
        machine.recorder.record(expr, op, recorded, region, addresses, mask, machine.context.block_index,
                                span=machine.span, calls=tuple(machine.call_stack), **extra)
        if access.generic:
            opcode = "LD" if load else "ST"
            suffix = {4: "", 8: ".64", 16: ".128"}[access.width]
            machine.recorder.last.sass = f"{opcode}.E{suffix} (generic, nvcc gives this WMMA type no LDS/STS)"
        if not load:
            _store(machine, addresses, access.width, variable, instructions.element, mask)


_WIDTH_TYPES = {4: C.UINT, 8: C.VECTORS["uint2"]}


def _store(machine: SimtMachine, addresses: np.ndarray, width: int, variable: Variable, element: int,
           mask: Mask) -> None:
    fragment = variable.value
    fill = fragment.fill if isinstance(fragment, Fragment) else None
    t = {2: C.HALF, 4: C.FLOAT, 8: C.DOUBLE}[element]
    if fill is not None and variable.type.spec.family == "bf16" and element == 2:
        t = _ELEMENT_TYPES["__nv_bfloat16"]
    lanes = mask.arr
    for k in range(0, width, element):
        at = addresses[lanes] + k
        if fill is not None and all_known(fill.known, mask):
            data = np.full(at.size, convert(fill, t).data, t.dtype)
            machine.store.store(at, t, data, np.ones(at.size, bool), np.full(at.size, -1, np.int64))
        else:
            machine.store.store(at, t, np.zeros(at.size, t.dtype), np.zeros(at.size, bool),
                                np.full(at.size, -1, np.int64))


def _load_matrix(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    return _transfer(machine, expr, mask, True)


def _store_matrix(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    return _transfer(machine, expr, mask, False)


def _fill(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    if len(expr.args) != 2:
        raise Failure(expr, "fill_fragment() takes 2 arguments")
    variable, t = _fragment_target(machine, expr.args[0], mask)
    value = machine.eval(expr.args[1], mask)
    if not isinstance(value, Scalar):
        raise Failure(expr.args[1], "fill_fragment() needs a number")
    uniform = np.asarray(value.data)
    running = uniform[mask.arr] if uniform.ndim else uniform
    known = all_known(value.known, mask) and (uniform.ndim == 0 or bool((running == running[0]).all()))
    variable.value = Fragment(t, value if known else None)
    return constant(C.INT, 0)


def _mma(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    if len(expr.args) not in (4, 5):
        raise Failure(expr, f"{expr.function}() takes 4 arguments")
    variable, t = _fragment_target(machine, expr.args[0], mask)
    for arg in expr.args[1:4]:
        _fragment_target(machine, arg, mask)
    variable.value = Fragment(t, None)
    return constant(C.INT, 0)


def _to_tf32(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    """``wmma::__float_to_tf32(x)``: x rounded to tf32's 10 mantissa bits, to nearest with ties
    away from zero (PTX ``cvt.rna.tf32.f32``), still a float."""
    if len(expr.args) != 1:
        raise Failure(expr, "__float_to_tf32() takes 1 argument")
    value = machine.eval(expr.args[0], mask)
    if not isinstance(value, Scalar):
        raise Failure(expr, "__float_to_tf32() needs a number")
    value = convert(value, C.FLOAT)
    data = np.asarray(value.data, np.float32)
    bits = data.view(np.uint32)
    rounded = ((bits + np.uint32(0x1000)) & np.uint32(0xFFFFE000)).view(np.float32)
    finite = np.isfinite(data) & np.isfinite(rounded)
    return Scalar(C.FLOAT, np.where(finite, rounded, data).astype(np.float32), value.known, None, value.taint)


BUILTINS["load_matrix_sync"] = _load_matrix
BUILTINS["store_matrix_sync"] = _store_matrix
BUILTINS["fill_fragment"] = _fill
BUILTINS["mma_sync"] = _mma
BUILTINS["bmma_sync"] = _mma
BUILTINS["__float_to_tf32"] = _to_tf32
