"""Structs, classes and unions in device code: instantiation (class templates and their
specializations), layout as nvcc lays out a struct (members in order, each at its natural
alignment, the size rounded to the largest alignment; a union's members all at offset 0),
values (one value per member), constructors (member initializers, then the body),
aggregate initialization, conversion operators and operators."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bankism.errors import BankismError
from bankism.explain.frontend import syntax as S
from bankism.explain.simt import ctype as C
from bankism.explain.simt.bindings import CompLV, Frame, MemLV, TypeAlias, Variable, VarLV
from bankism.explain.simt.ctype import CType
from bankism.explain.simt.memory import LocalArray
from bankism.explain.simt.records import BASE_PREFIX
from bankism.explain.simt.specializations import Specializations
from bankism.explain.simt.values import Failure, Mask, Struct, Value, constant

#: Where a struct object keeps what its reference member ``m`` is bound to: ``fields["&m"]``.
REFERENCE_PREFIX = "&"


@dataclass(eq=False)
class StructInfo:
    """One instantiation of a struct: its definition and what its names mean inside it
    (template parameters, static constexpr members, member aliases)."""

    definition: S.StructDef
    bindings: dict[str, object] = field(default_factory=dict)
    #: The declarator of each entry of the type's ``fields``: base subobjects first.
    items: list[S.Declarator] = field(default_factory=list)
    #: Reference members (``Span &tile;``): no storage here; each object holds what its
    #: constructor bound them to (``Struct.fields["&tile"]``).
    references: dict[str, S.TypeName] = field(default_factory=dict)
    #: The template arguments, the primary's defaults included (matching nested template-ids).
    arguments: tuple = ()


def _key(value: object) -> object:
    if isinstance(value, CType):
        return ("type", value.name)
    return ("value", value)


#: Qualifiers that name a namespace, never a type (no type lookup for ``nvcuda::wmma::mma_sync``).
_NAMESPACES = frozenset({"std", "nvcuda", "wmma", "cuda", "cooperative_groups", "cg", "__gnu_cxx"})


class Structs(Specializations):
    """Struct types and values (a mixin of ``Machine``)."""

    def named_struct(self, name: str, args: list | None, node: S.Node, mask: Mask) -> CType | None:
        """The struct type ``name<args>`` names here (an alias of one included), or None."""
        alias = self._find_alias(name)
        if alias is not None:
            return alias if alias.kind == "struct" else None
        if name not in self.program.structs:
            return None
        return self.struct_type(name, args, node, mask)

    def _find_alias(self, name: str) -> CType | None:
        for scope in reversed(self.frame.scopes):
            binding = scope.get(name)
            if isinstance(binding, TypeAlias):
                return binding.type
        if self.frame.this_type is not None:
            binding = self.frame.this_type.info.bindings.get(name)
            if isinstance(binding, TypeAlias):
                return binding.type
        return None

    def struct_type(self, name: str, args: list | None, node: S.Node, mask: Mask,
                    enclosing: tuple[str, dict[str, object]] | None = None) -> CType:
        """Instantiate struct ``name`` with template arguments ``args`` (written in the
        current scope): pick the specialization that matches, bind its parameters, lay it out.
        ``enclosing`` (label, names) is the instantiation an unnamed member struct is inside."""
        definitions = self.program.structs[name]
        values = [self._template_argument_value(a, mask) for a in (args or [])]
        key = (name, tuple(_key(v) for v in values), enclosing[0] if enclosing else None)
        cached = self._struct_types.get(key)
        if cached is not None:
            return cached
        chosen, bindings, arguments = self.choose_definition(definitions, values, node)
        if chosen.error is not None:
            raise BankismError(chosen.error)
        if enclosing is not None:  # its names are the enclosing struct's (template parameters too)
            bindings = {**enclosing[1], **bindings}
        info = StructInfo(chosen, bindings, arguments=tuple(arguments))
        label = name + (f"<{', '.join(v.name if isinstance(v, CType) else str(v) for v in values)}>"
                        if values else "")
        if enclosing is not None:
            label = enclosing[0] + name[name.index("::"):]
        frame = Frame(self.kernel, [dict(self.globals), bindings], np.zeros(self.threads, bool), None)
        self.frames.append(frame)
        try:
            bases = []
            for written in chosen.bases:  # base subobjects first; an empty base takes no room
                base_type = self.resolve_type(written, mask)
                if base_type.kind != "struct":
                    raise Failure(written, f"unsupported construct: base class {base_type}")
                for inherited, binding in base_type.info.bindings.items():
                    bindings.setdefault(inherited, binding)
                if base_type.fields:
                    item = S.Declarator(written.line, written.text, BASE_PREFIX + written.base, written, None)
                    bases.append((item, base_type))
            self.declare_enums(chosen.enums, bindings, mask)
            # member aliases and static constants in declaration order: each may name the ones before it
            # (`static constexpr int kBytes = B_; using Shape = Tile<kBytes>;`)
            constants = [(i.line, i.name, None, i) for i in chosen.statics if i.init is not None]
            aliases = [(alias.line, alias_name, alias, None) for alias_name, alias in chosen.aliases]
            for _, alias_name, alias, item in sorted(aliases + constants, key=lambda entry: entry[0]):
                if item is None:
                    bindings[alias_name] = TypeAlias(self.resolve_type(alias, mask))
                elif isinstance(item.init, S.InitList):  # `static constexpr int N{4};`
                    t = self.resolve_type(item.type, mask)
                    value = self._member_init(t, [item.init], mask, item)
                    bindings[item.name] = Variable(item.name, t, value)
                else:
                    value = self.eval(item.init, mask)
                    t = self.resolve_type(item.type, mask, value)
                    bindings[item.name] = Variable(item.name, t, self.coerce(value, t, item))
            members = [(item.name, t) for item, t in bases]
            nested = {inner.name for inner in chosen.nested}
            stored = [item for item in chosen.fields if not item.type.reference]
            info.references = {item.name: item.type for item in chosen.fields if item.type.reference}
            info.items = [item for item, _ in bases] + stored
            members += [(item.name, self.struct_type(item.type.base, None, item, mask, (label, bindings))
                         if item.type.base in nested and not item.type.pointers else
                         self.resolve_type(item.type, mask)) for item in stored]
            align = self.integer_constant(chosen.align, mask, "alignment") if chosen.align is not None else 1
        finally:
            self.frames.pop()
        fields, size, alignment = _layout(members, chosen.kind == "union", align)
        t = CType(label, "struct", size, alignment, fields=tuple(fields), info=info)
        self._struct_types[key] = t
        return t

    def _template_argument_value(self, arg: object, mask: Mask) -> object:
        if isinstance(arg, S.TypeName):
            if arg.decltype is not None or arg.scope_type is not None:  # `W<decltype(tile)>`
                return self.resolve_type(arg, mask)
            if not arg.pointers and not arg.dims and not arg.args and arg.base not in C.SCALARS and (
                    self._find_alias(arg.base) is None and arg.base not in self.program.structs
                    and arg.base not in self.program.aliases and C.lookup(arg.base) is None):
                return self.template_value(arg, mask)
            return self.resolve_type(arg, mask)
        return self.integer_constant(arg, mask, "template argument")

    # --- values ------------------------------------------------------------------------------

    def default_value(self, t: CType, mask: Mask) -> Value | LocalArray | None:
        """A value of type ``t`` nobody initialized (unknown), arrays as fresh local arrays."""
        if t.kind == "struct":
            return Struct(t, {name: self.default_value(ft, mask) for name, ft, _ in t.fields})
        if t.kind == "array":
            return LocalArray("(member)", t, self.threads)
        return self._uninitialized(t)

    def construct(self, t: CType, args: list[Value], mask: Mask, node: S.Node) -> Value:
        """``T(args)``, ``T{args}`` or ``T x(args)``: a constructor of ``t`` if it has one for
        these arguments, else aggregate initialization in member order."""
        if t.kind != "struct":
            if len(args) == 1:
                return self.coerce(args[0], t, node)
            if not args:
                return constant(t, 0) if t.is_arithmetic else self._uninitialized(t)
            if t.kind == "vec":
                return self._make_vector(t, args, node)
            raise Failure(node, f"unsupported construct: {t} built from {len(args)} values")
        info: StructInfo = t.info
        if len(args) == 1 and isinstance(args[0], Struct) and args[0].type == t:
            return self.copy_value(args[0])
        ctors = _constructors(t, len(args))
        if ctors:
            return self._run_constructor(t, ctors[0], node, mask, values=args)
        value = self._blank(t, mask, node, False)
        if args and info.references:  # aggregate `R r{a, b}` binding a reference member
            raise Failure(node, f"unsupported construct: aggregate initialization of {t}, which has "
                                "reference members")
        if len(args) > len(t.fields):
            raise Failure(node, f"too many initializers for {t}")
        for (name, ft, _), arg in zip(t.fields, args, strict=False):
            if ft.kind == "array":
                raise Failure(node, f"unsupported construct: brace initialization of array member {name}")
            value.fields[name] = self.coerce(arg, ft, node)
        return value

    def construct_from(self, t: CType, exprs: list[S.Expr], mask: Mask, node: S.Node) -> Value:
        """``T(a, b)`` from argument expressions: a constructor with reference parameters binds them
        to the arguments themselves (``BlockReduce(temp_storage)`` keeps the shared object, where
        evaluating ``temp_storage`` first would copy it); anything else is ``construct``."""
        ctors = _constructors(t, len(exprs)) if t.kind == "struct" else []
        if ctors and any(p.type.reference for p in ctors[0].params) and not any(
                isinstance(e, S.InitList) for e in exprs):
            return self._run_constructor(t, ctors[0], node, mask, args=exprs)
        return self.construct(t, [self.eval(e, mask) for e in exprs], mask, node)

    def _run_constructor(self, t: CType, ctor: S.Function, node: S.Node, mask: Mask,
                         args: list[S.Expr] | None = None, values: list[Value] | None = None) -> Value:
        """The object ``ctor`` builds from argument expressions (references bound to them) or values."""
        temporary = Variable("(temporary)", t, self._blank(t, mask, node, True))
        self.invoke(ctor, node, mask, args=args, values=values, this=VarLV(temporary), this_type=t,
                    base_scope=t.info.bindings)
        return temporary.value

    def _blank(self, t: CType, mask: Mask, node: S.Node, constructed: bool) -> Struct:
        """A struct before its constructor runs: default member initializers (without a constructor),
        base classes built, other members unknown."""
        value = Struct(t, {})
        for item, (name, ft, _) in zip(t.info.items, t.fields, strict=True):
            if item.init is not None and not constructed:
                value.fields[name] = self._member_init(ft, [item.init], mask, node)
            elif name.startswith(BASE_PREFIX):
                value.fields[name] = self.construct(ft, [], mask, node)
            else:
                value.fields[name] = self.default_value(ft, mask)
        return value

    def _member_init(self, t: CType, exprs: list[S.Expr], mask: Mask, node: S.Node) -> Value:
        if t.kind == "array" and len(exprs) == 1 and isinstance(exprs[0], S.InitList):  # `float x[4] = {};`
            array = LocalArray("(member)", t, self.threads)
            self._init_local_array(array, exprs[0], mask)
            return array
        if len(exprs) == 1 and isinstance(exprs[0], S.InitList):  # `T m{a, b};`, `m{}`
            exprs = exprs[0].items
        values = [self.eval(e, mask) for e in exprs]
        return self.construct(t, values, mask, node)

    def _initialize_members(self, function: S.Function, frame: Frame, mask: Mask) -> None:
        """A constructor's member initializers (``: x(a), y{b}``) and default member
        initializers, before its body runs."""
        if frame.this is None or function.name != frame.this_type.info.definition.name:
            return
        t = frame.this_type
        written = {name for name, _ in function.initializers}
        for item, (name, ft, _) in zip(t.info.items, t.fields, strict=True):
            if item.init is not None and name not in written:
                self.store_to(CompLV(frame.this, name, ft) if not isinstance(frame.this, MemLV)
                              else self.member_lvalue(frame.this, name, function), self._member_init(
                                  ft, [item.init], mask, function), mask, function)
        for name, exprs in function.initializers:
            if name in t.info.references:  # `: tile(s)`: bind the reference member
                if len(exprs) != 1:
                    raise Failure(function, f"a reference member {name} is bound to one object")
                bound = self.bind_reference(exprs[0], t.info.references[name], mask)
                self._reference_holder(frame.this, function).fields[REFERENCE_PREFIX + name] = bound
                continue
            member = next((f for f in t.fields if f[0] in (name, BASE_PREFIX + name)), None)
            name = member[0] if member is not None else name
            if member is None:
                raise Failure(function, f"unsupported construct: initializer of {name}, not a member of {t}")
            target = self.member_lvalue(frame.this, name, function)
            if member[1].kind == "array":
                continue
            self.store_to(target, self._member_init(member[1], exprs, mask, function), mask, function)

    def copy_value(self, value: Value) -> Value:
        """A copy of ``value`` (structs copy their array members)."""
        if not isinstance(value, Struct):
            return value
        fields = {}
        for name, member in value.fields.items():
            if isinstance(member, LocalArray):
                fields[name] = member.copy()
            else:
                fields[name] = self.copy_value(member)
        return Struct(value.type, fields)

    def member_lvalue(self, base: object, name: str, node: S.Node) -> object:
        """Member ``name`` of the struct object ``base`` (a variable or memory)."""
        t = self.lvalue_type(base)
        for member, ft, offset in t.fields:
            if member == name:
                if isinstance(base, MemLV):
                    return MemLV(base.region, base.offset + offset, ft, node, base.known, base.taint)
                return CompLV(base, name, ft)
        embedded = self.embedded_lvalue(base, name, node)
        if embedded is not None:
            return embedded
        if t.info is not None and name in t.info.references:  # a reference member: what it was bound to
            bound = self._reference_holder(base, node).fields.get(REFERENCE_PREFIX + name)
            if bound is None:
                raise Failure(node, f"unsupported construct: reference member {name} of {t} not bound by "
                                    "a constructor's initializer")
            return bound
        static = t.info.bindings.get(name) if t.info is not None else None
        if isinstance(static, Variable):  # a static member named through an object: `tile.cols_`
            return static.ref if static.ref is not None else VarLV(static)
        raise Failure(node, f"{t} has no member {name}")

    def _reference_holder(self, base: object, node: S.Node) -> Struct:
        """The struct object ``base`` designates, which holds its reference members' bindings
        (a local object; one in memory has no place for them)."""
        if isinstance(base, MemLV):
            raise Failure(node, "unsupported construct: a struct with reference members in memory")
        value = self.load(base, Mask(np.ones(self.threads, bool), True, False))
        if not isinstance(value, Struct):
            raise Failure(node, "unsupported construct: reference member of this object")
        return value

    def scope_struct(self, expr: S.Call) -> CType | None:
        """The struct type ``expr``'s qualifier names when it declares a member function of that name
        (``L::off`` with ``L`` a type parameter or alias), else None (a namespace, ``std``...)."""
        if expr.scope.split("::")[0] in _NAMESPACES:
            return None
        written = S.TypeName(expr.line, expr.text, expr.scope)
        written.file = expr.file
        try:
            owner = self.resolve_type(written, Mask(np.ones(self.threads, bool), True, False))
        except (Failure, BankismError):
            return None
        return owner if owner.kind == "struct" and self.has_method(owner, expr.function) else None

    def find_method(self, t: CType, name: str, count: int, node: S.Node) -> S.Function:
        info: StructInfo = t.info
        methods = [m for m in info.definition.methods if m.name == name and len(m.params) == count]
        if not methods:
            raise Failure(node, f"unsupported construct: {t} has no member function {name} with {count} "
                                "argument(s)")
        return methods[0]

    def has_method(self, t: CType, name: str) -> bool:
        """Whether struct type ``t`` declares a member function ``name``."""
        return any(m.name == name for m in t.info.definition.methods)

    def pointer_conversion(self, value: Struct, node: S.Node, mask: Mask) -> Value:
        """``obj[i]`` on a struct without ``operator[]``: C++ converts it with its conversion operator to a
        pointer (the first one declared: ``operator T*()`` before ``operator const T*() const``); the
        struct itself where it has none."""
        for method in (m for m in value.type.info.definition.methods if m.conversion is not None):
            target = self._conversion_target(method, value, mask)
            if target.kind == "ptr":
                return self.struct_conversion(value, target, node, mask)
        return value

    def _conversion_target(self, method: S.Function, value: Struct, mask: Mask) -> CType:
        """The type a conversion operator of ``value``'s struct converts to."""
        info: StructInfo = value.type.info
        self.frames.append(Frame(method, [dict(info.bindings)], np.zeros(self.threads, bool), None,
                                 this_type=value.type))
        try:
            return self.resolve_type(method.conversion, mask)
        finally:
            self.frames.pop()

    def struct_conversion(self, value: Struct, t: CType, node: S.Node, mask: Mask) -> Value:
        """A struct converted to another type through its conversion operator
        (``operator T*()``): the one whose target is ``t``, else the only one."""
        info: StructInfo = value.type.info
        operators = [m for m in info.definition.methods if m.conversion is not None]
        if not operators:
            raise Failure(node, f"cannot convert {value.type} to {t}")
        chosen = None
        for method in operators:
            target = self._conversion_target(method, value, mask)
            if target == t or (target.kind == t.kind == "ptr" and target.elem == t.elem):
                chosen = method
                break
        if chosen is None:
            if len(operators) > 1:
                raise Failure(node, f"cannot convert {value.type} to {t}")
            chosen = operators[0]
        temporary = Variable("(temporary)", value.type, value)
        frame = self.invoke(chosen, node, mask, values=[], this=VarLV(temporary), this_type=value.type,
                            base_scope=info.bindings)
        return self.coerce(self.call_result(frame, node, mask), t, node)

    def struct_operator(self, op: str, left: Value, right: Value, expr: S.Node, mask: Mask) -> Value:
        """``left op right`` where a struct is involved: its member ``operator op`` or a free
        ``operator op``."""
        name = "operator" + op
        if isinstance(left, Struct):
            methods = [m for m in left.type.info.definition.methods if m.name == name and len(m.params) == 1]
            if methods:
                temporary = Variable("(temporary)", left.type, left)
                frame = self.invoke(methods[0], expr, mask, values=[right], this=VarLV(temporary),
                                    this_type=left.type, base_scope=left.type.info.bindings)
                return self.call_result(frame, expr, mask)
        free = [f for f in self.program.functions.get(name, []) if len(f.params) == 2]
        if free:
            function = free[0] if len(free) == 1 else self._overload(free, [left, right], expr, mask)
            frame = self.invoke(function, expr, mask, values=[left, right])
            return self.call_result(frame, expr, mask)
        raise Failure(expr, f"unsupported construct: operator {op} on {left.type} and {right.type}")

    def init_local_struct(self, t: CType, init: S.Expr | None, mask: Mask, item: S.Node) -> Value:
        """The value a declaration ``T x;``, ``T x(a, b)``, ``T x{a, b}`` or ``T x = e;`` gives."""
        if init is None:
            return self.construct(t, [], mask, item)
        if isinstance(init, S.InitList):
            return self.construct_from(t, init.items, mask, item)
        if _constructors(t, 1) and any(p.type.reference for p in _constructors(t, 1)[0].params):
            return self.construct_from(t, [init], mask, item)  # `T x(shared_object);`
        value = self.eval(init, mask)
        if isinstance(value, Struct) and value.type == t:
            return self.copy_value(value)
        return self.construct(t, [value], mask, item)


def _layout(members: list[tuple[str, CType]], union: bool, align: int) -> tuple[list, int, int]:
    """(name, type, offset) per member, the size and the alignment of a struct or union."""
    alignment = max([align] + [t.align for _, t in members])
    fields = []
    cursor = 0
    size = 0
    for name, t in members:
        if union:
            fields.append((name, t, 0))
            size = max(size, t.size)
            continue
        cursor = -(-cursor // t.align) * t.align
        fields.append((name, t, cursor))
        cursor += t.size
        size = cursor
    size = max(size, 1)
    return fields, -(-size // alignment) * alignment, alignment


def _constructors(t: CType, count: int) -> list[S.Function]:
    """The constructors of struct type ``t`` taking ``count`` arguments."""
    definition = t.info.definition
    return [m for m in definition.methods
            if m.name == definition.name and m.conversion is None and len(m.params) == count]
