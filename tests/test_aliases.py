"""Deprecated names stay importable for users' scripts, and nothing in bankism uses them any more."""

from __future__ import annotations

import ast
from pathlib import Path

import bankism.analyze
import bankism.trace
import bankism.traceio
from bankism.arch import NCU_COUNTER_OF_OP
from bankism.trace import views

PACKAGE = Path(__file__).resolve().parent.parent / "bankism"

#: Deprecated name -> where it may still be defined (the one place that keeps it for scripts).
DEPRECATED = {"traceio": "traceio.py", "OP_CLASS": "analyze/model.py"}


def test_deprecated_names_still_work():
    assert bankism.traceio.load is bankism.trace.load
    assert bankism.traceio.open_trace is bankism.trace.open_trace
    assert bankism.analyze.Report is bankism.analyze.TraceReport
    assert bankism.analyze.OP_CLASS == NCU_COUNTER_OF_OP
    assert views.Site is views.TraceSite


def test_the_package_does_not_use_deprecated_names():
    uses = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                found = [node.module or "", *(a.name for a in node.names)]
                found += [a.asname or "" for a in node.names]
            elif isinstance(node, ast.Import):
                found = [a.name for a in node.names] + [a.asname or "" for a in node.names]
            elif isinstance(node, ast.Name | ast.Attribute):
                found = [node.id if isinstance(node, ast.Name) else node.attr]
            else:
                continue
            for word in found:
                for deprecated, home in DEPRECATED.items():
                    if deprecated in word.split(".") and name != home and not (
                            name == "analyze/__init__.py" and deprecated == "OP_CLASS"):
                        uses.append(f"bankism/{name}:{node.lineno}: {word}")
    assert not uses, "use the current names (bankism.trace, arch.NCU_COUNTER_OF_OP):\n" + "\n".join(uses)
