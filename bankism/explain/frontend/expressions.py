"""The CUDA front end, expressions: tree-sitter expression nodes as ``syntax`` expressions, and the
values of number and character literals. A mixin of the converter in ``parse``."""

from __future__ import annotations

import re

from tree_sitter import Node

from bankism.errors import BankismError
from bankism.explain.cuda.ptx import convert_asm
from bankism.explain.frontend import syntax as S
from bankism.explain.frontend.treesitter import (
    child_of_type,
    last_name,
    named_children,
    node_text,
)
from bankism.explain.simt.ctype import integer_literal_type

#: The built-in ``std::is_same_v<A, B>`` and ``std::is_same<A, B>::value`` become
#: (cuda/type_traits.py).
IS_SAME = "__is_same"

_CASTS = {"static_cast": "static", "reinterpret_cast": "reinterpret", "const_cast": "const"}


class ExpressionConverter:
    """Expressions and calls (a mixin of ``parse._Converter``, which supplies ``_check``, ``_line``,
    ``_file``, ``unsupported`` and the declarations' type readers)."""

    def _trait_value(self, node: Node) -> S.Call | None:
        """``is_same_v<A, B>`` (a template function node) as the ``__is_same`` call, else None."""
        name = node.child_by_field_name("name")
        if name is None or node_text(name) != "is_same_v":
            return None
        args = named_children(node.child_by_field_name("arguments"))
        targs = [self._template_argument(a) for a in args]
        return S.Call(self._line(node), node_text(node), IS_SAME, [], targs)

    def expr(self, node: Node) -> S.Expr:
        """One expression as a ``syntax`` node (with its column, to order sites on a line)."""
        result = self._expr(node)
        result.col = node.start_point.column
        result.file = self._file(node)
        return result

    def _expr(self, node: Node) -> S.Expr:
        self._check(node)
        line, text = self._line(node), node_text(node)
        kind = node.type
        if kind == "parenthesized_expression":
            inner = named_children(node)
            if len(inner) != 1:
                raise self.unsupported(node, "parenthesized expression")
            return self.expr(inner[0])
        if kind == "number_literal":
            value, type_name = parse_number(text)
            return S.Literal(line, text, value, type_name)
        if kind == "char_literal":
            return S.Literal(line, text, char_value(node, self), "char")
        if kind in ("true", "false"):
            return S.Literal(line, text, int(kind == "true"), "bool")
        if kind in ("string_literal", "concatenated_string", "raw_string_literal"):
            return S.Literal(line, text, text, "string")
        if kind == "null" or text == "nullptr":
            return S.Literal(line, text, 0, "nullptr")
        if kind == "identifier":
            return S.Name(line, text, text)
        if kind == "qualified_identifier":
            scope, _, name = text.rpartition("::")
            inner = node
            while inner.child_by_field_name("name") is not None and (
                    inner.child_by_field_name("name").type == "qualified_identifier"):
                inner = inner.child_by_field_name("name")
            scope_node = inner.child_by_field_name("scope")
            scope_type = None
            if scope_node is not None and scope_node.type == "template_type":
                base, args, _ = self._type_spec(scope_node)
                scope_type = S.TypeName(line, node_text(scope_node), base, 0, [], False, False, None, args)
                if base == "is_same" and name.strip() == "value":  # `std::is_same<A, B>::value`
                    return S.Call(line, text, IS_SAME, [], list(args or []))
            name_node = inner.child_by_field_name("name")
            if name_node is not None and name_node.type in ("template_function", "template_type"):
                return self._trait_value(name_node) or S.Name(line, text, name.strip(), scope=scope.strip())
            return S.Name(line, text, name.strip(), scope=scope.strip(), scope_type=scope_type)
        if kind == "template_function" and self._trait_value(node) is not None:
            return self._trait_value(node)
        if kind == "this":
            return S.This(line, text)
        if kind == "lambda_expression":
            declarator = node.child_by_field_name("declarator")
            params = []
            if declarator is not None and declarator.child_by_field_name("parameters") is not None:
                params = self._params(declarator.child_by_field_name("parameters"))
            return S.Lambda(line, text, params, node.child_by_field_name("body"))
        if kind == "compound_literal_expression":
            type_node = node.child_by_field_name("type")
            if type_node.type == "type_descriptor":
                type_name = self._type_descriptor(type_node)
                base, targs = type_name.base, type_name.args
            else:  # `cg::plus<float>{}`: a braced temporary of a named (template) type
                base, targs, _ = self._type_spec(type_node)
            value = node.child_by_field_name("value")
            args = [self.expr(c) for c in named_children(value)] if value is not None else []
            return S.Call(line, text, base, args, list(targs or []))
        if kind == "field_expression":
            operator = node.child_by_field_name("operator")
            arrow = operator is not None and node_text(operator) == "->"
            return S.Member(
                line,
                text,
                self.expr(node.child_by_field_name("argument")),
                node_text(node.child_by_field_name("field")),
                arrow,
            )
        if kind == "subscript_expression":
            indices = node.child_by_field_name("indices") or node.child_by_field_name("index")
            values = named_children(indices) if indices.type == "subscript_argument_list" else [indices]
            if len(values) != 1:
                raise self.unsupported(node, "multi-argument subscript")
            base = self.expr(node.child_by_field_name("argument"))
            return S.Subscript(line, text, base, self.expr(values[0]))
        if kind == "call_expression":
            return self._call(node)
        if kind == "cast_expression":
            return S.Cast(
                line,
                text,
                self._type_descriptor(node.child_by_field_name("type")),
                self.expr(node.child_by_field_name("value")),
                "c",
            )
        if kind in ("unary_expression", "pointer_expression"):
            return S.Unary(
                line,
                text,
                node_text(node.child_by_field_name("operator")),
                self.expr(node.child_by_field_name("argument")),
            )
        if kind == "update_expression":
            operator = node.child_by_field_name("operator")
            argument = node.child_by_field_name("argument")
            prefix = operator.start_byte < argument.start_byte
            return S.IncDec(line, text, node_text(operator), prefix, self.expr(argument))
        if kind == "binary_expression":
            return S.Binary(
                line,
                text,
                node_text(node.child_by_field_name("operator")),
                self.expr(node.child_by_field_name("left")),
                self.expr(node.child_by_field_name("right")),
            )
        if kind == "assignment_expression":
            return S.Assign(
                line,
                text,
                node_text(node.child_by_field_name("operator")),
                self.expr(node.child_by_field_name("left")),
                self.expr(node.child_by_field_name("right")),
            )
        if kind == "conditional_expression":
            return S.Conditional(
                line,
                text,
                self.expr(node.child_by_field_name("condition")),
                self.expr(node.child_by_field_name("consequence")),
                self.expr(node.child_by_field_name("alternative")),
            )
        if kind == "comma_expression":
            return S.Comma(
                line,
                text,
                self.expr(node.child_by_field_name("left")),
                self.expr(node.child_by_field_name("right")),
            )
        if kind == "sizeof_expression":
            type_node = node.child_by_field_name("type")
            if type_node is not None:
                return S.SizeOf(line, text, self._type_descriptor(type_node))
            return S.SizeOf(line, text, self.expr(node.child_by_field_name("value")))
        if kind == "initializer_list":
            return S.InitList(line, text, [self.expr(c) for c in named_children(node)])
        if kind == "gnu_asm_expression":
            return convert_asm(self, node)
        names = {
            "new_expression": "new",
            "delete_expression": "delete",
            "gnu_asm_expression": "inline assembly",
            "co_await_expression": "co_await",
            "alignof_expression": "alignof",
            "offsetof_expression": "offsetof",
        }
        raise self.unsupported(node, names.get(kind, kind.replace("_", " ")))

    def _call(self, node: Node) -> S.Expr:
        line, text = self._line(node), node_text(node)
        if child_of_type(node, "kernel_call_syntax") is not None:
            raise self.unsupported(node, "kernel launch inside a kernel (dynamic parallelism)")
        function = node.child_by_field_name("function")
        args = [self.expr(a) for a in named_children(node.child_by_field_name("arguments"))]
        template_args: list[S.TypeName | S.Expr] = []
        scope = ""  # `L::off(r, k)`: a static member function of the type L names
        if function.type == "qualified_identifier" and "::" in node_text(function):
            scope = node_text(function).rsplit("::", 1)[0].strip()
        while function.type == "qualified_identifier" and function.child_by_field_name("name") is not None:
            function = function.child_by_field_name("name")
        if function.type == "field_expression":
            operator = function.child_by_field_name("operator")
            field_node = function.child_by_field_name("field")
            method = node_text(field_node)
            if field_node.type == "template_method":
                method = node_text(field_node.child_by_field_name("name"))
                template_args = [
                    self._template_argument(a)
                    for a in named_children(field_node.child_by_field_name("arguments"))
                ]
            return S.MethodCall(
                line,
                text,
                self.expr(function.child_by_field_name("argument")),
                method,
                args,
                operator is not None and node_text(operator) == "->",
                template_args,
            )
        if function.type == "template_function":
            name = last_name(function.child_by_field_name("name"))
            targs = named_children(function.child_by_field_name("arguments"))
            if name in _CASTS:
                if len(targs) != 1 or len(args) != 1:
                    raise self.unsupported(node, name)
                return S.Cast(line, text, self._type_descriptor(targs[0]), args[0], _CASTS[name])
            template_args = [self._template_argument(t) for t in targs]
            return S.Call(line, text, name, args, template_args)
        if function.type in ("primitive_type", "sized_type_specifier"):
            if len(args) != 1:
                raise self.unsupported(node, "constructor call")
            base = (
                " ".join(node_text(c) for c in function.children)
                if function.children
                else node_text(function)
            )
            return S.Cast(line, text, S.TypeName(line, text, base), args[0], "functional")
        if function.type in ("identifier", "qualified_identifier", "type_identifier"):
            return S.Call(line, text, last_name(function), args, template_args, scope=scope)
        inner = named_children(function) if function.type == "parenthesized_expression" else []
        if len(inner) == 1 and inner[0].type in ("identifier", "type_identifier") and len(args) == 1:
            # `(floatX)(a + b)`: the grammar cannot tell a C cast to a typedef'd name from a call
            # through parentheses; a cast it is (the name not being a type is reported as such).
            name = node_text(inner[0])
            return S.Cast(line, text, S.TypeName(line, text, name), args[0], "c")
        if function.type in ("call_expression", "compound_literal_expression"):
            # `Op()(a, b)`, `Op{}(a, b)`: the call operator of a temporary functor
            return S.MethodCall(line, text, self.expr(function), "operator()", args, False, [])
        raise self.unsupported(node, "call through an expression")


_INT_LITERAL = re.compile(r"^(0[xX][0-9a-fA-F']+|0[bB][01']+|0[0-7']*|[1-9][0-9']*)([uUlL]*)$")


def parse_number(text: str) -> tuple[int | float, str]:
    """The value and C type name of a number literal (``16``, ``3u``, ``1.0f``, ``0x10``, ``1e-3``).

    tree-sitter reads ``-1`` as one literal: it is unary minus on ``1`` (an int, not a double), and an
    unsigned literal wraps (``-1u`` is 4294967295u). A literal past 64 bits is refused, as nvcc does.
    """
    if text[:1] and text[0] in "+-":  # ("" is in every string: an empty text recursed forever)
        value, type_name = parse_number(text[1:])
        if text[0] == "-":
            value = -value
            if isinstance(value, int) and type_name.startswith("unsigned"):
                value %= 1 << (32 if type_name == "unsigned int" else 64)
        return value, type_name
    match = _INT_LITERAL.match(text)
    if match:
        digits = match.group(1).replace("'", "")
        base = (
            16
            if digits[:2] in ("0x", "0X")
            else 2
            if digits[:2] in ("0b", "0B")
            else (8 if digits.startswith("0") and len(digits) > 1 else 10)
        )
        value = int(digits, base) if base != 8 else int(digits[1:], 8)
        if value >= 1 << 64:
            raise BankismError(f"integer constant {text} is too large for 64 bits (nvcc refuses it too)")
        return value, integer_literal_type(value, match.group(2), base == 10).name
    body = text.replace("'", "")
    suffix = body[-1].lower() if body[-1] in "fFlL" and not body.lower().startswith("0x") else ""
    if suffix:
        body = body[:-1]
    value = float.fromhex(body) if body.lower().startswith("0x") else float(body)
    return value, "float" if suffix == "f" else "double"


def char_value(node: Node, converter: ExpressionConverter) -> int:
    """The value of a character literal (one character or a simple escape)."""
    text = node_text(node)[1:-1]
    escapes = {"\\n": 10, "\\t": 9, "\\0": 0, "\\\\": 92, "\\'": 39, '\\"': 34, "\\r": 13}
    if text in escapes:
        return escapes[text]
    if len(text) == 1:
        return ord(text)
    raise converter.unsupported(node, "character literal")
