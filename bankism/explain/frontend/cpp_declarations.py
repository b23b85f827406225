"""Declarations C++ adds to C, for the front end: base classes, enumerations, anonymous
members (unnamed structs and unions inside a struct), template type parameters' defaults,
dependent member types (``typename Traits<T>::type``) and ``decltype``. A mixin of the
``Declarations`` mixin of the converter in ``parse``."""

from __future__ import annotations

from tree_sitter import Node

from bankism.errors import BankismError
from bankism.explain.frontend import syntax as S
from bankism.explain.frontend.treesitter import last_name, named_children, node_text


class CppDeclarations:
    """Base classes, enums, anonymous members, dependent types, decltype (a mixin)."""

    def _bases(self, clause: Node) -> list[S.TypeName]:
        """The base classes of ``struct D : public A, B<T>`` (virtual bases are refused)."""
        bases = []
        for child in clause.named_children:
            if child.type in ("access_specifier", "comment"):
                continue
            if child.type == "virtual" or node_text(child) == "virtual":
                raise self.unsupported(clause, "virtual base class")
            base, args, scope = self._type_spec(child)
            bases.append(S.TypeName(self._line(child), node_text(child), base, 0, [], False, False, None,
                                    args, scope, scope_type=self._scope_type(child), file=self._file(child)))
        return bases

    def enum(self, node: Node) -> S.EnumDef | None:
        """An enumeration with its enumerators (None for a mention without a body)."""
        body = node.child_by_field_name("body")
        if body is None:
            return None
        name_node = node.child_by_field_name("name")
        underlying = node.child_by_field_name("base")
        scoped = any(c.type in ("class", "struct") for c in node.children)
        items = []
        for item in named_children(body):
            if item.type != "enumerator":
                continue
            value = item.child_by_field_name("value")
            items.append((node_text(item.child_by_field_name("name")), self.expr(value) if value else None))
        under = None
        if underlying is not None:
            base, args, scope = self._type_spec(underlying)
            under = S.TypeName(self._line(underlying), node_text(underlying), base, 0, [], False, False, None,
                               args, scope)
        enum = S.EnumDef(self._line(node), node_text(node), last_name(name_node) if name_node else "", scoped,
                         under, items)
        enum.file = self._file(node)
        return enum

    def _anonymous_member(self, struct: S.StructDef, member: Node, type_node: Node) -> None:
        """``union { float f; int i; };`` (an anonymous member: its members are the struct's)
        or ``union { ... } u;`` (a member of an unnamed type) inside ``struct``."""
        name = f"{struct.name}::(unnamed {type_node.type.split('_')[0]} {len(struct.nested)})"
        inner = self.struct(type_node, name)
        if inner.error is not None:
            raise BankismError(inner.error)
        struct.nested.append(inner)
        declarators = member.children_by_field_name("declarator")
        type_name = S.TypeName(self._line(member), node_text(type_node), name, file=self._file(member))
        if not declarators:
            struct.fields.append(S.Declarator(self._line(member), node_text(member),
                                              f"(anonymous {len(struct.nested)})", type_name, None))
        for declarator in declarators:
            declared, member_name = self._declared_with(type_name, declarator)
            declared.file = type_name.file
            struct.fields.append(S.Declarator(self._line(declarator), node_text(declarator), member_name,
                                              declared, None))

    def _default_type(self, node: Node) -> S.TypeName:
        """A template type parameter's default (``typename V = int4``): a type descriptor, or
        the bare type specifier the grammar gives for a plain name."""
        if node.type == "type_descriptor":
            return self._type_descriptor(node)
        base, args, scope = self._type_spec(node)
        type_name = S.TypeName(self._line(node), node_text(node), base, 0, [], False, False, None, args,
                               scope, scope_type=self._scope_type(node))
        type_name.file = self._file(node)
        return type_name

    def _scope_type(self, type_node: Node) -> S.TypeName | None:
        """``Traits<T>`` of ``typename Traits<T>::type`` (or ``Traits<T>::type``): the class
        template instance the type is a member of, or None."""
        if type_node.type == "dependent_type":
            type_node = named_children(type_node)[-1]
        if type_node.type != "qualified_identifier":
            return None
        scope = None
        current = type_node
        while current is not None and current.type == "qualified_identifier":
            scope = current.child_by_field_name("scope")
            current = current.child_by_field_name("name")
        if scope is None or scope.type != "template_type":
            return None
        base, args, _ = self._type_spec(scope)
        return S.TypeName(self._line(scope), node_text(scope), base, 0, [], False, False, None, args)

    def _type_extras(self, node: Node) -> dict:
        """The parts of a declaration's type beyond its name: the class template a dependent
        member type belongs to, the expression of a ``decltype``."""
        type_node = node.child_by_field_name("type")
        if type_node is None:
            return {}
        if type_node.type == "decltype":
            values = named_children(type_node)
            if len(values) != 1 or node_text(values[0]) == "auto":
                raise self.unsupported(type_node, "decltype")
            return {"decltype": self.expr(values[0])}
        return {"scope_type": self._scope_type(type_node)}
