"""CUDA's math and bit built-ins (sqrtf, __popc, __funnelshift_l, __mul24, __int_as_float, ...), computed
per thread with NumPy in the C type CUDA computes them in."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from bankism.explain.cuda.registry import BUILTINS, Handler, arguments, scalar_arguments
from bankism.explain.frontend import syntax as S
from bankism.explain.simt import ctype as C
from bankism.explain.simt.machine import SimtMachine
from bankism.explain.simt.values import Mask, Scalar, Value, and_flags, convert


def _math(function: Callable[..., np.ndarray], arity: int, result: C.CType | None = None,
          argument: C.CType | None = None) -> Handler:
    """A math built-in: computed in ``argument`` type (default: the arguments' common type)."""

    def handler(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
        values = scalar_arguments(arguments(machine, expr, mask, arity), expr)
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


def _round_half_away(x: np.ndarray) -> np.ndarray:
    """C's round(): to the nearest integer, halves away from zero."""
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


_INTEGER_OK = {"min", "max", "abs", "umin", "umax", "llmin", "llmax"}

for _names, _function in (
    (("sqrtf", "sqrt", "__fsqrt_rn"), np.sqrt),
    (("rsqrtf", "rsqrt", "__frsqrt_rn"), lambda x: 1 / np.sqrt(x)),
    (("__frcp_rn", "__drcp_rn"), lambda x: 1 / x),  # round to nearest, as NumPy divides
    (("__dsqrt_rn",), np.sqrt),
    (("exp10f", "exp10", "__exp10f"), lambda x: np.power(10.0, x)),
    (("log10f", "log10", "__log10f"), np.log10),
    (("tanf", "tan", "__tanf"), np.tan),
    (("expf", "exp", "__expf"), np.exp),
    (("exp2f", "exp2"), np.exp2),
    (("logf", "log", "__logf"), np.log),
    (("log2f", "log2", "__log2f"), np.log2),
    (("fabsf", "fabs"), np.abs),
    (("sinf", "sin", "__sinf"), np.sin),
    (("cosf", "cos", "__cosf"), np.cos),
    (("tanhf", "tanh"), np.tanh),
    (("erff", "erf"), np.vectorize(math.erf, otypes=[float])),
    (("erfcf", "erfc"), np.vectorize(math.erfc, otypes=[float])),
    (("floorf", "floor"), np.floor),
    (("ceilf", "ceil"), np.ceil),
    (("truncf", "trunc"), np.trunc),
    (("rintf", "rint", "nearbyintf"), np.rint),
    (("roundf", "round"), _round_half_away),
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

for _names, _function, _result in (
    (("lroundf", "lround"), _round_half_away, C.LONG),  # long: 64 bits on Linux
    (("llroundf", "llround"), _round_half_away, C.LLONG),
    (("lrintf", "lrint"), np.rint, C.LONG),
    (("llrintf", "llrint"), np.rint, C.LLONG),
):
    for _name in _names:
        BUILTINS[_name] = _math(_function, 1, _result)

BUILTINS["min"] = _math(np.minimum, 2)
BUILTINS["max"] = _math(np.maximum, 2)
BUILTINS["umin"] = _math(np.minimum, 2, argument=C.UINT)
BUILTINS["umax"] = _math(np.maximum, 2, argument=C.UINT)
BUILTINS["abs"] = _math(np.abs, 1)
BUILTINS["__popc"] = _math(np.bitwise_count, 1, C.INT, C.UINT)


#: Bits of CUDA's ``int`` and ``unsigned int`` (the 32-bit intrinsics; the ``ll`` ones take twice as many).
INT_BITS = 32


def _bits(width: int) -> Callable[..., np.ndarray]:
    """Helpers for the bit intrinsics on ``width``-bit unsigned values."""
    dtype = np.uint32 if width == INT_BITS else np.uint64

    def smear(u: np.ndarray) -> np.ndarray:
        u = np.asarray(u, dtype)
        for shift in (1 << k for k in range(width.bit_length() - 1)):  # 1, 2, ..., width / 2
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


_B32, _B64 = _bits(INT_BITS), _bits(2 * INT_BITS)
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
    pool = x | (y << np.uint64(INT_BITS))
    out = np.zeros_like(pool)
    for n in range(4):
        select = (s >> np.uint64(4 * n)) & np.uint64(7)
        out |= ((pool >> (select * np.uint64(8))) & np.uint64(0xFF)) << np.uint64(8 * n)
    return out


def _funnel(left: bool, clamp: bool) -> Callable[..., np.ndarray]:
    """__funnelshift_l/_r (and _lc/_rc): shift the 64-bit hi:lo, keep the high (l) or low (r) word."""

    def shift(lo: np.ndarray, hi: np.ndarray, n: np.ndarray) -> np.ndarray:
        lo, hi, n = (np.asarray(v, np.uint64) for v in (lo, hi, n))
        bits = np.uint64(INT_BITS)
        n = np.minimum(n, bits) if clamp else n & (bits - np.uint64(1))
        pair = lo | (hi << bits)
        if left:
            return ((pair << n) >> bits) & np.uint64(0xFFFFFFFF)
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


# --- 24-bit multiplies, bit casts, textures ----------------------------------------------


def _mul24(signed: bool) -> Handler:
    """__mul24/__umul24: the low 32 bits of the product of the low 24 bits of each operand
    (sign-extended for __mul24)."""

    def handler(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
        a, b = scalar_arguments(arguments(machine, expr, mask, 2), expr)
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
    def handler(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
        (value,) = scalar_arguments(arguments(machine, expr, mask, 1), expr)
        data = np.asarray(convert(value, source).data).astype(source.dtype).view(target.dtype)
        return Scalar(target, data if data.ndim else data[()], value.known, None, value.taint)

    return handler


for _name, _source, _target in (
    ("__int_as_float", C.INT, C.FLOAT), ("__uint_as_float", C.UINT, C.FLOAT),
    ("__float_as_int", C.FLOAT, C.INT), ("__float_as_uint", C.FLOAT, C.UINT),
    ("__longlong_as_double", C.LLONG, C.DOUBLE), ("__double_as_longlong", C.DOUBLE, C.LLONG),
    ("__half_as_ushort", C.HALF, C.USHORT), ("__half_as_short", C.HALF, C.SHORT),
    ("__ushort_as_half", C.USHORT, C.HALF), ("__short_as_half", C.SHORT, C.HALF),
):
    BUILTINS[_name] = _bit_cast(_source, _target)


# classification: an int, nonzero where the float has the property (computed in the float's type)
for _name, _test in (("signbit", np.signbit), ("isnan", np.isnan), ("isinf", np.isinf),
                     ("isfinite", np.isfinite)):
    BUILTINS[_name] = _math(_test, 1, C.INT)
