"""Calls in the SIMT interpreter: ``__device__`` functions (by value and by reference,
templates with explicit or deduced arguments, overloads), member functions, lambdas,
constructors written as calls, cooperative groups' operations and CUDA built-ins.

Every call pushes its call site on ``call_stack``: an access inside a helper is recorded
per call site, with its inline call stack."""

from __future__ import annotations

import dataclasses

import numpy as np

from bankism.errors import BankismError
from bankism.explain.cuda.builtins import BUILTINS, UNSUPPORTED, call_builtin
from bankism.explain.cuda.groups import group_method
from bankism.explain.frontend import syntax as S
from bankism.explain.simt import ctype as C
from bankism.explain.simt.bindings import (
    OBJECT_METHODS,
    Frame,
    MemLV,
    ObjectArray,
    TypeAlias,
    Variable,
    VarLV,
)
from bankism.explain.simt.ctype import CType
from bankism.explain.simt.overloads import best_overload, most_specialized
from bankism.explain.simt.records import member_path, method_path
from bankism.explain.simt.values import (
    Closure,
    Failure,
    FunctionName,
    Group,
    Mask,
    Pointer,
    Scalar,
    Struct,
    Value,
    Vector,
    constant,
    unknown,
)

MAX_CALL_DEPTH = 32


class Calls:
    """Function calls (a mixin of ``Machine``)."""

    def _call(self, expr: S.Call, mask: Mask) -> Value:
        frame = self.call_frame(expr, mask)
        if isinstance(frame, Frame):
            return self.call_result(frame, expr, mask)
        return frame

    def call_frame(self, expr: S.Call | S.MethodCall, mask: Mask) -> Frame | Value:
        """Run a call: the callee's finished frame (for its value or the lvalue it returned),
        or directly the value of a built-in or a constructor."""
        if isinstance(expr, S.MethodCall):
            return self._method_call(expr, mask)
        name = expr.function
        local = self._find_local(name)
        if isinstance(local, Variable) and isinstance(local.value, Closure):
            return self._call_closure(local.value, expr, mask)
        if isinstance(local, Variable) and isinstance(local.value, FunctionName) and isinstance(expr, S.Call):
            named = S.Call(expr.line, expr.text, local.value.name, expr.args, col=expr.col, file=expr.file)
            return self.call_frame(named, mask)  # `f(a, b)` with `f` a function passed as a value
        this_type = self.frame.this_type
        if local is None and this_type is not None and (member_path(this_type, name) is not None
                                                        or name in this_type.info.references):
            target = self.member_lvalue(self.frame.this, name, expr)  # `tile_(r, c)`: a member's operator()
            if self.lvalue_type(target).kind == "struct":
                local = Variable(name, self.lvalue_type(target), None, ref=target)
        if isinstance(local, Variable) and local.type.kind == "struct":
            method = self.find_method(local.type, "operator()", len(expr.args), expr)
            return self.invoke(method, expr, mask, args=expr.args, this=local.ref or VarLV(local),
                               this_type=local.type, base_scope=local.type.info.bindings)
        if local is None and this_type is not None and method_path(this_type, name, len(expr.args)):
            # a member function called by name inside another (of the class or a base)
            method, this, owner = self.method_target(this_type, self.frame.this, name, len(expr.args), expr)
            return self.invoke(method, expr, mask, args=expr.args, this=this, this_type=owner,
                               base_scope=owner.info.bindings, explicit=expr.template_args)
        owner = self.scope_struct(expr) if local is None and expr.scope else None
        if owner is not None:  # `L::off(r, k)`: a static member function
            method = self.find_method(owner, name, len(expr.args), expr)
            return self.invoke(method, expr, mask, args=expr.args, this_type=owner,
                               base_scope=owner.info.bindings, explicit=expr.template_args)
        if local is None and name in self.program.functions and not self._builtin_fits_better(expr, mask):
            return self._call_function(expr, mask)
        struct = self.named_struct(name, expr.template_args, expr, mask) if local is None else None
        if struct is not None:
            return self.construct_from(struct, expr.args, mask, expr)
        if name in BUILTINS:
            return call_builtin(self, expr, mask)
        named = local.type if isinstance(local, TypeAlias) else C.lookup(name) if local is None else None
        if named is None and local is None and name in self.program.aliases:  # `using Acc = float;` `Acc(0)`
            named = self.resolve_type(self.program.aliases[name], mask)
        if named is not None:  # `V{}`, `T(x)` with V, T template type parameters or aliases
            return self.construct_from(named, expr.args, mask, expr)
        raise Failure(expr, f"unsupported construct: call to unknown function {name}()")

    def call_result(self, frame: Frame, expr: S.Node, mask: Mask) -> Value:
        if frame.result_lvalue is not None:
            return self.load(returned_lvalue(frame, expr), mask)
        if frame.return_type is not None and frame.return_type.kind == "void":
            return constant(C.INT, 0)
        if frame.result is None and frame.function.name == "lambda":
            return constant(C.INT, 0)  # a lambda without a returned value has type void (deduced)
        if frame.result is None:
            raise Failure(expr, f"{frame.function.name}() returned no value")
        return frame.result

    def _local_names(self) -> set[str]:
        return set().union(*self.frame.scopes)

    def _builtin_fits_better(self, expr: S.Call, mask: Mask) -> bool:
        """Whether a call of a name that is both a built-in and a function of the file (a
        ``float4 exp(float4)`` next to CUDA's ``exp``, a ``float atomicMax(float *, float)``
        calling the ``int`` one) is the built-in's: no plain overload of the file takes the
        arguments (a number for a number, a pointer to the same type, the same vector or struct)."""
        if expr.function not in BUILTINS or expr.function in UNSUPPORTED or any(
                isinstance(n, S.Assign | S.IncDec | S.MethodCall) or isinstance(n, S.Call) and (
                    n.function not in BUILTINS or n.function.startswith(_EFFECTS))
                for n in S.walk(list(expr.args))):
            return False
        values = [self.eval(a, mask) for a in expr.args]  # no side effects: evaluated again later
        for function in self.program.functions[expr.function]:
            if function.template_params or function.error is not None or len(function.params) != len(values):
                return False
            frame = Frame(function, [{}], np.zeros(self.threads, bool), None)
            self.frames.append(frame)
            try:
                types = [self.parameter_type(p.type, mask) for p in function.params]
                if all(_takes(t, v) for t, v in zip(types, values, strict=True)):
                    return False
            except (Failure, BankismError):
                return False
            finally:
                self.frames.pop()
        return True

    def _call_function(self, expr: S.Call, mask: Mask) -> Frame:
        given = len(expr.args)
        candidates = [f for f in self.program.functions[expr.function]
                      if not f.is_kernel and len(f.params) >= given
                      and all(p.default is not None for p in f.params[given:])]
        if not candidates:
            unreadable = [f for f in self.program.functions[expr.function] if f.error is not None]
            if unreadable:  # its parameters were not read: say why rather than "no such function"
                raise BankismError(unreadable[0].error)
            raise Failure(expr, f"unsupported construct: no device function {expr.function} with "
                                f"{len(expr.args)} argument(s)")
        if len(candidates) > 1:  # `load(frag<use_a, N> &)` against `load(frag<use_b, N> &)`
            candidates = self.instance_candidates(candidates, expr, mask) or candidates
        if len(candidates) == 1:
            args = list(expr.args) + [p.default for p in candidates[0].params[given:]]
            return self.invoke(candidates[0], expr, mask, args=args, explicit=expr.template_args)
        if any(len(f.params) != given for f in candidates):
            raise Failure(expr, f"unsupported construct: several overloads of {expr.function} with default "
                                "arguments")
        values = [self.eval(a, mask) for a in expr.args]
        # function templates a call matches alike, all deduced (explicit arguments change the deduction)
        function = most_specialized(candidates, [v.type for v in values]) if not expr.template_args and all(
            f.template_params for f in candidates) else None
        function = function or best_overload(self, candidates, values, expr, mask)
        if any(p.type.reference for p in function.params) and not any(
                isinstance(n, S.Assign | S.IncDec | S.Call | S.MethodCall) for n in S.walk(list(expr.args))):
            # bind the chosen overload's references to the arguments themselves (evaluating
            # them again is harmless: they have no side effects)
            return self.invoke(function, expr, mask, args=expr.args, explicit=expr.template_args)
        return self.invoke(function, expr, mask, values=values, explicit=expr.template_args)

    def invoke(self, function: S.Function, expr: S.Node, mask: Mask, args: list[S.Expr] | None = None,
               values: list[Value] | None = None, this: object = None, this_type: CType | None = None,
               base_scope: dict[str, object] | None = None, explicit: list | None = None) -> Frame:
        """Run ``function`` for the threads of ``mask`` with arguments given as expressions
        (evaluated here, references bound to lvalues) or as values; return its frame."""
        if function.error is not None:
            raise BankismError(function.error)
        if len(self.frames) >= MAX_CALL_DEPTH:
            raise Failure(expr, "unsupported construct: recursion")
        scope: dict[str, object] = dict(base_scope or {})
        frame = Frame(function, [scope], np.zeros(self.threads, bool), None, this=this, this_type=this_type)
        params = function.params
        if args is not None:  # a brace list is built below, once its parameter's type is known
            values = [None if isinstance(a, S.InitList) else self.argument_value(a, mask)
                      if i < len(params) and params[i].type.reference else self.eval(a, mask)
                      for i, a in enumerate(args)]
        self.bind_template(function, expr, scope, mask, explicit or [], args, values)
        self.frames.append(frame)
        try:
            if function.return_type.base != "auto":
                frame.return_type = self.resolve_type(function.return_type, mask)
        finally:
            self.frames.pop()
        count = len(args) if args is not None else len(values or [])
        for position, param in enumerate(function.params[:count]):
            self.frames.append(frame)
            try:
                ptype = self.parameter_type(param.type, mask) if param.type.base != "auto" else None
            finally:
                self.frames.pop()
            if args is not None and isinstance(args[position], S.InitList):  # `f({a, b})`
                if ptype is None:
                    raise Failure(args[position], "unsupported construct: brace list for an auto parameter")
                values[position] = self.braced(ptype, args[position], mask, expr)
                if param.type.reference:
                    if not param.type.const:
                        raise Failure(args[position], "a brace list cannot bind a non-const reference")
                    temporary = Variable("(temporary)", ptype, self.copy_value(values[position]))
                    scope[param.name] = Variable(param.name, ptype, None, ref=VarLV(temporary))
                    continue
            if param.type.reference and args is not None:
                target = self.bind_reference(args[position], param.type, mask, ptype, values[position])
                scope[param.name] = Variable(param.name, self.lvalue_type(target), None, ref=target)
                continue
            value = values[position]
            if ptype is None:
                ptype = value.type
            if ptype.kind == "array":
                ptype = C.pointer_to(ptype.elem)
            if isinstance(value, ObjectArray) and ptype.kind == "ptr" and value.type.elem == ptype.elem:
                # an array of fragments (or pointers) decays to its first element: the callee
                # indexes the caller's objects themselves
                scope[param.name] = Variable(param.name, value.type, value)
                continue
            self.frames.append(frame)
            try:
                value = self.copy_value(self.coerce(value, ptype, expr))
                scope[param.name] = Variable(param.name, ptype, value)
            finally:
                self.frames.pop()
        self.note_call(function, expr)
        self.frames.append(frame)
        self.call_stack.append((function.name, expr))
        try:
            self._initialize_members(function, frame, mask)
            self.exec(self.program.body(function), mask)
        finally:
            self.call_stack.pop()
            self.frames.pop()
        return frame

    def parameter_type(self, type_name: S.TypeName, mask: Mask) -> CType:
        """A parameter's type: ``T p[]`` and ``T p[][N]`` are pointers to ``T`` and ``T[N]``."""
        if type_name.dims and type_name.dims[0] is None:
            pointee = dataclasses.replace(type_name, dims=type_name.dims[1:])
            return C.pointer_to(self.resolve_type(pointee, mask))
        return self.resolve_type(type_name, mask)

    def bind_template(
        self,
        function: S.Function,
        expr: S.Node,
        scope: dict[str, object],
        mask: Mask,
        explicit: list,
        args: list[S.Expr] | None,
        values: list[Value] | None,
    ) -> None:
        if not function.template_params:
            return
        for i, param in enumerate(function.template_params):
            given = explicit[i] if i < len(explicit) else None
            if given is None:
                given = self._deduce(function, param.name, expr, mask, args, values)
            if given is None:
                given = param.default
            if given is None:
                raise Failure(expr, f"cannot deduce template argument {param.name} of {function.name}")
            if param.is_type:
                if isinstance(given, CType):
                    scope[param.name] = TypeAlias(given)
                elif isinstance(given, S.TypeName):
                    scope[param.name] = TypeAlias(self.resolve_type(given, mask))
                else:
                    raise Failure(expr, f"template argument for {param.name} must be a type")
            elif isinstance(given, Scalar):
                scope[param.name] = given
            else:
                scope[param.name] = constant(C.INT, self.template_value(given, mask))

    def template_value(self, given: S.TypeName | S.Expr, mask: Mask) -> int:
        """A non-type template argument's value; a name the parser read as a type
        (``load<BM, BN>``) is read as a value."""
        if isinstance(given, S.TypeName):
            if given.pointers or given.dims or given.args:
                raise Failure(given, f"template argument {given.text} must be a value")
            given = S.Name(given.line, given.text, given.base, scope=given.scope, file=given.file)
        return self.integer_constant(given, mask, "template argument")

    def _argument(
        self, position: int, mask: Mask, args: list[S.Expr] | None, values: list[Value | None] | None
    ) -> Value:
        """An argument's value for deduction (a reference parameter's: its object's)."""
        value = values[position] if values is not None else None
        if value is None and args is not None:
            target = self.lvalue(args[position], mask)
            if isinstance(target, VarLV) and target.var.value is not None:
                return target.var.value
            t = self.lvalue_type(target)
            if t.kind == "struct":
                return Struct(t, {})
            return unknown(t, "a reference argument") if t.is_arithmetic else Pointer(t, None, np.int64(0))
        return value

    def _deduce(
        self,
        function: S.Function,
        name: str,
        expr: S.Node,
        mask: Mask,
        args: list[S.Expr] | None,
        values: list[Value | None] | None,
    ) -> CType | Scalar | None:
        count = len(args) if args is not None else len(values or [])
        for position, param in enumerate(function.params[:count]):
            type_name = param.type
            if type_name.base == name:
                value = self._argument(position, mask, args, values)
                t = value.type
                for _ in range(type_name.pointers + len(type_name.dims)):  # `T c[4]` is `T *c`
                    if t.kind != "ptr":
                        break
                    t = t.elem
                return t
            for arg in type_name.args or []:
                written = arg.base if isinstance(arg, S.TypeName) else getattr(arg, "name", None)
                if written != name:
                    continue
                value = self._argument(position, mask, args, values)
                if isinstance(value, Group):
                    return constant(C.INT, value.size)
                bound = (self.deduce_from_instance(function, type_name, value) or {}).get(name)  # by position
                if bound is None and isinstance(value, Struct) and value.type.info is not None:
                    bound = value.type.info.bindings.get(name)
                if isinstance(bound, TypeAlias):
                    return bound.type
                if isinstance(bound, Scalar):
                    return bound
        return None

    # --- member functions, lambdas ------------------------------------------------------------

    def _method_call(self, expr: S.MethodCall, mask: Mask) -> Frame | Value:
        if expr.arrow:
            pointer = self.eval(expr.base, mask)
            if not isinstance(pointer, Pointer):
                raise Failure(expr, "-> on something that is not a pointer")
            target = self._deref(pointer, expr)
            t = target.type
            base_value = None
        else:
            target = self._object_target(expr.base, mask)
            if target is not None:
                return OBJECT_METHODS[self.lvalue_type(target).kind](self, target, expr, mask)
            base_value = self.eval(expr.base, mask)
            if isinstance(base_value, Group):
                return group_method(self, base_value, expr, mask)
            if isinstance(base_value, Vector | Scalar | Pointer):
                raise Failure(
                    expr, f"unsupported construct: member function {expr.method}() of {base_value.type}"
                )
            if isinstance(base_value, Closure) and expr.method == "operator()":
                return self._call_closure(base_value, expr, mask)
            t = base_value.type
            target = self.object_lvalue(expr.base, base_value, mask)
        if t.kind in OBJECT_METHODS:
            return OBJECT_METHODS[t.kind](self, target, expr, mask)
        if t.kind != "struct":
            raise Failure(expr, f"unsupported construct: member function {expr.method}() of {t}")
        method, this, owner = self.method_target(t, target, expr.method, len(expr.args), expr)
        return self.invoke(method, expr, mask, args=expr.args, this=this, this_type=owner,
                           base_scope=owner.info.bindings, explicit=expr.template_args)

    def _object_target(self, expr: S.Expr, mask: Mask) -> object | None:
        """The object of ``obj.f()`` when it is one of the OBJECT_METHODS kinds (a
        ``cuda::barrier`` in shared memory, ``(*bar_ptr)``, a pipeline), else None."""
        root = expr
        while isinstance(root, S.Subscript):  # an element of an array of them (``bars[stage].wait()``)
            root = root.base
        if isinstance(root, S.Name):
            binding = self._find_local(root.name) or self.globals.get(root.name)
            element = C.array_shape(binding.type)[1] if getattr(binding, "type", None) is not None else None
            if element is None or element.kind not in OBJECT_METHODS:
                return None
        elif not (isinstance(expr, S.Unary) and expr.op == "*"):
            return None
        target = self.lvalue(expr, mask)
        return target if self.lvalue_type(target).kind in OBJECT_METHODS else None

    def object_lvalue(self, expr: S.Expr, value: Value, mask: Mask) -> object:
        """The object ``expr`` designates, or a temporary holding ``value`` when it is not an
        lvalue (a member function called on a returned struct)."""
        if isinstance(expr, S.Name | S.Member | S.Subscript | S.This) or (
            isinstance(expr, S.Unary) and expr.op == "*"
        ):
            return self.lvalue(expr, mask)
        return VarLV(Variable("(temporary)", value.type, value))

    def _call_closure(self, closure: Closure, expr: S.Call | S.MethodCall, mask: Mask) -> Frame:
        lam = closure.function
        if len(lam.params) != len(expr.args):
            raise Failure(expr, f"the lambda takes {len(lam.params)} argument(s)")
        if len(self.frames) >= MAX_CALL_DEPTH:
            raise Failure(expr, "unsupported construct: recursion")
        scope: dict[str, object] = {}
        for param, arg in zip(lam.params, expr.args, strict=True):
            if param.type.reference:
                ptype = None if param.type.base == "auto" else self.resolve_type(param.type, mask)
                target = self.bind_reference(arg, param.type, mask, ptype)
                scope[param.name] = Variable(param.name, self.lvalue_type(target), None, ref=target)
                continue
            value = self.eval(arg, mask)
            ptype = value.type if param.type.base == "auto" else self.resolve_type(param.type, mask)
            scope[param.name] = Variable(param.name, ptype, self.copy_value(self.coerce(value, ptype, arg)))
        function = S.Function(
            lam.line,
            lam.text,
            "lambda",
            S.TypeName(lam.line, "auto", "auto"),
            lam.params,
            [],
            False,
            lam.body_node,
        )
        frame = Frame(
            function, closure.scopes + [scope], np.zeros(self.threads, bool), None, this=closure.this
        )
        self.frames.append(frame)
        self.call_stack.append(("lambda", expr))
        try:
            self.exec(self.program.lambda_body(lam), mask)
        finally:
            self.call_stack.pop()
            self.frames.pop()
        return frame

    def _lambda(self, expr: S.Lambda, mask: Mask) -> Value:
        """A lambda expression: a closure over the scopes visible now (by reference; a
        ``[=]`` lambda sees the values of the moment it is made)."""
        capture_by_value = "[=" in expr.text.replace(" ", "")[:3]
        scopes = list(self.frame.scopes)
        if capture_by_value:
            scopes = [
                {
                    name: (Variable(b.name, b.type, b.value, b.ref) if isinstance(b, Variable) else b)
                    for name, b in scope.items()
                }
                for scope in scopes
            ]
        return Closure(C.CLOSURE, expr, scopes, self.frame.this)


#: Built-ins with effects (an argument calling one is not evaluated twice).
_EFFECTS = ("atomic", "__sync", "__st", "mem", "__threadfence", "__nanosleep", "__pipeline", "__ld")


def _takes(t: CType, value: Value) -> bool:
    """Whether a parameter of type ``t`` takes ``value`` (for choosing a built-in or not)."""
    if t.is_arithmetic:
        return isinstance(value, Scalar)
    if t.kind == "ptr":  # any pointer converts to a void *
        return isinstance(value, Pointer) and (t.elem.kind == "void" or value.type.elem == t.elem)
    return value.type == t


def returned_lvalue(frame: Frame, expr: S.Node) -> object:
    """The object a function returned by reference, as accessed at the call ``expr`` (a
    memory access through it happens there, so its site is the call's)."""
    target = frame.result_lvalue
    if isinstance(target, MemLV):
        return MemLV(target.region, target.offset, target.type, expr, target.known, target.taint)
    return target

