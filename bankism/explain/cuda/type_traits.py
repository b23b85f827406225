"""``<type_traits>`` as templated kernels use it: ``std::is_same_v<A, B>`` and
``std::is_same<A, B>::value`` as constants (the converter writes them as a call of
``__is_same`` with the two types as template arguments), and ``std::conditional_t<c, A, B>`` /
``std::conditional<c, A, B>::type`` as the type they choose."""

from __future__ import annotations

import numpy as np

from bankism.explain.cuda.registry import BUILTINS
from bankism.explain.frontend import syntax as S
from bankism.explain.frontend.expressions import IS_SAME
from bankism.explain.simt import ctype as C
from bankism.explain.simt.ctype import CType
from bankism.explain.simt.machine import SimtMachine
from bankism.explain.simt.values import Failure, Mask, Value, constant

#: The type templates read here: ``conditional_t<c, A, B>`` and ``conditional<c, A, B>::type``.
CONDITIONAL = ("conditional_t", "conditional")


def _as_type(machine: SimtMachine, arg: object, node: S.Node, mask: Mask) -> CType:
    """A template argument written as a type (a bare name may have been read as a value)."""
    if isinstance(arg, S.Name) and not arg.scope:
        arg = S.TypeName(arg.line, arg.text, arg.name, 0, [], False, False, None, None)
    if not isinstance(arg, S.TypeName):
        raise Failure(node, "unsupported construct: a type trait of something that is not a type")
    return machine.resolve_type(arg, mask)


def _is_same(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    if len(expr.template_args) != 2 or expr.args:
        raise Failure(expr, "is_same takes two types")
    full = Mask(np.ones(machine.threads, bool), True, False)
    first, second = (_as_type(machine, arg, expr, full) for arg in expr.template_args)
    return constant(C.BOOL, int(first == second))


BUILTINS[IS_SAME] = _is_same


def conditional_type(machine: SimtMachine, args: list, node: S.Node, mask: Mask) -> CType:
    """The type ``conditional_t<c, A, B>`` names: A where the constant c is true, else B."""
    if len(args or []) != 3:
        raise Failure(node, "conditional_t takes a condition and two types")
    condition = args[0]
    if isinstance(condition, S.TypeName):  # `true`, or a constant name, read as a type
        condition = S.Name(condition.line, condition.text, condition.base)
    holds = machine.integer_constant(condition, mask, "the condition of conditional_t")
    chosen = args[1] if holds else args[2]
    return _as_type(machine, chosen, node, mask)
