"""Host code that runs only when the program is given command-line arguments (``if (argc > 1) n =
atoi(argv[1]);``): a run without arguments keeps the declared default, which explain uses and states."""

from __future__ import annotations

import re

from tree_sitter import Node

from bankism.explain.frontend.treesitter import node_text

ARGC_TEST = re.compile(r"\bargc\s*(>=|>|==|!=)\s*(\d+)")


def needs_arguments(condition: str) -> bool:
    """Whether ``condition`` holds only when the program was given arguments: ``argc > 1``,
    ``argc >= 2``, ``argc == 3``, ``argc != 1``, or a test that reads ``argv``."""
    found = ARGC_TEST.search(condition)
    if found:
        op, count = found.group(1), int(found.group(2))
        return {">": count >= 1, ">=": count >= 2, "==": count >= 2, "!=": count == 1}[op]
    return re.search(r"\bargv\b", condition) is not None and "argc" not in condition


def under_command_line_test(node: Node) -> bool:
    """Whether ``node`` runs only in the branch of an ``if`` that needs command-line arguments (a
    program's override of a default: a run without arguments skips it)."""
    while node.parent is not None and node.parent.type != "function_definition":
        parent = node.parent
        if parent.type == "if_statement" and node == parent.child_by_field_name("consequence"):
            condition = parent.child_by_field_name("condition")
            if condition is not None and needs_arguments(node_text(condition)):
                return True
        node = parent
    return False
