"""Code tree-sitter misreads, recognised by its shape: declarations read as expressions
(``ns::Tile<32> t = f();`` read as comparisons, ``half (&r)[4][2] = ...`` read as a call
subscripted and assigned to), and comparisons read as template arguments (``a < n && b > 0``)."""

from __future__ import annotations

from functools import lru_cache

import tree_sitter_cuda
from tree_sitter import Language, Node, Query, QueryCursor

from bankism.explain.frontend import syntax as S
from bankism.explain.frontend.treesitter import last_name, named_children, node_text


def misread_template_declaration(expression: Node) -> bool:
    """``(ns::Tile < 32) > (t = f())``: a declaration of a template type read as comparisons."""
    if expression.type != "binary_expression" or node_text(expression.child_by_field_name("operator")) != ">":
        return False
    left, right = expression.child_by_field_name("left"), expression.child_by_field_name("right")
    if left.type != "binary_expression" or node_text(left.child_by_field_name("operator")) != "<":
        return False
    if left.child_by_field_name("left").type not in ("identifier", "qualified_identifier"):
        return False
    target = right.child_by_field_name("left") if right.type == "assignment_expression" else right
    return target is not None and target.type == "identifier"


def misread_array_reference(expression: Node) -> bool:
    """``half (&r)[4][2] = ...`` (a reference to an array of a typedef'd type) or ``float (*t)[33] = ...``
    (a pointer to an array) read as the call ``half(&r)`` or ``float(*t)`` subscripted and assigned to."""
    if expression.type != "assignment_expression":
        return False
    if node_text(expression.child_by_field_name("operator")) != "=":
        return False
    left = expression.child_by_field_name("left")
    if left.type != "subscript_expression":
        return False
    while left.type == "subscript_expression":
        left = left.child_by_field_name("argument")
    if left.type != "call_expression" or left.child_by_field_name("function").type not in (
            "identifier", "qualified_identifier", "primitive_type", "type_identifier"):
        return False
    args = named_children(left.child_by_field_name("arguments"))
    return (len(args) == 1 and args[0].type == "pointer_expression"
            and node_text(args[0]).startswith(("&", "*"))
            and args[0].child_by_field_name("argument").type == "identifier")


def array_reference_declaration(converter, node: Node, expression: Node) -> S.Decl:  # noqa: ANN001
    """The declaration ``T (&name)[A][B] = init;`` or ``T (*name)[A] = init;`` from its misread
    expression (shape checked by ``misread_array_reference``)."""
    left = expression.child_by_field_name("left")
    dims: list[S.Expr | None] = []
    while left.type == "subscript_expression":
        indices = named_children(left.child_by_field_name("indices"))
        dims.insert(0, converter.expr(indices[0]))
        left = left.child_by_field_name("argument")
    function = left.child_by_field_name("function")
    scope = ""
    if function.type == "qualified_identifier":
        scope = node_text(function.child_by_field_name("scope"))
    declared = named_children(left.child_by_field_name("arguments"))[0]
    name = node_text(declared.child_by_field_name("argument"))
    pointer = node_text(declared).startswith("*")
    line = converter._line(node)
    type_name = S.TypeName(line, node_text(node), last_name(function), 0, dims, not pointer, scope=scope,
                           array_pointers=int(pointer))
    type_name.file = converter._file(node)
    init = converter.expr(expression.child_by_field_name("right"))
    declarator = S.Declarator(line, node_text(expression), name, type_name, init)
    declarator.file = type_name.file
    return S.Decl(line, node_text(node), converter._end_line(node), [declarator])


#: Logical and comparison operators: template arguments built from them are comparisons misread.
_LOGICAL = ("&&", "||", "<", ">", "<=", ">=", "==", "!=")


@lru_cache(maxsize=1)
def _template_functions() -> Query:
    return Query(Language(tree_sitter_cuda.language()), "(template_function) @f")


def misread_comparisons(text: str, root: Node) -> str | None:
    """``text`` with the comparisons tree-sitter read as template arguments made unambiguous, or
    None when there are none. ``a < n && b > 0`` (read as ``a<n && b> 0``) becomes ``(a)<n && b
    > 0``: written in place of the blanks around ``<`` where there are some, so lines and
    columns stay (else the line's later columns shift by two). A template function used as a
    value whose arguments are logical or comparison expressions is such a misread: a variable
    template of that form does not occur in kernels."""
    captures = QueryCursor(_template_functions()).captures(root).get("f", [])
    spans = []
    variables: set[str] | None = None
    for node in captures:
        name = node.child_by_field_name("name")
        args = node.child_by_field_name("arguments")
        parent = node.parent
        if name is None or args is None or name.type != "identifier":
            continue
        called = parent is not None and parent.type == "call_expression"
        if called and parent.child_by_field_name("function") == node:
            continue
        if not any(a.type == "binary_expression" and node_text(a.child_by_field_name("operator")) in _LOGICAL
                   for a in named_children(args)):
            if variables is None:  # `j < n >> 3`, read as `j<n> > 3`: j is a variable, not a template
                declared, types = declared_names(root)
                variables = declared - types - _template_names(root)
            if node_text(name) not in variables:
                continue
        spans.append((name.start_byte, name.end_byte, args.start_byte))
    if not spans:
        return None
    data = text.encode()
    for start, end, less in sorted(spans, reverse=True):
        after = less + 1
        if data[end:less] == b" " and data[after:after + 1] == b" ":
            data = data[:start] + b"(" + data[start:end] + b")<" + data[after + 1:]
        else:
            data = data[:start] + b"(" + data[start:end] + b")" + data[end:]
    return data.decode()


_TYPE_DECLARATIONS = ("type_definition", "struct_specifier", "class_specifier", "union_specifier",
                      "enum_specifier", "alias_declaration", "type_parameter_declaration",
                      "optional_type_parameter_declaration")
_DECLARATOR_WRAPPERS = ("init_declarator", "pointer_declarator", "array_declarator", "reference_declarator")


def _template_names(root: Node) -> set[str]:
    """Names the file declares as templates (functions, classes, variables)."""
    found = set()
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.type == "template_declaration":
            for child in node.named_children:
                declarator = child.child_by_field_name("declarator") or child.child_by_field_name("name")
                while declarator is not None and declarator.child_by_field_name("declarator") is not None:
                    declarator = declarator.child_by_field_name("declarator")
                if declarator is not None:
                    found.add(node_text(declarator))
    return found


#: Declarations whose declarators name variables: plain, parameters, struct members.
VARIABLE_DECLARATIONS = ("declaration", "parameter_declaration", "field_declaration")


def declared_names(root: Node, kinds: tuple[str, ...] = VARIABLE_DECLARATIONS) -> tuple[set[str], set[str]]:
    """(names the ``kinds`` of declaration declare as variables or parameters, names declared
    as types) in the file."""
    variables, types = set(), set()
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.type in kinds:
            for declarator in node.children_by_field_name("declarator"):
                while declarator is not None and declarator.type in _DECLARATOR_WRAPPERS:
                    declarator = declarator.child_by_field_name("declarator") or (
                        named_children(declarator)[-1] if named_children(declarator) else None)
                if declarator is not None and declarator.type == "identifier":
                    variables.add(node_text(declarator))
        elif node.type in _TYPE_DECLARATIONS:
            for child in node.children:
                if child.type in ("type_identifier", "identifier"):
                    types.add(node_text(child))
            name = node.child_by_field_name("declarator") or node.child_by_field_name("name")
            if name is not None and name.type in ("type_identifier", "identifier"):
                types.add(node_text(name))
    return variables, types


def misread_casts(text: str, root: Node) -> str | None:
    """``text`` with parenthesised variables tree-sitter read as casts made plain, or None when
    there are none: in ``A[(i) + (j) * lda]`` (a macro's argument in parentheses) ``(i) + ...``
    reads as a cast of ``+(j)`` to a type ``i``. A cast to a name the file declares as a
    variable and never as a type, of a unary ``+ - * &``, is such a misread: its parentheses
    become blanks, so lines and columns stay."""
    casts = []
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.type != "cast_expression":
            continue
        type_node, value = node.child_by_field_name("type"), node.child_by_field_name("value")
        if type_node is None or value is None or value.type not in ("unary_expression", "pointer_expression"):
            continue
        operator = value.child_by_field_name("operator")
        if operator is None or node_text(operator) not in ("+", "-", "*", "&"):
            continue
        inner = named_children(type_node)
        if len(inner) == 1 and inner[0].type == "type_identifier":
            casts.append((node, node_text(inner[0])))
    if not casts:
        return None
    variables, types = declared_names(root)
    spans = [(node.start_byte, node.child_by_field_name("type").end_byte) for node, name in casts
             if name in variables and name not in types]
    if not spans:
        return None
    data = bytearray(text.encode())
    for start, end in spans:
        close = data.index(b")", end)
        data[start:start + 1] = b" "
        data[close:close + 1] = b" "
    return data.decode()


def misread_constructions(text: str, root: Node) -> str | None:
    """``text`` with objects built from variables that tree-sitter read as function declarations
    made plain, or None when there are none: inside a function, ``Rows tile(raw);`` reads as a
    function ``tile`` taking a ``raw``. When every "parameter" is a bare name the file declares as
    a variable and never as a type, it is the object ``tile`` built from ``raw``: its
    parentheses become braces, so lines and columns stay."""
    found = []
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.type != "declaration" or node.parent is None or node.parent.type != "compound_statement":
            continue
        declarator = node.child_by_field_name("declarator")
        if declarator is None or declarator.type != "function_declarator":
            continue
        params = declarator.child_by_field_name("parameters")
        items = named_children(params) if params is not None else []
        if not items or not all(_bare_name(p) for p in items):
            continue
        found.append((params, [node_text(p.child_by_field_name("type")) for p in items]))
    if not found:
        return None
    variables, types = declared_names(root)
    spans = [params for params, names in found if all(n in variables and n not in types for n in names)]
    if not spans:
        return None
    data = bytearray(text.encode())
    for params in spans:
        data[params.start_byte:params.start_byte + 1] = b"{"
        data[params.end_byte - 1:params.end_byte] = b"}"
    return data.decode()


def _bare_name(param: Node) -> bool:
    """Whether a parameter is a lone name (``raw`` in ``f(raw)``): a type with no declarator."""
    type_node = param.child_by_field_name("type")
    return (param.type == "parameter_declaration" and param.child_by_field_name("declarator") is None
            and type_node is not None and type_node.type == "type_identifier")

