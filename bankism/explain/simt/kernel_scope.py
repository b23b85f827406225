"""The names a kernel starts with: its template parameters and parameters (pointers become
symbolic global matrices named after the parameter, scalars take the given values), and the
file-scope constants and __constant__/__device__ arrays it may use."""

from __future__ import annotations

import dataclasses

import numpy as np

from bankism.explain.frontend import syntax as S
from bankism.explain.simt import ctype as C
from bankism.explain.simt.bindings import Frame, GlobalArray, TypeAlias, Variable
from bankism.explain.simt.ctype import CType
from bankism.explain.simt.memory import GlobalMatrix, LocalArray
from bankism.explain.simt.values import Failure, Mask, Pointer, Scalar, Struct, Vector, constant, unknown


class KernelScope:
    """The kernel's starting scope (a mixin of ``Machine``)."""

    def _kernel_scope(self, template_values: dict[str, object],
                      param_values: dict[str, int | float | None]) -> dict[str, object]:
        """Template parameters (constants or type aliases) and parameters: pointers become
        symbolic global matrices named after the parameter, scalars take the given values."""
        scope: dict[str, object] = {}
        full = Mask(np.ones(self.threads, bool), True, False)
        self._file_scope(full)
        self.frames.append(Frame(self.kernel, [scope], np.zeros(self.threads, bool), C.VOID))
        try:
            for param in self.kernel.template_params:
                given = template_values.get(param.name, param.default)
                if given is None:
                    what = "TYPE" if param.is_type else "VALUE"
                    raise Failure(param, f"template parameter {param.name} has no value: give "
                                         f"-D {param.name}={what} or launch it with <...>")
                if param.is_type:
                    t = given if isinstance(given, CType) else self.resolve_type(given, full)
                    scope[param.name] = TypeAlias(t)
                elif isinstance(given, int):
                    scope[param.name] = constant(C.INT, given)
                else:
                    value = self.integer_constant(given, full, "template argument")
                    scope[param.name] = constant(C.INT, value)
            used = None
            for param in self.kernel.params:
                try:
                    t = self.resolve_type(param.type, full)
                except Failure:
                    # A parameter of a type bankism does not model (a tag such as
                    # std::bool_constant<A>, a library state) costs nothing unless the
                    # kernel names it.
                    if used is None:
                        body = self.program.body(self.kernel)
                        used = {n.name for n in S.walk(body) if isinstance(n, S.Name)}
                    if not param.name or param.name not in used:
                        continue
                    raise
                if t.kind == "array":
                    t = C.pointer_to(t.elem)
                if param.type.reference:
                    raise Failure(param, "unsupported construct: reference parameter of a kernel")
                if t.kind == "ptr":
                    given = param_values.get(param.name)
                    matrix = GlobalMatrix(param.name, t.elem, len(self.matrices),
                                          None if given is None else given == 0)
                    self._stated_data(matrix, parameter=True)
                    self.matrices.append(matrix)
                    scope[param.name] = Variable(param.name, t, Pointer(t, matrix, np.int64(0)))
                elif t.is_arithmetic:
                    value = self._scalar_argument(param.name, t, param_values)
                    scope[param.name] = Variable(param.name, t, value)
                elif t.kind == "struct":  # a struct passed by value: fields from -D A.width=...
                    value = self._struct_argument(param.name, t, param_values, param)
                    scope[param.name] = Variable(param.name, t, value)
                elif t.kind == "sync" and t.size > 0:  # an opaque descriptor (CUtensorMap): its address
                    scope[param.name] = Variable(param.name, t, None)  # is passed on, its bytes never read
                else:
                    raise Failure(param, f"unsupported construct: kernel parameter of type {t}")
        finally:
            self.frames.pop()
        return scope

    def _stated_data(self, matrix: GlobalMatrix, parameter: bool) -> None:
        """Attach what ``--data`` says the matrix holds (kernel pointers take the default rule)."""
        data = self.context.data
        if data is not None:
            matrix.rule, matrix.data = data.rule_for(matrix.name, parameter), data

    def _scalar_argument(self, name: str, t: CType, param_values: dict[str, int | float | None]) -> Scalar:
        """A scalar kernel argument (or a struct argument's field ``A.width``): the given value,
        else a value bankism does not know, saying how to give it."""
        given = param_values.get(name)
        if given is None:
            return unknown(t, f"kernel parameter {name} (give -D {name}=VALUE)")
        return constant(t, given)

    def _struct_argument(self, name: str, t: CType, param_values: dict[str, int | float | None],
                         node: S.Node) -> Struct:
        """A struct kernel argument: pointer fields point to global matrices named
        ``A.elements``, scalar fields take ``-D A.width=VALUE`` (else are not known)."""
        fields: dict[str, object] = {}
        for field_name, ft, _ in t.fields:
            path = f"{name}.{field_name}"
            if ft.kind == "struct":
                fields[field_name] = self._struct_argument(path, ft, param_values, node)
            elif ft.kind == "ptr":
                matrix = GlobalMatrix(path, ft.elem, len(self.matrices))
                self._stated_data(matrix, parameter=True)
                self.matrices.append(matrix)
                fields[field_name] = Pointer(ft, matrix, np.int64(0))
            elif ft.is_arithmetic:
                fields[field_name] = self._scalar_argument(path, ft, param_values)
            elif ft.kind == "vec":
                fields[field_name] = Vector(ft, [unknown(ft.elem, f"kernel parameter {path}")
                                                 for _ in range(ft.count)])
            elif ft.kind == "array" and ft.scalar.is_arithmetic:
                fields[field_name] = LocalArray(path, ft, self.threads)
            else:
                raise Failure(node, f"unsupported construct: kernel parameter {name} holds a {ft}")
        return Struct(t, fields)

    def _file_scope(self, mask: Mask) -> None:
        """File-scope names a kernel may use: const/constexpr numbers (evaluated here; ones
        that cannot be are left out) and __constant__/__device__ arrays (symbolic, like
        global matrices)."""
        self.frames.append(Frame(self.kernel, [self.globals], np.zeros(self.threads, bool), C.VOID))
        try:
            self.declare_enums(self.program.enums, self.globals, mask)
            for decl in self.program.globals:
                for item in decl.items:
                    self._global_item(decl, item, mask)
        finally:
            self.frames.pop()

    def _global_item(self, decl: S.Decl, item: S.Declarator, mask: Mask) -> None:
        try:
            if decl.space in ("constant", "device"):
                # `__constant__ float table[] = {...}`: the size is the initializer's length
                t = self.resolve_type(self.sized_by_initializer(item.type, item.init, mask), mask)
                matrix = GlobalMatrix(item.name, t.scalar if t.kind == "array" else t, len(self.matrices))
                self._stated_data(matrix, parameter=False)
                self.matrices.append(matrix)
                self.globals[item.name] = GlobalArray(matrix, t)
            elif item.type.const and item.init is not None and is_constant_expression(item.init):
                self._declare_local(item, mask)
        except Failure:
            return

    def sized_by_initializer(self, type_name: S.TypeName, init: S.Expr | None, mask: Mask) -> S.TypeName:
        """``T a[] = {...}``: the type with its first size taken from the initializer's length
        (``type_name`` itself when the size is written or there is no brace list)."""
        if not (type_name.dims and type_name.dims[0] is None and isinstance(init, S.InitList)):
            return type_name
        inner = 1
        for dim in type_name.dims[1:]:
            inner *= self.integer_constant(dim, mask, "array size")
        count = -(-flat_count(init) // inner)
        size = S.Literal(init.line, str(count), count, "int")
        return dataclasses.replace(type_name, dims=[size, *type_name.dims[1:]])

    def _try_constant_decl(self, stmt: S.Decl, mask: Mask) -> None:
        """Evaluate ``const int TILE = 32;``-style declarations so array sizes can use them."""
        for item in stmt.items:
            if not (item.type.const and item.init is not None and is_constant_expression(item.init)):
                return
        try:
            self._decl(stmt, mask)
        except Failure:
            return


_CONSTANT_NODES = (S.Literal, S.Name, S.Binary, S.Unary, S.Conditional, S.Cast, S.SizeOf, S.TypeName,
                   S.InitList)


def is_constant_expression(expr: S.Expr) -> bool:
    """Whether ``expr`` only combines names and literals (no memory access, no call)."""
    for node in S.walk(expr):
        if not isinstance(node, _CONSTANT_NODES):
            return False
        if isinstance(node, S.Unary) and node.op in ("*", "&"):
            return False
    return True


def flat_count(init: S.InitList) -> int:
    """How many scalars a (nested) brace initializer lists."""
    return sum(flat_count(i) if isinstance(i, S.InitList) else 1 for i in init.items)
