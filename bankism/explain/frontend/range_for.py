"""Range-based ``for`` as the counted loop it is (a ``syntax`` rewrite: the interpreter, the
repeat shortcut and the relevance analysis see a plain ``for``)."""

from __future__ import annotations

from tree_sitter import Node

from bankism.explain.frontend import syntax as S
from bankism.explain.frontend.treesitter import named_children, node_text


def range_for(converter, node: Node) -> S.Stmt:  # noqa: ANN001
    """``for (T x : {a, b})`` and ``for (auto &x : array)`` as the counted loop they are: a
    brace list becomes a hidden local array of x's type; x is declared from element i."""
    line, end, text = converter._line(node), converter._end_line(node), node_text(node)
    declared, name = converter._declared(node, node.child_by_field_name("declarator"))
    right = node.child_by_field_name("right")
    index = S.Name(line, f"__range_index_{line}", f"__range_index_{line}")
    before: list[S.Stmt] = []
    if right.type == "initializer_list":
        if declared.base == "auto" or declared.reference:
            raise converter.unsupported(node, "range-based for over a brace list with an auto or reference "
                                         "variable")
        items = [converter.expr(c) for c in named_children(right)]
        hidden = S.Name(line, f"__range_{line}", f"__range_{line}")
        array_type = S.TypeName(line, declared.text, declared.base, declared.pointers,
                                [S.Literal(line, str(len(items)), len(items), "int")], False, False,
                                None, declared.args, declared.scope)
        before.append(S.Decl(line, text, line, [S.Declarator(line, text, hidden.name, array_type,
                                                             S.InitList(line, node_text(right), items))]))
        source: S.Expr = hidden
        count: S.Expr = S.Literal(line, str(len(items)), len(items), "int")
    else:
        source = converter.expr(right)
        first = S.Subscript(line, text, source, S.Literal(line, "0", 0, "int"))
        count = S.Binary(line, text, "/", S.SizeOf(line, text, source), S.SizeOf(line, text, first))
    element = S.Decl(line, text, line, [S.Declarator(line, text, name, declared,
                                                     S.Subscript(line, text, source, index))])
    counter = S.TypeName(line, "int", "int", 0, [], False, False, None, None)
    zero = S.Literal(line, "0", 0, "int")
    start = S.Decl(line, text, line, [S.Declarator(line, text, index.name, counter, zero)])
    body = converter.lazy_statement(node.child_by_field_name("body"))
    loop = S.For(line, text, end, start, S.Binary(line, text, "<", index, count),
                 S.IncDec(line, text, "++", True, index), S.Block(line, text, end, [element, body]))
    for made in (*before, element, start, loop):
        made.file = converter._file(node)
    return S.Block(line, text, end, before + [loop])
