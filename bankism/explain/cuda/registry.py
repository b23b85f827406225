"""The table of CUDA built-in functions the interpreter knows (``BUILTINS``), filled by the modules of
``explain/cuda`` that stand in for them, and the argument helpers their handlers share."""

from __future__ import annotations

from collections.abc import Callable

from bankism.explain.frontend import syntax as S
from bankism.explain.simt.machine import SimtMachine
from bankism.explain.simt.values import Failure, Mask, Scalar, Value

Handler = Callable[[object, S.Call, Mask], Value]
BUILTINS: dict[str, Handler] = {}

#: The parameter type of built-ins whose one argument may be a brace list
#: (``__float22bfloat162_rn({a, b})`` builds the float2 it takes).
BRACED_PARAMETERS: dict[str, str] = {
    "__float22bfloat162_rn": "float2", "__float22half2_rn": "float2",
    "__bfloat1622float2": "__nv_bfloat162", "__half22float2": "__half2",
}


def call_builtin(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    """Evaluate a call of a built-in function; a brace-list argument of one in
    ``BRACED_PARAMETERS`` is read as that type built from the list (``float2(a, b)``)."""
    parameter = BRACED_PARAMETERS.get(expr.function)
    if parameter is not None and any(isinstance(a, S.InitList) for a in expr.args):
        args = [S.Call(a.line, a.text, parameter, a.items, col=a.col, file=a.file)
                if isinstance(a, S.InitList) else a for a in expr.args]
        expr = S.Call(expr.line, expr.text, expr.function, args, expr.template_args, col=expr.col,
                      file=expr.file)
    return BUILTINS[expr.function](machine, expr, mask)


def arguments(machine: SimtMachine, expr: S.Call, mask: Mask, count: int | tuple[int, ...]) -> list[Value]:
    """The values of a built-in's arguments, or a Failure when their number is not ``count``."""
    counts = (count,) if isinstance(count, int) else count
    if len(expr.args) not in counts:
        raise Failure(expr, f"{expr.function}() takes {' or '.join(map(str, counts))} argument(s)")
    return [machine.eval(a, mask) for a in expr.args]


def scalar_arguments(values: list[Value], expr: S.Call) -> list[Scalar]:
    """``values``, or a Failure when one is not arithmetic."""
    for v in values:
        if not isinstance(v, Scalar):
            raise Failure(expr, f"{expr.function}() needs arithmetic arguments, not {v.type}")
    return values  # type: ignore[return-value]

