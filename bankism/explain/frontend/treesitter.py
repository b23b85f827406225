"""Small helpers over tree-sitter-cuda's concrete syntax tree, shared by the kernel front
end (``parse``) and the host-side evaluator (``host``)."""

from __future__ import annotations

import re
from functools import lru_cache

import tree_sitter_cuda
from tree_sitter import Language, Node, Parser

SPACE = re.compile(r"\s+")


@lru_cache(maxsize=1)
def parser() -> Parser:
    """The (one, cached) tree-sitter parser for CUDA."""
    return Parser(Language(tree_sitter_cuda.language()))


def child_of_type(node: Node, kind: str) -> Node | None:
    """The first direct child of ``node`` of type ``kind``, or None."""
    for child in node.children:
        if child.type == kind:
            return child
    return None


def named_children(node: Node) -> list[Node]:
    """The named children of ``node`` without comments."""
    return [c for c in node.named_children if c.type != "comment"]


def node_text(node: Node) -> str:
    """The source text of ``node``."""
    return node.text.decode(errors="replace")


def snippet(node: Node) -> str:
    """``node``'s text on one line, cut to 60 characters (for error messages)."""
    one_line = SPACE.sub(" ", node_text(node)).strip()
    return one_line if len(one_line) <= 60 else one_line[:57] + "..."


def last_name(node: Node) -> str:
    """``f`` for ``f``, ``ns::f`` and ``a::b::f`` (without template arguments)."""
    while node.type == "qualified_identifier" and node.child_by_field_name("name") is not None:
        node = node.child_by_field_name("name")
    if node.type in ("template_function", "template_type") and node.child_by_field_name("name") is not None:
        node = node.child_by_field_name("name")
    return node_text(node).split("::")[-1].split("<")[0].strip()
