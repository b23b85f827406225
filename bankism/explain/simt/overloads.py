"""Partial ordering of function templates, as nvcc picks between overloads a call matches equally.

Limits: only parameters written as a template type parameter (``T``, ``T*``, ``const T&``) are deduced;
any other parameter takes its argument by conversion and must be written alike in both templates to order
them; a call with explicit template arguments is not ordered here. Enough for the usual helper pairs,
``ceilDiv(T, T)`` against ``ceilDiv(T1, T2)``. Overloads (templates or not) that partial ordering does not
settle are ranked by how well each parameter's type fits its argument (``best_overload``).
"""

from __future__ import annotations

import numpy as np

from bankism.errors import BankismError
from bankism.explain.frontend import syntax as S
from bankism.explain.simt import ctype as C
from bankism.explain.simt.bindings import Frame
from bankism.explain.simt.ctype import CType
from bankism.explain.simt.machine import SimtMachine
from bankism.explain.simt.values import Failure, Mask, Value

#: One parameter's shape: (template type parameter name or None, the written type otherwise, pointers).
Shape = tuple[str | None, str, int]


def _shape(function: S.Function, param: S.Param) -> Shape:
    names = {p.name for p in function.template_params if p.is_type}
    written = param.type
    deduced = written.base if written.base in names and not written.args else None
    return (deduced, written.base, written.pointers)


def deduces(function: S.Function, argument_types: list[CType]) -> bool:
    """Whether each type parameter of ``function`` gets one type from the arguments (pointers peeled)."""
    found: dict[str, CType | None] = {}
    for param, argument in zip(function.params, argument_types, strict=True):
        name, _, pointers = _shape(function, param)
        if name is None:
            continue
        for _ in range(pointers):
            if getattr(argument, "kind", None) != "ptr":
                return False
            argument = argument.elem
        if found.setdefault(name, argument) != argument:
            return False
    return True


def at_least_as_specialized(first: S.Function, second: S.Function) -> bool:
    """Whether ``second``'s parameters deduce from ``first``'s as written (C++'s partial ordering test)."""
    bound: dict[str, tuple[str | None, str, int]] = {}
    for mine, theirs in zip(first.params, second.params, strict=True):
        shape, pattern = _shape(first, mine), _shape(second, theirs)
        if pattern[0] is None:
            if shape[0] is not None or shape[1:] != pattern[1:]:
                return False
            continue
        if shape[2] < pattern[2]:
            return False
        peeled = (shape[0], shape[1], shape[2] - pattern[2])
        if bound.setdefault(pattern[0], peeled) != peeled:
            return False
    return True


def most_specialized(candidates: list[S.Function], argument_types: list[CType]) -> S.Function | None:
    """The one function template among ``candidates`` that deduces from the arguments and is more
    specialized than every other that does; None where there is no such single one."""
    viable = [f for f in candidates if f.template_params and f.error is None
              and len(f.params) == len(argument_types) and deduces(f, argument_types)]
    for function in viable:
        if all(other is function or (at_least_as_specialized(function, other)
                                     and not at_least_as_specialized(other, function)) for other in viable):
            return function
    return None


def best_overload(machine: SimtMachine, candidates: list[S.Function], values: list[Value], expr: S.Node,
                  mask: Mask) -> S.Function:
    """The overload whose parameter types match the argument types best (exact type, then
    same kind); several equally good ones are refused."""
    scored = []
    for function in candidates:
        if function.error is not None:
            scored.append((0, function))
            continue
        score = 1
        scope: dict[str, object] = {}
        if function.template_params:  # its parameters' types with the template's arguments bound
            try:
                explicit = getattr(expr, "template_args", None) or []
                machine.bind_template(function, expr, scope, mask, explicit, None, values)
            except (Failure, BankismError):
                scored.append((0, function))
                continue
        frame = Frame(function, [scope], np.zeros(machine.threads, bool), None)
        machine.frames.append(frame)
        try:
            args = getattr(expr, "args", None) or [None] * len(values)
            for param, value, arg in zip(function.params, values, args, strict=False):
                score += C.argument_fit(machine.resolve_type(param.type, mask), value.type)
                if param.type.reference and not param.type.const:
                    # T& binds only an lvalue, and binds it better than const T& does
                    lvalue = isinstance(arg, S.Name | S.Subscript | S.Member) or (
                        isinstance(arg, S.Unary) and arg.op == "*")
                    score += 1 if lvalue else -1
        except (Failure, BankismError):
            score = -1
        finally:
            machine.frames.pop()
        scored.append((score, function))
    scored.sort(key=lambda item: -item[0])
    if len(scored) > 1 and scored[0][0] == scored[1][0]:
        raise Failure(expr, f"unsupported construct: several overloads of {candidates[0].name} match "
                            f"{len(values)} argument(s)")
    return scored[0][1]
