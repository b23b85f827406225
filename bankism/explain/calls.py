"""Calls in the SIMT interpreter: ``__device__`` functions (by value and by reference,
templates with explicit or deduced arguments) and CUDA built-ins."""

from __future__ import annotations

import numpy as np

from bankism.explain import ctype as C
from bankism.explain import syntax as S
from bankism.explain.bindings import (
    Frame,
    TypeAlias,
    Variable,
)
from bankism.explain.builtins import BUILTINS, call_builtin
from bankism.explain.ctype import CType
from bankism.explain.values import (
    Failure,
    Mask,
    Value,
    constant,
)

MAX_CALL_DEPTH = 32


class Calls:
    """Function calls (a mixin of ``Machine``)."""

    def _call(self, expr: S.Call, mask: Mask) -> Value:
        name = expr.function
        if name in self.program.functions and name not in self._local_names():
            return self._call_function(expr, mask)
        if name in BUILTINS:
            return call_builtin(self, expr, mask)
        raise Failure(expr, f"unsupported construct: call to unknown function {name}()")

    def _local_names(self) -> set[str]:
        return set().union(*self.frame.scopes)

    def _call_function(self, expr: S.Call, mask: Mask) -> Value:
        candidates = [f for f in self.program.functions[expr.function]
                      if len(f.params) == len(expr.args) and not f.is_kernel]
        if len(candidates) != 1:
            what = "no device function" if not candidates else "several overloads of"
            raise Failure(expr, f"unsupported construct: {what} {expr.function} with "
                                f"{len(expr.args)} argument(s)")
        function = candidates[0]
        if len(self.frames) >= MAX_CALL_DEPTH:
            raise Failure(expr, "unsupported construct: recursion")
        scope: dict[str, object] = {}
        self._bind_template(function, expr, scope, mask)
        frame = Frame(function, [scope], np.zeros(self.threads, bool), C.VOID)
        self.frames.append(frame)
        try:
            frame.return_type = self.resolve_type(function.return_type, mask)
        finally:
            self.frames.pop()
        for param, arg in zip(function.params, expr.args, strict=True):
            self.frames.append(frame)
            try:
                ptype = self.resolve_type(param.type, mask) if param.type.base != "auto" else None
            finally:
                self.frames.pop()
            if param.type.reference:
                target = self.lvalue(arg, mask)
                scope[param.name] = Variable(param.name, self.lvalue_type(target), None, ref=target)
                continue
            value = self.eval(arg, mask)
            if ptype is None:
                ptype = value.type
            if ptype.kind == "array":
                ptype = C.pointer_to(ptype.elem)
            scope[param.name] = Variable(param.name, ptype, self.coerce(value, ptype, arg))
        self.frames.append(frame)
        try:
            self.exec(self.program.body(function), mask)
        finally:
            self.frames.pop()
        if frame.return_type.kind == "void":
            return constant(C.INT, 0)
        if frame.result is None:
            raise Failure(expr, f"{function.name}() returned no value")
        return frame.result

    def _bind_template(self, function: S.Function, expr: S.Call, scope: dict[str, object],
                       mask: Mask) -> None:
        if not function.template_params:
            return
        explicit = list(expr.template_args)
        for i, param in enumerate(function.template_params):
            given = explicit[i] if i < len(explicit) else param.default
            if given is None:
                given = self._deduce(function, param.name, expr, mask)
            if param.is_type:
                if isinstance(given, CType):
                    scope[param.name] = TypeAlias(given)
                elif isinstance(given, S.TypeName):
                    scope[param.name] = TypeAlias(self.resolve_type(given, mask))
                else:
                    raise Failure(expr, f"template argument for {param.name} must be a type")
            else:
                if isinstance(given, S.TypeName) and not given.pointers and not given.dims:
                    given = S.Name(given.line, given.text, given.base)  # `f<N>()`: N parses as a type
                if isinstance(given, S.Expr):
                    value = self.integer_constant(given, mask, "template argument")
                    scope[param.name] = constant(C.INT, value)
                else:
                    raise Failure(expr, f"cannot deduce template argument {param.name}")

    def _deduce(self, function: S.Function, name: str, expr: S.Call, mask: Mask) -> CType:
        for param, arg in zip(function.params, expr.args, strict=True):
            if param.type.base == name:
                value = self.eval(arg, mask)
                t = value.type
                for _ in range(param.type.pointers):
                    if t.kind != "ptr":
                        break
                    t = t.elem
                return t
        raise Failure(expr, f"cannot deduce template argument {name} of {function.name}")


