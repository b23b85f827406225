"""`bankism explain`: answer shared-memory questions about a CUDA kernel from its source.

``explain(source, filename, options)`` preprocesses and parses the kernel, interprets the
asked-for thread blocks, counts every shared-memory access site with the engine and
returns the report as plain data (the JSON schema of docs/explain.md).
"""

from __future__ import annotations

from bankism.explain.analysis import analyze, interpret_kernel
from bankism.explain.model import Analysis, ExplainOptions
from bankism.explain.output.render import render
from bankism.explain.output.report import SCHEMA, build_report
from bankism.explain.simt.bindings import SnapshotRequest


def explain(source: str, filename: str = "kernel.cu", options: ExplainOptions | None = None) -> dict:
    """The explain report (a JSON-ready dict) for the kernel in ``source``."""
    return build_report(interpret_kernel(source, filename, options or ExplainOptions()))


__all__ = ["SCHEMA", "Analysis", "ExplainOptions", "SnapshotRequest", "analyze", "build_report", "explain",
           "interpret_kernel", "render"]
