"""A block-sampled launch whose instruction counts miss ncu's: say that the recorded blocks are not
representative, and how to record the launch instead (the `--blocks` of `bankism record`)."""

from __future__ import annotations

import math
from typing import Protocol

from bankism.analyze.model import CLASSES, Counts
from bankism.trace.views import Launch


class SampledLaunch(Protocol):
    """What the advice reads of one launch's report (``report.LaunchReport`` has it all)."""

    launch: Launch
    records: int
    blocks_recorded: int
    measured: Counts | None

    @property
    def blocks_total(self) -> int: ...
    @property
    def scaled(self) -> bool: ...
    @property
    def traced(self) -> bool: ...
    @property
    def predicted(self) -> Counts: ...
    def unmodelled_records(self, op_class: str | None = None) -> int: ...
    def instruction_range(self, op_class: str) -> tuple[float, float] | None: ...


def within_range(report: SampledLaunch, op_class: str, measured: float) -> bool:
    """Whether a block-sampled class's measured instructions lie in its ``instruction_range`` (False where
    the launch is not sampled or its blocks were not tallied)."""
    span = report.instruction_range(op_class)
    return span is not None and span[0] - 0.5 <= measured <= span[1] + 0.5


def outside_range(report: SampledLaunch, op_class: str, measured: float) -> bool:
    """Whether a scaled class's measured instructions cannot come from blocks like the recorded ones: off
    the scaled count where the blocks were not tallied, else outside ``instruction_range``."""
    if report.instruction_range(op_class) is None:
        return abs(measured - report.predicted[op_class].instructions) >= 0.5
    return not within_range(report, op_class, measured)


def sampling_advice(report: SampledLaunch) -> str | None:
    """The advice when the scaled instruction counts of a block-sampled launch miss ncu's; else None."""
    if not report.scaled or report.measured is None or not report.traced:
        return None
    predicted = report.predicted
    off = [(c, report.measured[c].instructions, predicted[c].instructions) for c in CLASSES
           if c in report.measured and not report.unmodelled_records(c)
           and outside_range(report, c, report.measured[c].instructions)]
    if not off:
        return None
    from bankism.capture.run import DEFAULT_MAX_RECORDS

    needed = math.ceil(report.records / report.blocks_recorded * report.blocks_total * 1.05)
    record_all = "--blocks all" + (f" --max-records {needed}" if needed > DEFAULT_MAX_RECORDS else "")
    gx, gy, gz = report.launch.grid
    corners = ";".join(dict.fromkeys(
        f"{x},{y},{z}" for x in (0, gx - 1) for y in (0, gy - 1) for z in (0, gz - 1)))
    counts = "; ".join(f"{c}: {guess:,.0f} predicted, {value:,} measured "
                       + (f"({(guess - value) / value:+.1%})" if value else "(none measured)")
                       for c, value, guess in off)
    return (f"the {report.blocks_recorded} recorded blocks are not representative of the launch's "
            f"{report.blocks_total}: scaled up, their instruction counts miss ncu's ({counts}), more than "
            "unrecorded blocks doing as much as the least and the most busy recorded block would explain, so "
            "the blocks do unequal work (e.g. edge blocks of a grid that overhangs the data) and no scaled "
            f"counter can be judged. Record every block (`bankism record {record_all} ...`), or list "
            f"blocks of each kind (`--blocks '{corners}'`: the grid's corners, edge blocks included)")
