"""Inline PTX in explain, front half: the ``asm`` statement as a syntax node (template,
operand constraints, the C++ operand expressions) and the template cut into PTX statements
(guard, opcode, operands), with ``%N`` mapped to the C++ operands.

What each instruction does is ``ptx_exec``'s business; this module only reads the text."""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field

from tree_sitter import Node

from bankism.explain.frontend import syntax as S
from bankism.explain.frontend.treesitter import named_children, node_text

#: Constraint letters nvcc accepts for asm operands, and the PTX register type each means.
CONSTRAINT_TYPES = {"h": "u16", "r": "u32", "l": "u64", "f": "f32", "d": "f64", "n": "s64", "c": "u8"}


@dataclass(slots=True, eq=False)
class AsmOperand(S.Node):
    """One ``"=r"(x)`` operand: constraint without modifiers, whether it is written/read."""

    constraint: str
    expr: S.Expr
    written: bool
    read: bool


@dataclass(slots=True, eq=False)
class Asm(S.Expr):
    """``asm [volatile] ("template" : outputs : inputs : clobbers)``."""

    template: str
    outputs: list[AsmOperand]
    inputs: list[AsmOperand]
    statements: list[PtxStatement] | None = field(default=None, repr=False)

    @property
    def operands(self) -> list[AsmOperand]:
        """Operands in %N order: outputs first, then inputs."""
        return self.outputs + self.inputs


@dataclass(slots=True, eq=False)
class PtxStatement(S.Expr):
    """One PTX statement of a template. Its ``text`` shows the C++ operands in place of
    ``%N``; it is the node a shared-memory site is recorded at (one per statement)."""

    guard: tuple[str, bool] | None
    opcode: str
    operands: list[Operand]
    index: int = 0


@dataclass(slots=True, frozen=True)
class Operand:
    """A PTX operand: ``kind`` is "reg" (a register or %N: ``name``), "imm" (``value``),
    "addr" (``[name+offset]``), "vec" (``{a, b}``: ``items``), "sink" (``_``) or "raw"
    (an address explain does not read, such as a tensor map with coordinates)."""

    kind: str
    name: str = ""
    value: int | float = 0
    offset: int = 0
    items: tuple[Operand, ...] = ()


class PtxSyntaxError(Exception):
    """A template explain cannot read; the interpreter reports it at the asm's line."""


# --- tree-sitter -> Asm ------------------------------------------------------------------


def convert_asm(converter, node: Node) -> Asm:  # noqa: ANN001
    """The ``gnu_asm_expression`` ``node`` as an ``Asm`` (``converter`` is parse's converter)."""
    line, text = converter._line(node), node_text(node)
    template_node = node.child_by_field_name("assembly_code")
    if template_node is None:
        template_node = next((c for c in named_children(node)
                              if c.type in ("string_literal", "concatenated_string")), None)
    if template_node is None or template_node.type not in ("string_literal", "concatenated_string"):
        raise converter.unsupported(node, "inline assembly whose template is not a string literal")
    template = _string_value(template_node)
    outputs: list[AsmOperand] = []
    inputs: list[AsmOperand] = []
    for child in named_children(node):
        if child.type == "gnu_asm_output_operand_list":
            outputs = [_operand(converter, o, True) for o in named_children(child)]
        elif child.type == "gnu_asm_input_operand_list":
            inputs = [_operand(converter, o, False) for o in named_children(child)]
        elif child.type == "gnu_asm_goto_list":
            raise converter.unsupported(node, "asm goto")
    return Asm(line, text, template, outputs, inputs)


def _operand(converter, node: Node, output: bool) -> AsmOperand:  # noqa: ANN001
    if node.child_by_field_name("symbol") is not None:
        raise converter.unsupported(node, "named asm operand ([name])")
    constraint_node = node.child_by_field_name("constraint")
    value_node = node.child_by_field_name("value")
    if constraint_node is None or value_node is None:
        raise converter.unsupported(node, "asm operand")
    constraint = _string_value(constraint_node)
    letters = constraint.lstrip("=+&")
    if letters not in CONSTRAINT_TYPES:
        raise converter.unsupported(node, f'asm operand constraint "{constraint}"')
    written = output
    read = not output or constraint.startswith("+")
    value = converter.expr(value_node)
    return AsmOperand(converter._line(node), node_text(node), letters, value, written, read)


_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'", "r": "", "0": "\0"}


def _string_value(node: Node) -> str:
    """The value of a (concatenated) C string literal, escapes decoded."""
    if node.type == "concatenated_string":
        return "".join(_string_value(c) for c in named_children(node) if c.type == "string_literal")
    body = node_text(node)
    start, end = body.find('"'), body.rfind('"')
    raw = body[start + 1:end]
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), raw)


# --- the template -> statements ----------------------------------------------------------

_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_PERCENT = re.compile(r"%(%|\d+|=|\[\w+\]|[a-zA-Z]\d+)")
_NUMBER = re.compile(r"^[+-]?(0[xX][0-9a-fA-F]+|\d+)[uU]?$")
_FLOAT = re.compile(r"^0[fFdD]([0-9a-fA-F]+)$")


def statements(asm: Asm) -> list[PtxStatement]:
    """The PTX statements of ``asm``'s template (cached on the node)."""
    if asm.statements is None:
        asm.statements = _split(asm)
    return asm.statements


def _split(asm: Asm) -> list[PtxStatement]:
    def percent(match: re.Match) -> str:
        token = match.group(1)
        if token == "%":
            return "%"
        if token.isdigit():
            if int(token) >= len(asm.operands):
                raise PtxSyntaxError(f"%{token} names no operand (the asm has {len(asm.operands)})")
            return f"${token}"
        raise PtxSyntaxError(f"unsupported asm operand reference %{token}")

    text = _PERCENT.sub(percent, _COMMENTS.sub(" ", asm.template))
    out = []
    for piece in text.replace("\n", ";").split(";"):
        piece = piece.strip()
        while piece[:1] in ("{", "}"):
            piece = piece[1:].strip()
        while piece.count("}") > piece.count("{") and piece.endswith("}"):
            piece = piece[:-1].strip()
        if not piece:
            continue
        out.append(_statement(asm, piece, len(out)))
    return out


def _statement(asm: Asm, text: str, index: int) -> PtxStatement:
    guard = None
    if text.startswith("@"):
        head, _, text = text.partition(" ")
        negate = head.startswith("@!")
        guard = (head[2:] if negate else head[1:], negate)
        text = text.strip()
    if re.match(r"^[\w$]+:", text):
        raise PtxSyntaxError(f"labels in inline PTX are not supported: `{text}`")
    # the opcode ends at a space, or where its operands start without one (`...f32{%0, %1}` is valid PTX)
    found = re.match(r"([\w.$:]+)\s*(.*)", text, re.S)
    opcode, rest = (found.group(1), found.group(2)) if found else text.partition(" ")[::2]
    if opcode.startswith(".") and "." in opcode[1:]:  # `.reg.pred p;`: the directive, then its type
        head, _, tail = opcode[1:].partition(".")
        opcode, rest = "." + head, f".{tail} {rest}"
    if opcode.startswith("."):
        operands = [Operand("reg", rest.strip())]
    else:
        operands = [_operand_of(part) for part in _split_top(rest)] if rest.strip() else []
    shown = _show(asm, ((("@!" if guard[1] else "@") + guard[0] + " ") if guard else "") + text)
    return PtxStatement(asm.line, shown, guard, opcode, operands, index, col=asm.col + index, file=asm.file)


def _show(asm: Asm, text: str) -> str:
    """The statement with each %N replaced by its C++ operand expression."""
    return re.sub(r"\$(\d+)", lambda m: " ".join(asm.operands[int(m.group(1))].expr.text.split()), text)


def _split_top(text: str) -> list[str]:
    """Operands separated by commas outside braces and brackets."""
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        parts.append(current.strip())
    return parts


def _operand_of(text: str) -> Operand:
    text = text.strip()
    if text.startswith("{") and text.endswith("}"):
        return Operand("vec", items=tuple(_operand_of(p) for p in _split_top(text[1:-1])))
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1].replace(" ", "")
        match = re.match(r"^([^+-]+)((?:[+-]+(?:0[xX][0-9a-fA-F]+|\d+))*)$", inner)
        if not match:
            return Operand("raw", text)
        base, rest = match.group(1), match.group(2)
        offset = sum(_signed(term) for term in re.findall(r"[+-]+(?:0[xX][0-9a-fA-F]+|\d+)", rest))
        if _NUMBER.match(base):
            return Operand("addr", "", int(base.rstrip("uU"), 0), offset)
        return Operand("addr", base, 0, offset)
    if text == "_":
        return Operand("sink")
    if _NUMBER.match(text):
        return Operand("imm", value=int(text.rstrip("uU"), 0))
    if _FLOAT.match(text):
        digits = _FLOAT.match(text).group(1)
        value = (struct.unpack(">f", bytes.fromhex(digits))[0] if len(digits) == 8
                 else struct.unpack(">d", bytes.fromhex(digits))[0])
        return Operand("imm", value=value)
    if not re.match(r"^!?[%$\w.:<>]+$", text):
        raise PtxSyntaxError(f"cannot read PTX operand `{text}`")
    return Operand("reg", text)


def _signed(term: str) -> int:
    sign = -1 if term.count("-") % 2 else 1
    return sign * int(term.lstrip("+-"), 0)
