"""Concepts: which template parameters written `C name` declare a type (C a concept), not a value.

Limits: a concept is known by its name only (one the translation unit defines, or one of the standard
library's on one type); its constraint is not checked, the type given with -D or deduced is taken as is.
"""

from __future__ import annotations

from tree_sitter import Node

from bankism.explain.frontend.treesitter import child_of_type, last_name, named_children, node_text

#: The standard library's concepts (<concepts>): `std::floating_point T` declares a type.
STANDARD_CONCEPTS = frozenset({
    "same_as", "derived_from", "convertible_to", "common_reference_with", "common_with", "integral",
    "signed_integral", "unsigned_integral", "floating_point", "assignable_from", "swappable", "destructible",
    "constructible_from", "default_initializable", "move_constructible", "copy_constructible",
    "equality_comparable", "totally_ordered", "movable", "copyable", "semiregular", "regular",
})
#: Where concept definitions can sit: the file, templates, namespaces, `extern "C++" { }`.
_SCOPES = ("translation_unit", "template_declaration", "namespace_definition", "declaration_list",
           "linkage_specification")


def defined_concepts(root: Node) -> set[str]:
    """The names of the concepts a translation unit defines."""
    names, pending = set(), [root]
    while pending:
        current = pending.pop()
        if current.type == "concept_definition":
            name = child_of_type(current, "identifier")
            if name is not None:
                names.add(node_text(name))
        elif current.type in _SCOPES:
            pending.extend(named_children(current))
    return names


def constrained_type_parameter(parameter: Node, concepts: set[str]) -> bool:
    """Whether a template parameter declaration `C name` (C plain, qualified or with arguments) names a
    concept: one of ``concepts`` or of the standard library's."""
    type_node, declarator = parameter.child_by_field_name("type"), parameter.child_by_field_name("declarator")
    if type_node is None or declarator is None or declarator.type != "identifier":
        return False
    if type_node.type == "template_type":
        type_node = type_node.child_by_field_name("name")
    elif type_node.type not in ("type_identifier", "qualified_identifier"):
        return False
    name = last_name(type_node)
    return name in STANDARD_CONCEPTS or name in concepts
