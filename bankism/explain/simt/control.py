"""``switch`` and forward ``goto`` in explain, run as lane masks like the other statements.

* ``switch``: each thread enters at its ``case`` (or ``default``) and falls through the
  following cases until a ``break``; ``continue`` inside a switch continues the loop around it.
* ``goto L``: the threads that take it leave the statements in between and rejoin at the
  label ``L``, which must come later in the same block or an enclosing block of the same loop
  body (or function body): the form unrolled copy code uses. Other gotos are refused when
  the kernel is parsed."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from tree_sitter import Node

from bankism.explain.frontend import syntax as S
from bankism.explain.frontend.treesitter import named_children, node_text
from bankism.explain.simt.bindings import LoopState
from bankism.explain.simt.values import Failure, Mask, Scalar, all_known, per_thread

_LOOPS = ("for_statement", "while_statement", "do_statement", "for_range_loop", "function_definition",
          "lambda_expression")


@dataclass(slots=True, eq=False)
class Case(S.Node):
    value: S.Expr | None          # None for default
    body: list[S.Stmt]


@dataclass(slots=True, eq=False)
class Switch(S.Stmt):
    condition: S.Expr
    cases: list[Case]


@dataclass(slots=True, eq=False)
class Goto(S.Stmt):
    label: str


@dataclass(slots=True, eq=False)
class Label(S.Stmt):
    label: str
    stmt: S.Stmt | None


@dataclass(slots=True, eq=False)
class LabeledBlock(S.Stmt):
    """A compound statement with labels in it: runs like a block, and threads that jumped
    to one of its labels rejoin there."""

    body: list[S.Stmt]


def convert(converter, node: Node) -> S.Stmt:  # noqa: ANN001
    """switch_statement, goto_statement, labeled_statement or a compound statement holding
    labels, as syntax nodes (``converter`` is parse's converter)."""
    line, end, text = converter._line(node), converter._end_line(node), node_text(node)
    if node.type == "switch_statement":
        condition = converter._condition(node.child_by_field_name("condition"))
        body = node.child_by_field_name("body")
        cases = []
        for child in named_children(body):
            if child.type != "case_statement":
                raise converter.unsupported(child, "statement before the first case of a switch")
            value = child.child_by_field_name("value")
            statements = [converter.lazy_statement(c) for c in named_children(child)
                          if (value is None or c.id != value.id) and c.type != "comment"]
            cases.append(Case(converter._line(child), node_text(child),
                              converter.expr(value) if value is not None else None, statements))
        return Switch(line, text, end, condition, cases)
    if node.type == "goto_statement":
        label = node_text(node.child_by_field_name("label"))
        _check_goto(converter, node, label)
        return Goto(line, text, end, label)
    if node.type == "labeled_statement":
        label = node_text(node.child_by_field_name("label"))
        inner = [c for c in named_children(node) if c.type != "statement_identifier"]
        return Label(line, text, end, label, converter.lazy_statement(inner[0]) if inner else None)
    body = [converter.lazy_statement(c) for c in node.named_children
            if c.type not in ("comment", "preproc_call", ";", "attributed_statement_empty")]
    return LabeledBlock(line, text, end, body)


def has_labels(node: Node) -> bool:
    """Whether a compound statement has a label among its statements."""
    return any(c.type == "labeled_statement" for c in node.named_children)


def _check_goto(converter, node: Node, label: str) -> None:  # noqa: ANN001
    """A goto must jump forward to a label of an enclosing block inside the same loop body."""
    child, parent = node, node.parent
    while parent is not None and parent.type not in _LOOPS:
        if parent.type == "compound_statement":
            for sibling in parent.named_children:
                named = sibling.type == "labeled_statement" and sibling.child_by_field_name("label")
                if named and node_text(named) == label:
                    if sibling.start_byte > child.start_byte:
                        return
                    raise converter.unsupported(node, f"goto {label} jumps backwards")
        child, parent = parent, parent.parent
    raise converter.unsupported(node, f"goto {label}: its label is not later in the same loop body")


class Control:
    """switch and goto (a mixin of ``Machine``)."""

    def _jumps(self) -> dict:
        jumps = getattr(self, "_pending_jumps", None)
        if jumps is None:
            jumps = self._pending_jumps = {}
        return jumps

    def _switch(self, stmt: Switch, mask: Mask) -> Mask:
        value = self.eval(stmt.condition, mask)
        if not isinstance(value, Scalar) or not value.type.is_integer:
            raise Failure(stmt.condition, "the switch condition must be an integer")
        if not all_known(value.known, mask):
            raise Failure(stmt.condition, f"the switch condition depends on {value.taint}, which bankism "
                                          "does not know")
        data = per_thread(np.asarray(value.data, np.int64), self.threads)
        entry = np.full(self.threads, -1, np.int64)
        default = None
        for index, case in enumerate(stmt.cases):
            if case.value is None:
                default = index
                continue
            label = self.integer_constant(case.value, mask, "case label")
            entry = np.where((entry < 0) & (data == label), index, entry)
        if default is not None:
            entry = np.where(entry < 0, default, entry)
        entry = np.where(mask.arr, entry, -1)
        state = LoopState(np.zeros(self.threads, bool), np.zeros(self.threads, bool))
        self.loops.append(state)
        self.frame.scopes.append({})
        running = Mask(np.zeros(self.threads, bool), False, True)
        try:
            for index, case in enumerate(stmt.cases):
                running = running | Mask.of(entry == index)
                for inner in case.body:
                    if running.none:
                        break
                    running = self.exec(inner, running)
        finally:
            self.frame.scopes.pop()
            self.loops.pop()
        if state.continued.any():
            if not self.loops:
                raise Failure(stmt, "continue outside a loop")
            self.loops[-1].continued |= state.continued
        out = running.arr | state.broken | (mask.arr & (entry < 0))
        return self._live(Mask.of(out & ~state.continued))

    def _goto(self, stmt: Goto, mask: Mask) -> Mask:
        key = (id(self.frame), stmt.label)
        jumps = self._jumps()
        jumps[key] = jumps.get(key, np.zeros(self.threads, bool)) | mask.arr
        return Mask(np.zeros(self.threads, bool), False, True)

    def _label(self, stmt: Label, mask: Mask) -> Mask:
        pending = self._jumps().pop((id(self.frame), stmt.label), None)
        if pending is not None:
            mask = mask | Mask.of(pending)
        if stmt.stmt is None or mask.none:
            return mask
        return self.exec(stmt.stmt, mask)

    def _labeled_block(self, stmt: LabeledBlock, mask: Mask) -> Mask:
        self.frame.scopes.append({})
        try:
            for inner in stmt.body:
                if mask.none and not isinstance(inner, Label):
                    continue
                mask = self.exec(inner, mask)
        finally:
            self.frame.scopes.pop()
        return mask
