"""16- and 8-bit floating types as values: the conversion and arithmetic intrinsics of
cuda_fp16.h, cuda_bf16.h and cuda_fp8.h that kernels use around shared memory (``half``,
``half2``, ``__nv_bfloat16``, ``__nv_bfloat162``, ``__nv_fp8_e4m3``/``e5m2``). Values are
computed in float and rounded to the type on conversion (ctype.ROUNDING)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from bankism.explain.cuda.builtins import BUILTINS
from bankism.explain.frontend import syntax as S
from bankism.explain.simt import ctype as C
from bankism.explain.simt.machine import SimtMachine
from bankism.explain.simt.values import Failure, Mask, Scalar, Value, Vector, and_flags, convert

HALF2 = C.VECTORS["half2"]
BF162 = C.VECTORS["__nv_bfloat162"]


def _values(machine: SimtMachine, expr: S.Call, mask: Mask, count: int) -> list[Value]:
    if len(expr.args) != count:
        raise Failure(expr, f"{expr.function}() takes {count} argument(s)")
    return [machine.eval(a, mask) for a in expr.args]


def _scalar(value: Value, expr: S.Call) -> Scalar:
    if not isinstance(value, Scalar):
        raise Failure(expr, f"{expr.function}() needs a number, not {value.type}")
    return value


def _pair(value: Value, expr: S.Call) -> Vector:
    if not isinstance(value, Vector) or value.type.count != 2:
        raise Failure(expr, f"{expr.function}() needs a two-component value, not {value.type}")
    return value


def _convert_to(target: C.CType) -> Callable:
    """x -> target (``__float2bfloat16``, ``__bfloat162float``, ``__nv_fp8_e4m3(x)``, ...)."""

    def handler(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
        (value,) = _values(machine, expr, mask, 1)
        return convert(_scalar(value, expr), target)

    return handler


def _pack(target: C.CType, element: C.CType) -> Callable:
    """(a, b) -> target pair (``__floats2bfloat162_rn``, ``__halves2bfloat162``, ...)."""

    def handler(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
        values = _values(machine, expr, mask, 2)
        return Vector(target, [convert(_scalar(v, expr), element) for v in values])

    return handler


def _splat(target: C.CType, element: C.CType) -> Callable:
    """x -> (x, x) (``__half2half2``, ``__float2half2_rn``, ``__bfloat162bfloat162``)."""

    def handler(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
        (value,) = _values(machine, expr, mask, 1)
        scalar = convert(_scalar(value, expr), element)
        return Vector(target, [scalar, scalar])

    return handler


def _pair_to(target: C.CType) -> Callable:
    """pair -> pair of another element type (``__bfloat1622float2``, ``__float22bfloat162_rn``)."""

    def handler(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
        (value,) = _values(machine, expr, mask, 1)
        return Vector(target, [convert(c, target.elem) for c in _pair(value, expr).comps])

    return handler


def _half_of(index: int, as_float: bool) -> Callable:
    """pair -> one component (``__low2half``, ``__high2float``, ...)."""

    def handler(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
        (value,) = _values(machine, expr, mask, 1)
        component = _pair(value, expr).comps[index]
        return convert(component, C.FLOAT) if as_float else component

    return handler


def _lanewise(function: Callable, arity: int) -> Callable:
    """Arithmetic on 16-bit scalars or pairs in the arguments' own type (``__hadd`` on half or
    bf16, ``__hadd2``, ``__hfma2``, ``__hmax``...), computed in float and rounded."""

    def scalar(values: list[Scalar], t: C.CType) -> Scalar:
        known: bool | np.ndarray = True
        taint = None
        data = []
        for v in values:
            known = and_flags(known, v.known)
            taint = taint or v.taint
            data.append(np.asarray(convert(v, C.FLOAT).data, np.float32))
        with np.errstate(all="ignore"):
            result = np.asarray(function(*data), np.float32)
        return convert(Scalar(C.FLOAT, result if result.ndim else result[()], known, None, taint), t)

    def handler(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
        values = _values(machine, expr, mask, arity)
        if all(isinstance(v, Vector) for v in values):
            t = values[0].type
            return Vector(t, [scalar([v.comps[i] for v in values], t.elem) for i in range(t.count)])
        scalars = [_scalar(v, expr) for v in values]
        t = scalars[0].type if scalars[0].type.kind == "float" and scalars[0].type.size <= 2 else C.HALF
        return scalar(scalars, t)

    return handler


for _target, _names in (
    (C.BF16, ("__float2bfloat16", "__float2bfloat16_rn", "__float2bfloat16_rz", "__double2bfloat16",
              "__int2bfloat16_rn", "__uint2bfloat16_rn", "__nv_bfloat16", "nv_bfloat16")),
    (C.HALF, ("__int2half_rn", "__uint2half_rn", "__double2half", "__half", "half", "__float2half_rz")),
    (C.FLOAT, ("__bfloat162float",)),
    (C.INT, ("__half2int_rn", "__half2int_rz", "__bfloat162int_rn", "__bfloat162int_rz")),
    (C.FP8_E4M3, ("__nv_fp8_e4m3",)),
    (C.FP8_E5M2, ("__nv_fp8_e5m2",)),
):
    for _name in _names:
        BUILTINS[_name] = _convert_to(_target)

BUILTINS["__floats2bfloat162_rn"] = _pack(BF162, C.BF16)
BUILTINS["__halves2bfloat162"] = _pack(BF162, C.BF16)
BUILTINS["make_bfloat162"] = _pack(BF162, C.BF16)
BUILTINS["__nv_bfloat162"] = _pack(BF162, C.BF16)
BUILTINS["__half2"] = _pack(HALF2, C.HALF)
BUILTINS["__half2half2"] = _splat(HALF2, C.HALF)
BUILTINS["__float2half2_rn"] = _splat(HALF2, C.HALF)
BUILTINS["__bfloat162bfloat162"] = _splat(BF162, C.BF16)
BUILTINS["__float2bfloat162_rn"] = _splat(BF162, C.BF16)
BUILTINS["__bfloat1622float2"] = _pair_to(C.VECTORS["float2"])
BUILTINS["__float22bfloat162_rn"] = _pair_to(BF162)
for _name, _index, _as_float in (("__low2half", 0, False), ("__high2half", 1, False),
                                 ("__low2bfloat16", 0, False), ("__high2bfloat16", 1, False),
                                 ("__low2float", 0, True), ("__high2float", 1, True)):
    BUILTINS[_name] = _half_of(_index, _as_float)
for _name, _function, _arity in (
    ("__hadd", np.add, 2), ("__hsub", np.subtract, 2), ("__hmul", np.multiply, 2),
    ("__hdiv", np.divide, 2), ("__hfma", lambda a, b, c: a * b + c, 3), ("__hmax", np.fmax, 2),
    ("__hmin", np.fmin, 2), ("__hneg", np.negative, 1), ("__habs", np.abs, 1),
    ("__hadd2", np.add, 2), ("__hsub2", np.subtract, 2), ("__hmul2", np.multiply, 2),
    ("__h2div", np.divide, 2), ("__hfma2", lambda a, b, c: a * b + c, 3), ("__hmax2", np.fmax, 2),
    ("__hmin2", np.fmin, 2), ("__hneg2", np.negative, 1), ("__habs2", np.abs, 1),
):
    BUILTINS[_name] = _lanewise(_function, _arity)


def _comparison(function: Callable, both: bool | None) -> Callable:
    """A comparison of 16-bit floats: a ``bool`` for scalars (``__heq``, ``__hlt``...) or, with
    ``both``, for pairs (``__hbeq2``: both halves hold); on pairs without ``both`` a pair of 1.0/0.0 in
    the arguments' type (``__heq2``). Unordered forms (``__hequ``) are true where a value is NaN."""

    def compare(a: Scalar, b: Scalar) -> Scalar:
        x, y = (np.asarray(convert(v, C.FLOAT).data, np.float32) for v in (a, b))
        with np.errstate(all="ignore"):
            result = function(x, y)
        return Scalar(C.BOOL, result if result.ndim else result[()], and_flags(a.known, b.known), None,
                      a.taint or b.taint)

    def handler(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
        left, right = _values(machine, expr, mask, 2)
        if both is None:
            return compare(_scalar(left, expr), _scalar(right, expr))
        pairs = _pair(left, expr), _pair(right, expr)
        results = [compare(pairs[0].comps[i], pairs[1].comps[i]) for i in range(2)]
        if both:
            data = np.logical_and(results[0].data, results[1].data)
            return Scalar(C.BOOL, data, and_flags(results[0].known, results[1].known), None,
                          results[0].taint or results[1].taint)
        return Vector(pairs[0].type, [convert(r, pairs[0].type.elem) for r in results])

    return handler


def _unordered(function: Callable) -> Callable:
    return lambda x, y: function(x, y) | np.isnan(x) | np.isnan(y)


for _name, _function in (("eq", np.equal), ("ne", np.not_equal), ("lt", np.less), ("le", np.less_equal),
                         ("gt", np.greater), ("ge", np.greater_equal)):
    _ordered = (lambda f: lambda x, y: f(x, y) & ~np.isnan(x) & ~np.isnan(y))(_function)
    for _suffix, _rule in (("", _ordered), ("u", _unordered(_function))):
        BUILTINS[f"__h{_name}{_suffix}"] = _comparison(_rule, None)
        BUILTINS[f"__h{_name}2{_suffix}"] = _comparison(_rule, False)
        BUILTINS[f"__hb{_name}2{_suffix}"] = _comparison(_rule, True)
