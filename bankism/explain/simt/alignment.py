"""What alignment nvcc can prove for a shared access whose index uses a value only known at run time.

LLVM's vectorizer merges neighbouring accesses only from a start it can prove aligned. An index that uses a
run-time value (``blockDim``, a kernel parameter, or a variable computed from them) is provably a multiple
of a power of two only through the arithmetic around it: ``(tid % 16) * 8`` is a multiple of 8 whatever
``tid`` is, and a run-time row index of ``float tile[128][16]`` moves by whole 64-byte rows. This module
follows that arithmetic over the index expression and the variables' definitions (known bits of
multiplications, shifts, sums and the array's row sizes); anything else (``%``, ``/``, a product with a
variable that is not a compile-time constant) proves nothing. Checked on public register-tiled GEMMs whose
thread offsets come from ``blockDim`` (nvcc 13.0 issues their row reads as LDS.128: docs/explain.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from bankism.explain.frontend import syntax as S
from bankism.explain.simt import ctype as C

#: A multiple of every power of two: a compile-time value (its alignment checked on the actual addresses).
ANY = 1 << 30
#: How deep definitions are followed (a chain of variables each defined from the next).
_DEPTH = 12


@dataclass
class Definitions:
    """Per variable name of one function: the expressions that set it (declarations, assignments), and the
    names written after their declaration or bound at each call (parameters): not constants."""

    values: dict[str, list[S.Expr]] = field(default_factory=dict)
    changed: set[str] = field(default_factory=set)


def definitions(functions: Iterable[tuple[S.Function, S.Block]]) -> dict[str, Definitions]:
    """Per function of ``functions`` (by name; overloads share one), the definitions of its names. A parameter
    has none here (what a caller passes is the caller's), so a run-time parameter proves nothing."""
    found: dict[str, Definitions] = {}
    for function, body in functions:
        mine = found.setdefault(function.name, Definitions())
        for node in S.walk(body):
            if isinstance(node, S.Declarator) and node.init is not None:
                mine.values.setdefault(node.name, []).append(node.init)
            elif isinstance(node, S.Assign) and isinstance(node.target, S.Name):
                mine.values.setdefault(node.target.name, []).append(node.value)
                mine.changed.add(node.target.name)
            elif isinstance(node, S.IncDec) and isinstance(node.target, S.Name):
                mine.changed.add(node.target.name)
        mine.changed.update(param.name for param in function.params)
    return found


def provable_alignment(node: object, array_type: C.CType, runtime: set[str], found: Definitions,
                       constants: dict[str, int]) -> int | None:
    """The bytes the access ``node`` (``tile[i][j]`` on the shared array itself) is provably aligned to
    where its run-time part is concerned, or None where explain cannot follow it (a pointer, a member)."""
    indices = []
    current = node
    while isinstance(current, S.Subscript):
        indices.append(current.index)
        current = current.base
    if not isinstance(current, S.Name) or not indices:
        return None
    dims, element = C.array_shape(array_type)
    indices.reverse()
    if len(indices) != len(dims):
        return None
    known = _Known(runtime, found, constants)
    elements = ANY
    for position, index in enumerate(indices):
        row = 1
        for size in dims[position + 1:]:
            row *= size
        elements = min(elements, known.multiple(index, 0) * power_of_two(row))
    return elements * element.size


class _Known:
    """Known-bits reasoning: the largest power of two an expression is a multiple of for every value of its
    run-time names (``ANY`` where it has none)."""

    def __init__(self, runtime: set[str], found: Definitions, constants: dict[str, int]) -> None:
        self.runtime, self.found, self.constants = runtime, found, constants

    def multiple(self, expr: S.Expr, depth: int) -> int:
        if not self._uses_runtime(expr):
            return ANY
        if isinstance(expr, S.Name):
            single = self._single_definition(expr.name)
            return self.multiple(single, depth + 1) if single is not None and depth < _DEPTH else 1
        if isinstance(expr, S.Cast):
            return self.multiple(expr.value, depth)
        if isinstance(expr, S.InitList) and len(expr.items) == 1:
            return self.multiple(expr.items[0], depth)
        if isinstance(expr, S.Unary) and expr.op in ("-", "+"):
            return self.multiple(expr.operand, depth)
        if isinstance(expr, S.Binary):
            if expr.op in ("+", "-"):
                return min(self.multiple(expr.left, depth), self.multiple(expr.right, depth))
            if expr.op == "*":
                return min(ANY, self._factor(expr.left, depth) * self._factor(expr.right, depth))
            if expr.op == "<<":
                shift = self.constant(expr.right, depth)
                if shift is not None and 0 <= shift < 31:
                    return min(ANY, self.multiple(expr.left, depth) << shift)
        return 1

    def _factor(self, expr: S.Expr, depth: int) -> int:
        """A factor's power of two: its own if it uses run-time values, else its value's if that is a
        compile-time constant, else 1 (a loop counter multiplies by anything)."""
        if self._uses_runtime(expr):
            return self.multiple(expr, depth)
        value = self.constant(expr, depth)
        return 1 if value is None else power_of_two(value)

    def constant(self, expr: S.Expr, depth: int) -> int | None:
        """The value of a compile-time integer expression (literals, template arguments, variables set once
        from them), else None."""
        if isinstance(expr, S.Literal):
            return expr.value if isinstance(expr.value, int) else None
        if isinstance(expr, S.Name):
            if expr.name in self.constants:
                return self.constants[expr.name]
            single = self._single_definition(expr.name)
            if single is None or expr.name in self.found.changed or depth >= _DEPTH:
                return None
            return self.constant(single, depth + 1)
        if isinstance(expr, S.Cast):
            return self.constant(expr.value, depth)
        if isinstance(expr, S.InitList) and len(expr.items) == 1:
            return self.constant(expr.items[0], depth)
        if isinstance(expr, S.Binary):
            left, right = self.constant(expr.left, depth), self.constant(expr.right, depth)
            if left is None or right is None:
                return None
            operations = {"+": lambda: left + right, "-": lambda: left - right, "*": lambda: left * right,
                          "/": lambda: left // right if right else None,
                          "%": lambda: left % right if right else None,
                          "<<": lambda: left << right if 0 <= right < 63 else None,
                          ">>": lambda: left >> right if 0 <= right < 63 else None}
            return operations[expr.op]() if expr.op in operations else None
        return None

    def _single_definition(self, name: str) -> S.Expr | None:
        """The one expression ``name`` is set from (its definitions written alike: a function converted once
        per instantiation repeats them), else None."""
        values = self.found.values.get(name, [])
        texts = {" ".join(v.text.split()) for v in values}
        return values[0] if len(texts) == 1 else None

    def _uses_runtime(self, expr: S.Expr) -> bool:
        """Whether ``expr`` names a run-time value (``blockDim.x`` walks through its ``blockDim``)."""
        return any(isinstance(node, S.Name) and node.name in self.runtime for node in S.walk(expr))


def power_of_two(value: int) -> int:
    """The largest power of two dividing ``value`` (``ANY`` for 0: it divides by every one)."""
    value = abs(int(value))
    return ANY if value == 0 else min(ANY, value & -value)
