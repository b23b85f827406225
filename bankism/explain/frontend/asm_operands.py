"""Inline-asm operand lists written without a comma between two operands (``: "r"(a)
"r"(b)``): nvcc accepts them as two operands (checked with nvcc 13.0: ``add.u32 %0, %1, %2``
gets a, b as %1, %2), tree-sitter does not parse them. The missing comma is put in place of
the blank before the second operand, so every line and column stays where it was."""

from __future__ import annotations

import re

_ASM = re.compile(r"\b(?:__asm__|__asm|asm)\b(?:\s+(?:volatile|__volatile__|goto|inline))*\s*\(")


def asm_operand_commas(text: str) -> str:
    """``text`` with a comma between adjacent operands of every asm statement's operand lists."""
    if "asm" not in text:
        return text
    chars = list(text)
    for match in _ASM.finditer(text):
        _fix_statement(text, chars, match.end())
    return "".join(chars)


def _fix_statement(text: str, chars: list[str], start: int) -> None:
    """Scan one asm statement from just after its ``(``: strings and nested parentheses are
    skipped; after the first top-level ``:``, a string that follows a ``)`` starts an operand
    that needs a comma before it."""
    depth, i, in_operands, last = 1, start, False, ""
    while i < len(text) and depth > 0:
        c = text[i]
        if c == '"' or c == "'":
            if depth == 1 and in_operands and c == '"' and last == ")":
                _insert_comma(text, chars, i)
            i = _skip_literal(text, i)
            last = c
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == ":" and depth == 1:
            in_operands = True
        if not c.isspace():
            last = c
        i += 1


def _skip_literal(text: str, i: int) -> int:
    quote = text[i]
    i += 1
    while i < len(text) and text[i] != quote:
        i += 2 if text[i] == "\\" else 1
    return i + 1


def _insert_comma(text: str, chars: list[str], i: int) -> None:
    """Put a comma between the ``)`` that ends an operand and the ``"`` at ``i``: in place of a
    blank between them on the ``)``'s line, else right after the ``)`` (that line's later
    columns shift by one)."""
    close = i - 1
    while text[close] != ")":
        close -= 1
    for j in range(close + 1, i):
        if text[j] in " \t":
            chars[j] = ","
            return
        if text[j] == "\n":
            break
    chars[close] = "),"
