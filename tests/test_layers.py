"""The import rule of docs/architecture.md: a module imports only its own layer or the layers below it.

Imports inside functions count too (a lazy import is still a dependency), and no module imports the
package root ``bankism`` (that hides the real dependency and forms a cycle through ``__init__``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "bankism"

#: Layer of each top-level part of the package, lowest first (docs/architecture.md draws them).
LAYERS: dict[str, int] = {
    "errors": 0,
    "version": 0,
    "files": 0,
    "arch": 1,
    "isa": 1,
    "engine": 2,
    "trace": 3,
    "traceio": 3,
    "capture": 4,
    "analyze": 5,
    "timing": 5,
    "review": 6,
    "testing": 6,
    "explain": 7,
    "cli": 8,
    "__main__": 8,
}


def part_of(module: str) -> str:
    """``bankism.trace.read`` -> ``trace``; ``bankism`` -> ``""`` (the root)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def modules() -> list[tuple[str, Path]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE.parent).with_suffix("")
        name = ".".join(relative.parts)
        if name.endswith(".__init__"):
            name = name[: -len(".__init__")]
        found.append((name, path))
    return found


def imported(path: Path, name: str) -> list[tuple[int, str]]:
    """(line, dotted name) of every bankism import in a file, relative imports resolved."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    result = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            result += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # `from a.b import c`: c may be a submodule (a.b.c) or a name in a.b; callers strip to a module.
            result += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return [(line, module) for line, module in result if module.split(".")[0] == "bankism"]


def test_every_part_has_a_layer():
    parts = {part_of(name) for name, _ in modules()} - {""}
    assert parts <= set(LAYERS), f"give these a layer: {sorted(parts - set(LAYERS))}"


@pytest.mark.parametrize(("name", "path"), [m for m in modules() if m[0] != "bankism"], ids=lambda v: str(v))
def test_imports_go_only_inward(name, path):
    own = LAYERS[part_of(name)]
    wrong = []
    for line, module in imported(path, name):
        if module == "bankism":
            wrong.append(f"line {line}: imports the package root")
            continue
        target = part_of(module)
        if target == part_of(name):
            continue
        if target not in LAYERS:  # a root name such as `from bankism import BankismError`
            wrong.append(f"line {line}: imports {module} through the package root")
        elif LAYERS[target] > own:
            wrong.append(f"line {line}: imports {module} (layer {LAYERS[target]}) from layer {own}")
    assert not wrong, f"{name}: " + "; ".join(wrong)


def test_no_import_cycles():
    """No chain of imports (lazy ones included) leads from a module back to itself."""
    known = dict(modules())
    graph = {}
    for name, path in known.items():
        targets = set()
        for _, module in imported(path, name):
            while module and module not in known:  # `from bankism.trace.read import load` -> the module
                module = module.rpartition(".")[0]
            if module and module != name and module != "bankism":
                targets.add(module)
        graph[name] = targets
    cycles = []
    state: dict[str, int] = {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for target in sorted(graph[node]):
            if state.get(target) == 1:
                cycles.append(" -> ".join(stack[stack.index(target):] + [target]))
            elif target not in state:
                visit(target, [*stack, target])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert not cycles, "import cycles: " + "; ".join(cycles)
