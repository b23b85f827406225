"""Enumerations, base classes and anonymous members in the SIMT interpreter.

An enumeration's enumerators are constants of its underlying type (``int`` unless written):
an unscoped enumeration's are names of the scope it is declared in (the file, or the struct:
``Shape::ROWS``), a scoped one's only under its name (``Pad::ONE``); the enumeration's name
is its underlying type. A non-virtual base class is a subobject at the start of the derived
struct (laid out as a member named ``(base) Name``; an empty base takes no room), and an
anonymous union or struct member is a subobject whose members are the enclosing struct's: a
member name is looked up in the struct, then in those subobjects, in order. Member functions
of a base are called on the base subobject."""

from __future__ import annotations

from bankism.explain.frontend import syntax as S
from bankism.explain.simt import ctype as C
from bankism.explain.simt.bindings import TypeAlias
from bankism.explain.simt.ctype import CType
from bankism.explain.simt.values import Failure, Mask, Scalar, constant

#: Field-name prefixes of the subobjects whose members are the enclosing struct's.
BASE_PREFIX = "(base) "
ANONYMOUS_PREFIX = "(anonymous "


def is_embedded(name: str) -> bool:
    """Whether a field is a base subobject or an anonymous member (its members are ours)."""
    return name.startswith(BASE_PREFIX) or name.startswith(ANONYMOUS_PREFIX)


def member_path(t: CType, name: str) -> list[str] | None:
    """The fields leading from struct ``t`` to its member ``name`` (through base subobjects
    and anonymous members), or None when it has no such member."""
    if any(member == name for member, _, _ in t.fields):
        return [name]
    for member, ft, _ in t.fields:
        if is_embedded(member) and ft.kind == "struct":
            inner = member_path(ft, name)
            if inner is not None:
                return [member, *inner]
    return None


def method_path(t: CType, name: str, count: int) -> tuple[S.Function, list[str], CType] | None:
    """The member function ``name`` with ``count`` parameters of ``t`` or of a base class:
    (function, base fields leading to the struct that defines it, that struct's type)."""
    methods = [m for m in t.info.definition.methods if m.name == name and len(m.params) == count]
    if methods:
        return methods[0], [], t
    for member, ft, _ in t.fields:
        if member.startswith(BASE_PREFIX) and ft.kind == "struct":
            found = method_path(ft, name, count)
            if found is not None:
                return found[0], [member, *found[1]], found[2]
    return None


class Records:
    """Enumerations and members of bases and anonymous members (a mixin of ``Machine``)."""

    def enum_constants(self, enum: S.EnumDef, mask: Mask) -> tuple[CType, dict[str, Scalar]]:
        """The underlying type of ``enum`` and the value of each enumerator (the previous one
        plus one where none is written, from 0)."""
        t = self.resolve_type(enum.underlying, mask) if enum.underlying is not None else C.INT
        values: dict[str, Scalar] = {}
        following = 0
        self.frames[-1].scopes.append(values)
        try:
            for name, expr in enum.items:
                number = following if expr is None else self.integer_constant(expr, mask, "enumerator")
                values[name] = constant(t, number)
                following = number + 1
        finally:
            self.frames[-1].scopes.pop()
        return t, values

    def declare_enums(self, enums: list[S.EnumDef], names: dict[str, object], mask: Mask) -> None:
        """Bind the enumerations ``enums`` into the scope ``names``: their type names, and the
        enumerators of unscoped ones; every named one's enumerators under ``Name::``.
        An enumeration that cannot be evaluated is left out (an error only if used)."""
        for enum in enums:
            try:
                t, values = self.enum_constants(enum, mask)
            except Failure:
                continue
            if enum.name:
                names[enum.name] = TypeAlias(t)
                self.enum_scopes[enum.name] = values
            if not enum.scoped:
                names.update(values)

    def embedded_lvalue(self, base: object, name: str, node: S.Node) -> object | None:
        """Member ``name`` of the struct object ``base`` found in a base subobject or an
        anonymous member (None when ``base``'s type has no such member)."""
        path = member_path(self.lvalue_type(base), name)
        if path is None or len(path) == 1:
            return None
        target = base
        for field_name in path:
            target = self.member_lvalue(target, field_name, node)
        return target

    def method_target(self, t: CType, this: object, name: str, count: int,
                      node: S.Node) -> tuple[S.Function, object, CType]:
        """The member function to call as ``this->name(...)``: (function, the object it runs
        on: ``this`` or its base subobject, that object's type)."""
        found = method_path(t, name, count)
        if found is None:
            raise Failure(node, f"unsupported construct: {t} has no member function {name} with {count} "
                                "argument(s)")
        method, path, owner = found
        for field_name in path:
            this = self.member_lvalue(this, field_name, node)
        return method, this, owner

    def scoped_enumerator(self, scope_name: str, name: str, node: S.Node) -> Scalar | None:
        """``Pad::ONE``: an enumerator of the enumeration ``scope_name``, or None when that is
        not an enumeration."""
        values = self.enum_scopes.get(scope_name)
        if values is None:
            return None
        if name not in values:
            raise Failure(node, f"enumeration {scope_name} has no enumerator {name}")
        return values[name]
