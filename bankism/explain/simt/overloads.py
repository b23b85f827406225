"""Partial ordering of function templates, as nvcc picks between overloads a call matches equally.

Limits: only parameters written as a template type parameter (``T``, ``T*``, ``const T&``) are deduced;
any other parameter takes its argument by conversion and must be written alike in both templates to order
them; a call with explicit template arguments is not ordered here. Enough for the usual helper pairs,
``ceilDiv(T, T)`` against ``ceilDiv(T1, T2)``.
"""

from __future__ import annotations

from bankism.explain.frontend import syntax as S
from bankism.explain.simt.ctype import CType

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
