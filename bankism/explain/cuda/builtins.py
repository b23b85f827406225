"""CUDA built-in functions the interpreter knows: synchronization, math, conversions,
vector constructors, __ldg, atomics (recorded as shared-memory atomics) and warp shuffles."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from bankism.explain.cuda.ptx_exec import shared_address
from bankism.explain.frontend import syntax as S
from bankism.explain.simt import ctype as C
from bankism.explain.simt.bindings import MemLV
from bankism.explain.simt.memory import GlobalMatrix, SharedVariable
from bankism.explain.simt.values import (
    Failure,
    Mask,
    Pointer,
    Scalar,
    Value,
    Vector,
    all_known,
    and_flags,
    constant,
    convert,
    flags_per_thread,
    forget,
    gather_lanes,
    per_thread,
    unknown,
)
from bankism.isa import atomic_form

Handler = Callable[[object, S.Call, Mask], Value]
BUILTINS: dict[str, Handler] = {}

_NO_OPS = (
    "__syncthreads", "__syncwarp", "__threadfence", "__threadfence_block", "__threadfence_system",
    "printf", "assert", "__nanosleep", "__builtin_assume", "__assume", "__prof_trigger",
)


def call_builtin(machine, expr: S.Call, mask: Mask) -> Value:  # noqa: ANN001
    """Evaluate a call of a built-in function."""
    return BUILTINS[expr.function](machine, expr, mask)


def _args(machine, expr: S.Call, mask: Mask, count: int | tuple[int, ...]) -> list[Value]:  # noqa: ANN001
    counts = (count,) if isinstance(count, int) else count
    if len(expr.args) not in counts:
        raise Failure(expr, f"{expr.function}() takes {' or '.join(map(str, counts))} argument(s)")
    return [machine.eval(a, mask) for a in expr.args]


def _scalars(values: list[Value], expr: S.Call) -> list[Scalar]:
    for v in values:
        if not isinstance(v, Scalar):
            raise Failure(expr, f"{expr.function}() needs arithmetic arguments, not {v.type}")
    return values  # type: ignore[return-value]


def _no_op(machine, expr: S.Call, mask: Mask) -> Value:  # noqa: ANN001
    if expr.function == "__syncthreads":
        block_barrier(machine, expr, mask, "__syncthreads()")
    return constant(C.INT, 0)


def block_barrier(machine, expr: S.Node, mask: Mask, what: str) -> None:  # noqa: ANN001
    """A barrier of the whole block: every thread that has not returned must reach it
    (threads that returned early do not count against it)."""
    if mask.full:
        return
    alive = ~machine.frames[0].returned
    if not bool((mask.arr | ~alive).all()):
        raise Failure(expr, f"{what} reached by only part of the block (undefined behaviour)")


for _name in _NO_OPS:
    BUILTINS[_name] = _no_op


def _trap(machine, expr: S.Call, mask: Mask) -> Value:  # noqa: ANN001
    raise Failure(expr, "the kernel calls __trap()")


BUILTINS["__trap"] = _trap


# --- math ------------------------------------------------------------------------------------


def _math(function: Callable[..., np.ndarray], arity: int, result: C.CType | None = None,
          argument: C.CType | None = None) -> Handler:
    """A math built-in: computed in ``argument`` type (default: the arguments' common type)."""

    def handler(machine, expr: S.Call, mask: Mask) -> Value:  # noqa: ANN001
        values = _scalars(_args(machine, expr, mask, arity), expr)
        t = argument
        if t is None:
            t = values[0].type
            for v in values[1:]:
                t = C.common_type(t, v.type)
            t = C.promote(t)
            if t.kind != "float" and expr.function not in _INTEGER_OK:
                t = C.FLOAT if expr.function.endswith("f") else C.DOUBLE
        converted = [convert(v, t) for v in values]
        known: bool | np.ndarray = True
        taint = None
        for v in converted:
            known = and_flags(known, v.known)
            taint = taint or v.taint
        with np.errstate(all="ignore"):
            data = function(*[v.data for v in converted])
        data = data.astype(t.dtype) if isinstance(data, np.ndarray) else t.dtype.type(data)
        return convert(Scalar(t, data, known, None, taint), result or t)

    return handler


_INTEGER_OK = {"min", "max", "abs", "umin", "umax", "llmin", "llmax"}

for _names, _function in (
    (("sqrtf", "sqrt", "__fsqrt_rn"), np.sqrt),
    (("rsqrtf", "rsqrt"), lambda x: 1 / np.sqrt(x)),
    (("expf", "exp", "__expf"), np.exp),
    (("exp2f", "exp2"), np.exp2),
    (("logf", "log", "__logf"), np.log),
    (("log2f", "log2", "__log2f"), np.log2),
    (("fabsf", "fabs"), np.abs),
    (("sinf", "sin", "__sinf"), np.sin),
    (("cosf", "cos", "__cosf"), np.cos),
    (("tanhf", "tanh"), np.tanh),
    (("floorf", "floor"), np.floor),
    (("ceilf", "ceil"), np.ceil),
    (("truncf", "trunc"), np.trunc),
    (("rintf", "rint", "nearbyintf"), np.rint),
    (("roundf", "round"), lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5)),
    (("__saturatef",), lambda x: np.clip(x, 0, 1)),
):
    for _name in _names:
        BUILTINS[_name] = _math(_function, 1)

for _names, _function in (
    (("fminf", "fmin"), np.fmin),
    (("fmaxf", "fmax"), np.fmax),
    (("powf", "pow", "__powf"), np.power),
    (("fmodf", "fmod"), np.fmod),
    (("atan2f", "atan2"), np.arctan2),
    (("__fdividef", "__fdiv_rn", "fdividef"), np.divide),
    (("__fmul_rn", "__dmul_rn"), np.multiply),
    (("__fadd_rn", "__dadd_rn"), np.add),
    (("__fsub_rn", "__dsub_rn"), np.subtract),
):
    for _name in _names:
        BUILTINS[_name] = _math(_function, 2)

for _name in ("fmaf", "fma", "__fmaf_rn", "__fma_rn"):
    BUILTINS[_name] = _math(lambda a, b, c: a * b + c, 3)

BUILTINS["min"] = _math(np.minimum, 2)
BUILTINS["max"] = _math(np.maximum, 2)
BUILTINS["umin"] = _math(np.minimum, 2, argument=C.UINT)
BUILTINS["umax"] = _math(np.maximum, 2, argument=C.UINT)
BUILTINS["abs"] = _math(np.abs, 1)
BUILTINS["__popc"] = _math(np.bitwise_count, 1, C.INT, C.UINT)


def _bits(width: int) -> Callable[..., np.ndarray]:
    """Helpers for the bit intrinsics on ``width``-bit unsigned values."""
    dtype = np.uint32 if width == 32 else np.uint64

    def smear(u: np.ndarray) -> np.ndarray:
        u = np.asarray(u, dtype)
        for shift in (1, 2, 4, 8, 16, 32)[: 5 if width == 32 else 6]:
            u = u | (u >> dtype(shift))
        return u

    def ffs(u: np.ndarray) -> np.ndarray:
        u = np.asarray(u, dtype)
        low = u & (~u + dtype(1))
        return np.where(u == 0, 0, np.bitwise_count(low - dtype(1)).astype(np.int64) + 1)

    def clz(u: np.ndarray) -> np.ndarray:
        return width - np.bitwise_count(smear(u)).astype(np.int64)

    def brev(u: np.ndarray) -> np.ndarray:
        u = np.asarray(u, dtype)
        out = np.zeros_like(u)
        for i in range(width):
            out |= ((u >> dtype(i)) & dtype(1)) << dtype(width - 1 - i)
        return out

    return {"ffs": ffs, "clz": clz, "brev": brev}


_B32, _B64 = _bits(32), _bits(64)
BUILTINS["__popcll"] = _math(np.bitwise_count, 1, C.INT, C.ULLONG)
BUILTINS["__ffs"] = _math(_B32["ffs"], 1, C.INT, C.UINT)
BUILTINS["__ffsll"] = _math(_B64["ffs"], 1, C.INT, C.ULLONG)
BUILTINS["__clz"] = _math(_B32["clz"], 1, C.INT, C.UINT)
BUILTINS["__clzll"] = _math(_B64["clz"], 1, C.INT, C.ULLONG)
BUILTINS["__brev"] = _math(_B32["brev"], 1, C.UINT, C.UINT)
BUILTINS["__brevll"] = _math(_B64["brev"], 1, C.ULLONG, C.ULLONG)


def _usad4(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Sum over the four bytes of |a_i - b_i|, plus c (PTX vabsdiff4.add)."""
    a, b, c = (np.asarray(x, np.int64) for x in (a, b, c))
    total = c
    for i in range(4):
        total = total + np.abs(((a >> (8 * i)) & 0xFF) - ((b >> (8 * i)) & 0xFF))
    return total & 0xFFFFFFFF


def _byte_perm(x: np.ndarray, y: np.ndarray, s: np.ndarray) -> np.ndarray:
    """__byte_perm(x, y, s): byte n of the result is byte ((s >> 4n) & 7) of y:x."""
    x, y, s = (np.asarray(v, np.uint64) for v in (x, y, s))
    pool = x | (y << np.uint64(32))
    out = np.zeros_like(pool)
    for n in range(4):
        select = (s >> np.uint64(4 * n)) & np.uint64(7)
        out |= ((pool >> (select * np.uint64(8))) & np.uint64(0xFF)) << np.uint64(8 * n)
    return out


def _funnel(left: bool, clamp: bool) -> Callable[..., np.ndarray]:
    """__funnelshift_l/_r (and _lc/_rc): shift the 64-bit hi:lo, keep the high (l) or low (r) word."""

    def shift(lo: np.ndarray, hi: np.ndarray, n: np.ndarray) -> np.ndarray:
        lo, hi, n = (np.asarray(v, np.uint64) for v in (lo, hi, n))
        n = np.minimum(n, np.uint64(32)) if clamp else n & np.uint64(31)
        pair = lo | (hi << np.uint64(32))
        if left:
            return ((pair << n) >> np.uint64(32)) & np.uint64(0xFFFFFFFF)
        return (pair >> n) & np.uint64(0xFFFFFFFF)

    return shift


BUILTINS["__usad4"] = _math(_usad4, 3, C.UINT, C.ULLONG)
BUILTINS["__sad"] = _math(lambda x, y, z: np.abs(x - y) + z, 3, C.UINT, C.LLONG)
BUILTINS["__usad"] = _math(lambda x, y, z: np.abs(x - y) + z, 3, C.UINT, C.LLONG)
BUILTINS["__byte_perm"] = _math(_byte_perm, 3, C.UINT, C.ULLONG)
BUILTINS["__funnelshift_l"] = _math(_funnel(True, False), 3, C.UINT, C.ULLONG)
BUILTINS["__funnelshift_lc"] = _math(_funnel(True, True), 3, C.UINT, C.ULLONG)
BUILTINS["__funnelshift_r"] = _math(_funnel(False, False), 3, C.UINT, C.ULLONG)
BUILTINS["__funnelshift_rc"] = _math(_funnel(False, True), 3, C.UINT, C.ULLONG)
BUILTINS["__float2int_rn"] = _math(np.rint, 1, C.INT, C.FLOAT)
BUILTINS["__float2int_rz"] = _math(np.trunc, 1, C.INT, C.FLOAT)
BUILTINS["__float2int_rd"] = _math(np.floor, 1, C.INT, C.FLOAT)
BUILTINS["__float2int_ru"] = _math(np.ceil, 1, C.INT, C.FLOAT)
BUILTINS["__int2float_rn"] = _math(lambda x: x, 1, C.FLOAT, C.INT)
BUILTINS["__float2half"] = _math(lambda x: x, 1, C.HALF, C.FLOAT)
BUILTINS["__float2half_rn"] = _math(lambda x: x, 1, C.HALF, C.FLOAT)
BUILTINS["__half2float"] = _math(lambda x: x, 1, C.FLOAT, C.HALF)
BUILTINS["__double2float_rn"] = _math(lambda x: x, 1, C.FLOAT, C.DOUBLE)
BUILTINS["__hadd"] = _math(np.add, 2, C.HALF, C.HALF)
BUILTINS["__hsub"] = _math(np.subtract, 2, C.HALF, C.HALF)
BUILTINS["__hmul"] = _math(np.multiply, 2, C.HALF, C.HALF)
BUILTINS["__hfma"] = _math(lambda a, b, c: a * b + c, 3, C.HALF, C.HALF)


# --- vector constructors -----------------------------------------------------------------


def _make(type_name: str) -> Handler:
    t = C.VECTORS[type_name]

    def handler(machine, expr: S.Call, mask: Mask) -> Value:  # noqa: ANN001
        values = _scalars(_args(machine, expr, mask, t.count), expr)
        return Vector(t, [convert(v, t.elem) for v in values])

    return handler


for _vector_name in list(C.VECTORS):
    if _vector_name not in ("dim3", "half2", "__half2"):
        BUILTINS[f"make_{_vector_name}"] = _make(_vector_name)
BUILTINS["__halves2half2"] = _make("half2")
BUILTINS["make_half2"] = _make("half2")


def _floats2half2(machine, expr: S.Call, mask: Mask) -> Value:  # noqa: ANN001
    values = _scalars(_args(machine, expr, mask, 2), expr)
    return Vector(C.VECTORS["half2"], [convert(v, C.HALF) for v in values])


BUILTINS["__floats2half2_rn"] = _floats2half2


def _pair_converter(source: str, target: str, element: C.CType):  # noqa: ANN202
    """A builtin converting a two-component vector ``source`` into ``target`` (float2 <-> half2)."""

    def convert_pair(machine, expr: S.Call, mask: Mask) -> Value:  # noqa: ANN001
        (value,) = _args(machine, expr, mask, 1)
        if not isinstance(value, Vector) or value.type.count != 2:
            raise Failure(expr, f"{expr.function}() needs a {source}")
        return Vector(C.VECTORS[target], [convert(c, element) for c in value.comps])

    return convert_pair


BUILTINS["__float22half2_rn"] = _pair_converter("float2", "half2", C.HALF)
BUILTINS["__half22float2"] = _pair_converter("half2", "float2", C.FLOAT)


# --- memory ------------------------------------------------------------------------------


def _ldg(machine, expr: S.Call, mask: Mask) -> Value:  # noqa: ANN001
    (pointer,) = _args(machine, expr, mask, 1)
    if not isinstance(pointer, Pointer):
        raise Failure(expr, f"{expr.function}() needs a pointer")
    return machine.load(MemLV(pointer.region, pointer.offset, pointer.type.elem, expr), mask)


for _name in ("__ldg", "__ldca", "__ldcg", "__ldcs", "__ldlu", "__ldcv"):
    BUILTINS[_name] = _ldg


def _st_hint(machine, expr: S.Call, mask: Mask) -> Value:  # noqa: ANN001
    """__stcs/__stcg/__stwb/__stwt(p, v): a store with a cache hint, as ``*p = v``."""
    pointer, value = _args(machine, expr, mask, 2)
    if not isinstance(pointer, Pointer):
        raise Failure(expr, f"{expr.function}() needs a pointer")
    target = MemLV(pointer.region, pointer.offset, pointer.type.elem, expr)
    machine.store_to(target, value, mask, expr)
    return constant(C.INT, 0)


for _name in ("__stcs", "__stcg", "__stwb", "__stwt"):
    BUILTINS[_name] = _st_hint


def _memcpy(machine, expr: S.Call, mask: Mask) -> Value:  # noqa: ANN001
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
    if any(not isinstance(c, Scalar) or flags_per_thread(c.known, n)[mask.arr].any() for c in components):
        raise Failure(expr, f"unsupported construct: memcpy() of known {source.type} bytes into {t}")
    element = t.scalar if t.kind == "array" else t
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

_ATOMIC_UFUNCS = {
    "atomicAdd": np.add, "atomicSub": np.subtract, "atomicMax": np.maximum, "atomicMin": np.minimum,
    "atomicAnd": np.bitwise_and, "atomicOr": np.bitwise_or, "atomicXor": np.bitwise_xor,
}
_ATOMIC_OTHERS = ("atomicExch", "atomicCAS", "atomicInc", "atomicDec")


def _atomic(machine, expr: S.Call, mask: Mask) -> Value:  # noqa: ANN001
    """An atomic read-modify-write: on shared memory it is recorded as an "atomic" access and
    the memory gets the value serial execution gives (unknown where the order matters)."""
    values = _args(machine, expr, mask, (2, 3))
    pointer = values[0]
    if not isinstance(pointer, Pointer):
        raise Failure(expr, f"{expr.function}() needs a pointer as first argument")
    t = pointer.type.elem
    if not t.is_arithmetic:
        raise Failure(expr, f"unsupported construct: {expr.function}() on {t}")
    base = _base_function(expr.function)
    if isinstance(pointer.region, GlobalMatrix):
        return unknown(t, "the old value returned by an atomic on global memory")
    if not isinstance(pointer.region, SharedVariable):
        raise Failure(expr, f"unsupported construct: {expr.function}() on this memory")
    target = MemLV(pointer.region, pointer.offset, t, expr)
    operand_is_one = len(expr.args) > 1 and isinstance(expr.args[1], S.Literal) and expr.args[1].value == 1
    kind = "f" if t.kind == "float" else ("s" if t.signed else "u")
    used = getattr(machine, "discarded", None) is not expr
    form = atomic_form(base, kind, t.size, result_used=used, operand_is_one=operand_is_one)
    if form.refusal or form.atomic_op is None:
        raise Failure(expr, f"unsupported construct: {form.refusal or expr.function + '() on ' + str(t)}")
    if form.loop == "cas_spin":
        addresses = _cas_spin_loop(machine, target, mask)
    else:
        addresses = machine._shared_addresses(target, mask, "atomic", form.atomic_op)
        _label(machine, expr, "atomic", form.sass)
    running = addresses[mask.arr]
    operand = convert(values[1], t) if isinstance(values[1], Scalar) else None
    if operand is None:
        raise Failure(expr, f"{expr.function}() needs an arithmetic operand")
    store = machine.store
    unique, inverse = np.unique(running, return_inverse=True)
    old_data, old_known, _ = store.load(unique, t)
    ufunc = _ATOMIC_UFUNCS.get(base)
    operand_data = per_thread(operand.data, machine.threads)[mask.arr]
    operand_known = flags_per_thread(operand.known, machine.threads)[mask.arr]
    bitwise = ufunc in (np.bitwise_and, np.bitwise_or, np.bitwise_xor)
    if ufunc is not None and not (bitwise and t.kind == "float"):
        new_data = old_data.copy()
        with np.errstate(all="ignore"):
            ufunc.at(new_data, inverse, operand_data.astype(t.dtype))
        known_per_address = old_known & np.bincount(inverse, weights=~operand_known,
                                                    minlength=unique.size).astype(int) == 0
    else:
        new_data = old_data
        known_per_address = np.zeros(unique.size, bool)
    store.store(unique, t, new_data, known_per_address, np.full(unique.size, -1, np.int64))
    shared_once = np.bincount(inverse, minlength=unique.size)[inverse] == 1
    result = np.zeros(machine.threads, t.dtype)
    result_known = np.zeros(machine.threads, bool)
    result[mask.arr] = old_data[inverse]
    result_known[mask.arr] = old_known[inverse] & shared_once
    return Scalar(t, result, result_known, None, "the old value returned by an atomic")


def _label(machine, expr: S.Node, op: str, sass: str) -> None:  # noqa: ANN001
    """Label the site recorded for ``expr`` and ``op`` with the SASS it compiles to."""
    calls = tuple(id(call) for _, call in machine.call_stack)
    site = machine.recorder.sites.get((id(expr), op, calls))
    if site is not None:
        site.sass = sass


def _cas_spin_loop(machine, target, mask: Mask) -> np.ndarray:  # noqa: ANN001
    """Record the LDS + ATOMS.CAST.SPIN iterations of a 4-byte CAS retry loop (float atomicAdd on sm_90).

    Measured on the H100 (traces/probes/sm_90_atomics.json, 139 probes of f32 and f16x2 adds, loop counts
    and LDS wavefronts exact): in each iteration every remaining lane loads its word and issues its CAS;
    in each bank the lowest remaining lane succeeds, the others retry.
    """
    remaining = mask.arr.copy()
    node = target.node
    first = None
    while remaining.any():
        current = Mask.of(remaining.copy())
        addresses = machine._shared_addresses(target, current, "load")
        _label(machine, node, "load", "LDS (of the CAS retry loop)")
        machine._shared_addresses(target, current, "atomic", "cas_spin")
        _label(machine, node, "atomic", "ATOMS.CAST.SPIN (retry loop)")
        first = addresses if first is None else first
        threads = remaining.size
        for start in range(0, threads, 32):
            lanes = np.flatnonzero(remaining[start:start + 32]) + start
            banks = (addresses[lanes] // 4) % 32
            _, winners = np.unique(banks, return_index=True)
            remaining[lanes[winners]] = False
    return first if first is not None else machine._shared_addresses(target, mask, "atomic", "cas_spin")


def _base_function(name: str) -> str:
    for suffix in ("_block", "_system"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


for _name in list(_ATOMIC_UFUNCS) + list(_ATOMIC_OTHERS):
    BUILTINS[_name] = _atomic
    BUILTINS[_name + "_block"] = _atomic
    BUILTINS[_name + "_system"] = _atomic


# --- warp-level --------------------------------------------------------------------------


def _lane_ids(machine) -> tuple[np.ndarray, np.ndarray]:  # noqa: ANN001
    tid = machine.lanes
    return tid % 32, tid - tid % 32


def _shuffle(kind: str, legacy: bool = False) -> Handler:
    """__shfl_sync and friends: thread i takes the value of the lane the variant names,
    within segments of ``width`` lanes (its own value when the source is out of range). A
    value from a lane that does not run is undefined in CUDA: it is not known. ``legacy``: the
    pre-CUDA-9 form without a member mask (``__shfl_xor(v, 16)``), over the running lanes."""
    first = 0 if legacy else 1

    def handler(machine, expr: S.Call, mask: Mask) -> Value:  # noqa: ANN001
        values = _args(machine, expr, mask, (first + 2, first + 3))
        value, selector = values[first], values[first + 1]
        width = 32
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

    def handler(machine, expr: S.Call, mask: Mask) -> Value:  # noqa: ANN001
        values = _args(machine, expr, mask, 1 if legacy else 2)
        predicate = machine.truth_of(values[-1], expr, mask)
        bits = per_thread(np.asarray(predicate, bool), machine.threads) & mask.arr
        lane, warp_base = _lane_ids(machine)
        warps = machine.lanes // 32
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


def _activemask(machine, expr: S.Call, mask: Mask) -> Value:  # noqa: ANN001
    lane, _ = _lane_ids(machine)
    warps = machine.lanes // 32
    active = np.zeros(warps.max() + 1, np.int64)
    np.add.at(active, warps, mask.arr.astype(np.int64) << lane)
    return Scalar(C.UINT, active[warps].astype(np.uint32))


BUILTINS["__activemask"] = _activemask


def _unsupported(machine, expr: S.Call, mask: Mask) -> Value:  # noqa: ANN001
    raise Failure(expr, f"unsupported construct: {expr.function}()")


def _cvta_to_shared(machine, expr: S.Call, mask: Mask) -> Value:  # noqa: ANN001
    """__cvta_generic_to_shared(p): the shared-window address of p (a size_t)."""
    (pointer,) = _args(machine, expr, mask, 1)
    return shared_address(pointer, C.ULONG, expr)


BUILTINS["__cvta_generic_to_shared"] = _cvta_to_shared

for _name in ("asm", "__isShared", "cp_async", "__pipeline_memcpy_async",
              "ldmatrix", "wmma"):
    BUILTINS[_name] = _unsupported


def _clock(t: C.CType) -> Handler:
    """clock()/clock64()/globaltimer reads: a cycle count nobody can know ahead, an unknown
    value (it matters only if a shared address, branch or trip count needs it)."""

    def handler(machine, expr: S.Call, mask: Mask) -> Value:  # noqa: ANN001
        _args(machine, expr, mask, 0)
        return unknown(t, f"the value of {expr.function}() (a clock reading)")

    return handler


BUILTINS["clock"] = _clock(C.LONG)
BUILTINS["clock64"] = _clock(C.LLONG)


# --- 24-bit multiplies, bit casts, textures ----------------------------------------------


def _mul24(signed: bool) -> Handler:
    """__mul24/__umul24: the low 32 bits of the product of the low 24 bits of each operand
    (sign-extended for __mul24)."""

    def handler(machine, expr: S.Call, mask: Mask) -> Value:  # noqa: ANN001
        a, b = _scalars(_args(machine, expr, mask, 2), expr)
        t = C.INT if signed else C.UINT
        x = np.asarray(convert(a, t).data).astype(np.int64) & 0xFFFFFF
        y = np.asarray(convert(b, t).data).astype(np.int64) & 0xFFFFFF
        if signed:
            x = np.where(x >= 1 << 23, x - (1 << 24), x)
            y = np.where(y >= 1 << 23, y - (1 << 24), y)
        product = (x * y) & 0xFFFFFFFF
        data = product.astype(np.uint32).astype(t.dtype)
        known = and_flags(a.known, b.known)
        return Scalar(t, data if data.ndim else data[()], known, None, a.taint or b.taint)

    return handler


BUILTINS["__mul24"] = _mul24(True)
BUILTINS["__umul24"] = _mul24(False)


def _bit_cast(source: C.CType, target: C.CType) -> Handler:
    def handler(machine, expr: S.Call, mask: Mask) -> Value:  # noqa: ANN001
        (value,) = _scalars(_args(machine, expr, mask, 1), expr)
        data = np.asarray(convert(value, source).data).astype(source.dtype).view(target.dtype)
        return Scalar(target, data if data.ndim else data[()], value.known, None, value.taint)

    return handler


for _name, _source, _target in (
    ("__int_as_float", C.INT, C.FLOAT), ("__uint_as_float", C.UINT, C.FLOAT),
    ("__float_as_int", C.FLOAT, C.INT), ("__float_as_uint", C.FLOAT, C.UINT),
    ("__longlong_as_double", C.LLONG, C.DOUBLE), ("__double_as_longlong", C.DOUBLE, C.LLONG),
):
    BUILTINS[_name] = _bit_cast(_source, _target)


def _texture(machine, expr: S.Call, mask: Mask) -> Value:  # noqa: ANN001
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
