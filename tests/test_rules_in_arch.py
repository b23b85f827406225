"""Every hardware rule and constant lives in ``bankism/arch.py`` or ``bankism/isa.py`` (docs/architecture.md).

An AST scan of the package: a literal 32 (the warp, the banks) or ``"sm_90"`` (the default architecture)
anywhere else fails, unless the allow-list below says why that one is not a rule; and no other module
defines its own copy of a rule arch.py names (a second ``MAX_THREADS_PER_BLOCK``, ``window_base``, ...).
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "bankism"
RULE_MODULES = {"arch.py", "isa.py"}

#: (module, enclosing function or module-level constant) -> why its literal 32 is not a hardware rule.
ALLOWED: dict[tuple[str, str], str] = {
    ("cli/analyze_cmd.py", "LOAD_HINT_BYTES"): "32 MiB, a file size above which the CLI hints at .npz",
    ("engine/kernel.py", "_word_max"): "the two halves of a 64-bit register in a SWAR maximum",
    ("engine/kernel.py", "_histogram_max"): "4 registers of 8 byte counters: the keys the SWAR path holds",
    ("explain/cuda/arithmetic.py", "INT_BITS"): "the width of CUDA's int, for the bit intrinsics",
    ("explain/frontend/expressions.py", "parse_number"): "the width of CUDA's unsigned int, for -1u",
    ("explain/simt/calls.py", "MAX_CALL_DEPTH"): "the interpreter's recursion limit",
    ("explain/simt/repeat.py", "MIN_TRIPS"): "loops shorter than this run as usual: a speed threshold",
    ("review/access.py", "threads"): "the size of an lru_cache",
    ("review/triton_encoding.py", "nvmma"): "Triton's swizzlingByteWidth values (0, 32, 64, 128 bytes)",
}

#: Names whose one definition is in arch.py: another module may import them, not define them.
RULE_NAMES = {
    "LANES", "FULL_MASK", "MAX_THREADS_PER_BLOCK", "LANES_PER_MATRIX", "MATRIX_ROW_BYTES", "DEFAULT_ARCH",
    "DYNAMIC_SHARED_ALIGN", "DECLARED_ARRAY_ALIGN", "GROUP_LANES", "window_base", "bank_of",
}


def _modules() -> list[Path]:
    return [p for p in sorted(PACKAGE.rglob("*.py")) if p.relative_to(PACKAGE).as_posix() not in RULE_MODULES]


def _literals(tree: ast.Module) -> list[tuple[int, str, object]]:
    """(line, scope, value) of every literal 32 and "sm_90"; the scope is the innermost function or
    class, or the module-level constant being assigned."""
    found = []

    def visit(node: ast.AST, scope: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = scope
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                inner = child.name
            elif isinstance(node, ast.Module) and isinstance(child, ast.Assign | ast.AnnAssign):
                target = child.targets[0] if isinstance(child, ast.Assign) else child.target
                inner = target.id if isinstance(target, ast.Name) else scope
            if isinstance(child, ast.Constant) and (
                    (type(child.value) is int and child.value == 32) or child.value == "sm_90"):
                found.append((child.lineno, inner, child.value))
            visit(child, inner)

    visit(tree, "<module>")
    return found


def _scan() -> tuple[list[str], set[tuple[str, str]]]:
    wrong, used = [], set()
    for path in _modules():
        name = path.relative_to(PACKAGE).as_posix()
        for line, scope, value in _literals(ast.parse(path.read_text(encoding="utf-8"))):
            if (name, scope) in ALLOWED and value == 32:
                used.add((name, scope))
            else:
                wrong.append(f"bankism/{name}:{line} ({scope}): literal {value!r}")
    return wrong, used


def test_no_rule_literal_outside_arch():
    wrong, _ = _scan()
    assert not wrong, ("use bankism.arch (LANES, banks, DEFAULT_ARCH, ...) instead of these literals, or "
                       "say in ALLOWED why one is not a rule:\n" + "\n".join(wrong))


def test_every_allowance_is_still_needed():
    _, used = _scan()
    stale = set(ALLOWED) - used
    assert not stale, f"these allowances match no literal any more: remove them: {sorted(stale)}"


def test_rules_are_defined_once():
    copies = []
    for path in _modules():
        # module level only: an enum member (KindColumn.LANES) is no copy
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            names: list[str] = []
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names = [node.name]
            elif isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names = [node.target.id]
            copies += [f"bankism/{path.relative_to(PACKAGE).as_posix()}:{node.lineno}: {n}"
                       for n in names if n in RULE_NAMES]
    assert not copies, "arch.py defines these; import them from there:\n" + "\n".join(copies)


def test_the_scan_sees_a_literal():
    """The scan itself finds a warp-size literal and the default architecture (it cannot pass vacuously)."""
    tree = ast.parse("def f(x):\n    return x % 32, 'sm_90'\nWIDTH = 32\n")
    found = [(scope, value) for _, scope, value in _literals(tree)]
    assert found == [("f", 32), ("f", "sm_90"), ("WIDTH", 32)]
