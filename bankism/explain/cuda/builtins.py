"""CUDA built-in functions the interpreter knows: synchronization, conversions, vector constructors,
__ldg and cache-hinted stores, memcpy, warp shuffles and votes, clocks and textures. The math built-ins
are in ``arithmetic``, the atomics in ``atomics``; every one is looked up in ``registry.BUILTINS``."""

from __future__ import annotations

import numpy as np

from bankism.arch import LANES
from bankism.explain.cuda import arithmetic, atomics  # noqa: F401 (importing them registers their built-ins)
from bankism.explain.cuda.memset import value_bytes, value_from_bytes
from bankism.explain.cuda.ptx_types import shared_address
from bankism.explain.cuda.registry import (  # noqa: F401 (call_builtin re-exported: simt.calls uses it)
    BUILTINS,
    Handler,
    arguments,
    call_builtin,
    scalar_arguments,
)
from bankism.explain.frontend import syntax as S
from bankism.explain.simt import ctype as C
from bankism.explain.simt.bindings import MemLV
from bankism.explain.simt.machine import SimtMachine
from bankism.explain.simt.values import (
    Failure,
    Mask,
    Pointer,
    Scalar,
    Value,
    Vector,
    all_known,
    constant,
    convert,
    flags_per_thread,
    forget,
    gather_lanes,
    per_thread,
    unknown,
)

_NO_OPS = (
    "__syncthreads", "__syncwarp", "__threadfence", "__threadfence_block", "__threadfence_system",
    "printf", "assert", "__nanosleep", "__builtin_assume", "__assume", "__prof_trigger",
)


def _no_op(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    machine.recorder.boundary()  # nvcc merges no access across a barrier, fence or call
    if expr.function == "__syncthreads":
        block_barrier(machine, expr, mask, "__syncthreads()")
    return constant(C.INT, 0)


def block_barrier(machine: SimtMachine, expr: S.Node, mask: Mask, what: str) -> None:
    """A barrier of the whole block: every thread that has not returned must reach it
    (threads that returned early do not count against it)."""
    if mask.full:
        return
    alive = ~machine.frames[0].returned
    if not bool((mask.arr | ~alive).all()):
        raise Failure(expr, f"{what} reached by only part of the block (undefined behaviour)")


for _name in _NO_OPS:
    BUILTINS[_name] = _no_op


def _trap(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    raise Failure(expr, "the kernel calls __trap()")


BUILTINS["__trap"] = _trap


# --- vector constructors -----------------------------------------------------------------


def _make(type_name: str) -> Handler:
    t = C.VECTORS[type_name]

    def handler(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
        values = scalar_arguments(arguments(machine, expr, mask, t.count), expr)
        return Vector(t, [convert(v, t.elem) for v in values])

    return handler


for _vector_name in list(C.VECTORS):
    if _vector_name not in ("dim3", "half2", "__half2"):
        BUILTINS[f"make_{_vector_name}"] = _make(_vector_name)
BUILTINS["__halves2half2"] = _make("half2")
BUILTINS["make_half2"] = _make("half2")


def _floats2half2(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    values = scalar_arguments(arguments(machine, expr, mask, 2), expr)
    return Vector(C.VECTORS["half2"], [convert(v, C.HALF) for v in values])


BUILTINS["__floats2half2_rn"] = _floats2half2


def _pair_converter(source: str, target: str, element: C.CType):  # noqa: ANN202
    """A builtin converting a two-component vector ``source`` into ``target`` (float2 <-> half2)."""

    def convert_pair(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
        (value,) = arguments(machine, expr, mask, 1)
        if not isinstance(value, Vector) or value.type.count != 2:
            raise Failure(expr, f"{expr.function}() needs a {source}")
        return Vector(C.VECTORS[target], [convert(c, element) for c in value.comps])

    return convert_pair


BUILTINS["__float22half2_rn"] = _pair_converter("float2", "half2", C.HALF)
BUILTINS["__half22float2"] = _pair_converter("half2", "float2", C.FLOAT)


# --- memory ------------------------------------------------------------------------------


def _ldg(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    (pointer,) = arguments(machine, expr, mask, 1)
    if not isinstance(pointer, Pointer):
        raise Failure(expr, f"{expr.function}() needs a pointer")
    return machine.load(MemLV(pointer.region, pointer.offset, pointer.type.elem, expr, pointer.known,
                              pointer.taint), mask)


for _name in ("__ldg", "__ldca", "__ldcg", "__ldcs", "__ldlu", "__ldcv"):
    BUILTINS[_name] = _ldg


def _st_hint(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    """__stcs/__stcg/__stwb/__stwt(p, v): a store with a cache hint, as ``*p = v``."""
    pointer, value = arguments(machine, expr, mask, 2)
    if not isinstance(pointer, Pointer):
        raise Failure(expr, f"{expr.function}() needs a pointer")
    target = MemLV(pointer.region, pointer.offset, pointer.type.elem, expr, pointer.known, pointer.taint)
    machine.store_to(target, value, mask, expr)
    return constant(C.INT, 0)


for _name in ("__stcs", "__stcg", "__stwb", "__stwt"):
    BUILTINS[_name] = _st_hint


def _memcpy(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    """memcpy(&dst, &src, n) between whole objects (a local array or variable, or a member):
    an object of the same type is copied; bytes nobody knows (a global load reinterpreted,
    as in ``Packed128(int4 bits)``) make every element of the destination unknown; copying
    known bytes into another type (a bit cast) is refused."""
    if len(expr.args) != 3:
        raise Failure(expr, "memcpy() takes a destination, a source and a size")
    dst_expr, src_expr = (a.operand if isinstance(a, S.Unary) and a.op == "&" else a for a in expr.args[:2])
    target = machine.lvalue(dst_expr, mask)
    t = machine.lvalue_type(target)
    source = machine.eval(src_expr, mask)
    size = machine.integer_constant(expr.args[2], mask, "memcpy size")
    if size != t.size or size != source.type.size:
        raise Failure(expr, "unsupported construct: memcpy() of part of an object")
    if source.type == t:
        machine.store_to(target, source, mask, expr)
        return constant(C.INT, 0)
    components = source.comps if isinstance(source, Vector) else [source]
    n = machine.threads
    raw = value_bytes(source, n)
    element = t.scalar if t.kind == "array" else t
    numbers = t.kind in ("int", "float", "vec") or (
        t.kind == "array" and element.kind in ("int", "float") and element.size == t.elem.size)
    if raw is not None and numbers:
        # known bytes read back as another type (a bit cast between numbers and vectors)
        data, known = raw
        step = element.size
        for i in range(t.size // step if t.kind == "array" else 1):
            slot = S.Subscript(expr.line, expr.text, dst_expr, S.Literal(expr.line, str(i), i, "int"),
                               file=expr.file) if t.kind == "array" else dst_expr
            part = slice(i * step, i * step + (step if t.kind == "array" else t.size))
            value = value_from_bytes(t if t.kind != "array" else element, data[:, part], known[:, part],
                                     components[0].taint, expr)
            machine.store_to(machine.lvalue(slot, mask), value, mask, expr)
        return constant(C.INT, 0)
    if any(not isinstance(c, Scalar) or flags_per_thread(c.known, n)[mask.arr].any() for c in components):
        raise Failure(expr, f"unsupported construct: memcpy() of known {source.type} bytes into {t}")
    if element.kind not in ("int", "float"):
        raise Failure(expr, f"unsupported construct: memcpy() into {t}")
    taint = components[0].taint
    why = taint if taint and taint != "values not known" else (
        f"the bytes memcpy() copied from a {source.type}")
    count = t.size // element.size
    for i in range(count):
        slot = S.Subscript(expr.line, expr.text, dst_expr, S.Literal(expr.line, str(i), i, "int"),
                           file=expr.file) if t.kind == "array" else dst_expr
        machine.store_to(machine.lvalue(slot, mask), unknown(element, why), mask, expr)
    return constant(C.INT, 0)


BUILTINS["memcpy"] = _memcpy


# --- warp-level --------------------------------------------------------------------------


def _lane_ids(machine: SimtMachine) -> tuple[np.ndarray, np.ndarray]:
    tid = machine.lanes
    return tid % LANES, tid - tid % LANES


def _shuffle(kind: str, legacy: bool = False) -> Handler:
    """__shfl_sync and friends: thread i takes the value of the lane the variant names,
    within segments of ``width`` lanes (its own value when the source is out of range). A
    value from a lane that does not run is undefined in CUDA: it is not known. ``legacy``: the
    pre-CUDA-9 form without a member mask (``__shfl_xor(v, 16)``), over the running lanes."""
    first = 0 if legacy else 1

    def handler(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
        values = arguments(machine, expr, mask, (first + 2, first + 3))
        value, selector = values[first], values[first + 1]
        width = LANES
        if len(values) == first + 3:
            width = machine.integer_constant(expr.args[first + 2], mask, "shuffle width")
        if not isinstance(selector, Scalar) or not all_known(selector.known, mask):
            raise Failure(expr, f"{expr.function}() lane argument must be a known integer")
        lane, warp_base = _lane_ids(machine)
        amount = per_thread(np.asarray(selector.data, np.int64), machine.threads)
        index = warp_base + shuffle_source(lane, amount, width, kind)
        index = np.where(index < machine.threads, index, machine.lanes)
        result = gather_lanes(value, index)
        idle = mask.arr & ~mask.arr[index]
        if idle.any():
            result = forget(result, idle, f"a value {expr.function}() read from a lane that does not run")
        return result

    return handler


for _suffix, _kind in (("", "idx"), ("_xor", "xor"), ("_down", "down"), ("_up", "up")):
    BUILTINS[f"__shfl{_suffix}_sync"] = _shuffle(_kind)
    BUILTINS[f"__shfl{_suffix}"] = _shuffle(_kind, legacy=True)


def _vote(kind: str, legacy: bool = False) -> Handler:
    """__ballot_sync/__any_sync/__all_sync over the running lanes of each warp; ``legacy``: the
    pre-CUDA-9 __ballot/__any/__all (no member mask)."""

    def handler(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
        values = arguments(machine, expr, mask, 1 if legacy else 2)
        predicate = machine.truth_of(values[-1], expr, mask)
        bits = per_thread(np.asarray(predicate, bool), machine.threads) & mask.arr
        lane, warp_base = _lane_ids(machine)
        warps = machine.lanes // LANES
        ballot = np.zeros(warps.max() + 1, np.int64)
        np.add.at(ballot, warps, bits.astype(np.int64) << lane)
        per_warp = ballot[warps]
        if kind == "ballot":
            return Scalar(C.UINT, per_warp.astype(np.uint32))
        active = np.zeros(warps.max() + 1, np.int64)
        np.add.at(active, warps, mask.arr.astype(np.int64) << lane)
        result = per_warp != 0 if kind == "any" else per_warp == active[warps]
        return Scalar(C.INT, result.astype(np.int32))

    return handler


for _kind in ("ballot", "any", "all"):
    BUILTINS[f"__{_kind}_sync"] = _vote(_kind)
    BUILTINS[f"__{_kind}"] = _vote(_kind, legacy=True)


def _activemask(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    lane, _ = _lane_ids(machine)
    warps = machine.lanes // LANES
    active = np.zeros(warps.max() + 1, np.int64)
    np.add.at(active, warps, mask.arr.astype(np.int64) << lane)
    return Scalar(C.UINT, active[warps].astype(np.uint32))


BUILTINS["__activemask"] = _activemask


def _unsupported(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    raise Failure(expr, f"unsupported construct: {expr.function}()")


def _cvta_to_shared(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    """__cvta_generic_to_shared(p): the shared-window address of p (a size_t)."""
    (pointer,) = arguments(machine, expr, mask, 1)
    return shared_address(pointer, C.ULONG, expr)


BUILTINS["__cvta_generic_to_shared"] = _cvta_to_shared
BUILTINS["__nvvm_get_smem_pointer"] = _cvta_to_shared  # the same address (NVVM's intrinsic for it)

#: Names refused as built-ins: a function of the file by one of these names is always its own.
UNSUPPORTED = ("asm", "__isShared", "cp_async", "__pipeline_memcpy_async", "ldmatrix", "wmma")
for _name in UNSUPPORTED:
    BUILTINS[_name] = _unsupported


def _clock(t: C.CType) -> Handler:
    """clock()/clock64()/globaltimer reads: a cycle count nobody can know ahead, an unknown
    value (it matters only if a shared address, branch or trip count needs it)."""

    def handler(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
        arguments(machine, expr, mask, 0)
        return unknown(t, f"the value of {expr.function}() (a clock reading)")

    return handler


BUILTINS["clock"] = _clock(C.LONG)
BUILTINS["clock64"] = _clock(C.LLONG)


def _texture(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    """A texture read (tex1Dfetch, tex2D, ...): its value is not known, as a global load's."""
    for arg in expr.args[1:]:
        machine.eval(arg, mask)
    t = C.FLOAT
    if expr.template_args:
        t = machine.resolve_type(expr.template_args[0], mask)
    if t.kind == "vec":
        return Vector(t, [unknown(t.elem, "values read from a texture") for _ in range(t.count)])
    return unknown(t, "values read from a texture")


for _name in ("tex1Dfetch", "tex1D", "tex2D", "tex3D", "tex1DLayered", "tex2DLayered", "texCubemap",
              "tex2DLod", "tex1DLod", "tex3DLod", "surf2Dread", "surf1Dread"):
    BUILTINS[_name] = _texture


def shuffle_source(lane: np.ndarray, amount: np.ndarray, width: int, kind: str) -> np.ndarray:
    """The lane each lane reads in a shuffle of ``kind`` (idx, xor, down, up) within segments of
    ``width`` lanes, as CUDA's __shfl*_sync and the cooperative-groups shfl* define it: a lane whose
    source falls outside its segment reads its own value."""
    segment = lane - lane % width
    if kind == "idx":
        return segment + amount % width
    if kind == "xor":
        source = lane ^ amount
        return np.where(source - segment < width, source, lane)
    if kind == "down":
        return np.where(lane % width + amount < width, lane + amount, lane)
    return np.where(lane % width >= amount, lane - amount, lane)
