"""From a trace to a report: wavefronts, conflicts and cycles per instruction site, and ncu agreement.

Pure computation, no printing, by job: ``batching`` streams each launch's records through the engine
in chunks and sums per site into the data of ``model``; ``verdict`` sets the prediction against the
measured ncu counters; ``report`` holds one launch's and the whole trace's report and their JSON;
``worst`` re-simulates a site's worst warp-instruction (``bankism show``).
Every name below stays importable as ``bankism.analyze.<name>``. ``docs/analyze.md`` documents the output.
"""

from __future__ import annotations

from bankism.analyze.batching import (
    ANALYZE_CHUNK,
    accumulate,
    analyze,
    analyze_launch,
    block_keys,
    records_in_blocks,
    site_kind,
    site_unmodelled_reason,
)
from bankism.analyze.model import (
    CLASSES,
    COUNTED_AS_INSTRUCTIONS,
    METRICS,
    OP_CLASS,
    OPTIONAL_CLASSES,
    REPORT_FORMAT,
    REPORT_VERSION,
    Counters,
    Counts,
    LineStats,
    SiteStats,
    WorstInstruction,
    atomic_op_of,
    group_by_line,
)
from bankism.analyze.report import LaunchReport, Report, TraceReport, async_notes, distributed_notes
from bankism.analyze.verdict import (
    CONFLICTS_RULE,
    TOLERANCE,
    Allowance,
    Comparison,
    conflicts_agree,
    ldgsts_caveat,
)
from bankism.isa import ATOMIC_SASS, DEFAULT_ATOMIC_OP, atomic_op_of_sass

__all__ = [
    "ANALYZE_CHUNK", "ATOMIC_SASS", "CLASSES", "CONFLICTS_RULE", "COUNTED_AS_INSTRUCTIONS",
    "DEFAULT_ATOMIC_OP", "METRICS", "OPTIONAL_CLASSES", "OP_CLASS", "REPORT_FORMAT", "REPORT_VERSION",
    "TOLERANCE", "Allowance", "Comparison", "Counters", "Counts", "LaunchReport", "LineStats", "Report",
    "SiteStats", "TraceReport", "WorstInstruction", "accumulate", "analyze", "analyze_launch", "block_keys",
    "async_notes", "distributed_notes", "atomic_op_of", "atomic_op_of_sass", "conflicts_agree",
    "group_by_line",
    "ldgsts_caveat", "records_in_blocks", "site_kind", "site_unmodelled_reason",
]
