"""`bankism explain`: answer shared-memory questions about a CUDA kernel from its source.

``explain(source, filename, options)`` preprocesses and parses the kernel, interprets the
asked-for thread blocks, counts every shared-memory access site with the engine and
returns the report as plain data (the JSON schema of docs/explain.md); ``explain_report``
returns the same report as typed records (``ExplainReport``, ``to_dict()`` gives the dict).
"""

from __future__ import annotations

from bankism.explain.analysis import analyze, interpret_kernel
from bankism.explain.model import Analysis, ExplainOptions
from bankism.explain.output.records import SCHEMA, ExplainReport
from bankism.explain.output.render import render
from bankism.explain.output.report import build_records, build_report
from bankism.explain.simt.bindings import SnapshotRequest


def explain(source: str, filename: str = "kernel.cu", options: ExplainOptions | None = None) -> dict:
    """The explain report (a JSON-ready dict) for the kernel in ``source``."""
    return explain_report(source, filename, options).to_dict()


def explain_report(source: str, filename: str = "kernel.cu",
                   options: ExplainOptions | None = None) -> ExplainReport:
    """The explain report for the kernel in ``source`` as typed records (what ``render`` prints)."""
    return build_records(interpret_kernel(source, filename, options or ExplainOptions()))


__all__ = ["SCHEMA", "Analysis", "ExplainOptions", "ExplainReport", "SnapshotRequest", "analyze",
           "build_records", "build_report", "explain", "explain_report", "interpret_kernel", "render"]
