"""The table of CUDA built-in functions the interpreter knows (``BUILTINS``), filled by the modules of
``explain/cuda`` that stand in for them, and the argument helpers their handlers share."""

from __future__ import annotations

from collections.abc import Callable

from bankism.explain.frontend import syntax as S
from bankism.explain.simt.machine import SimtMachine
from bankism.explain.simt.values import Failure, Mask, Scalar, Value

Handler = Callable[[object, S.Call, Mask], Value]
BUILTINS: dict[str, Handler] = {}


def call_builtin(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    """Evaluate a call of a built-in function."""
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

