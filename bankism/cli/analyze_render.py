"""How ``bankism analyze`` and ``bankism show`` print: the Rich tables, the verdict sentences, the CSV rows.

Printing only: every figure comes from the typed report of ``bankism.analyze``.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from bankism.analyze import (
    TOLERANCE,
    LaunchReport,
    LineStats,
    SiteStats,
    TraceReport,
    WorstInstruction,
    async_notes,
    distributed_notes,
)
from bankism.cli.pipe import StdoutClosed
from bankism.engine.bankmap import BankMap, lanes_text
from bankism.timing.text import fix_line
from bankism.trace.views import TraceSite

#: Width of tables when stdout is not a terminal (a pipe or a CI log), so columns are not squeezed.
PIPE_WIDTH = 160

BANK_MAP_LEGEND = (
    "wN(L...) = 4-byte word N (byte offset 4N) of the shared window and the lanes asking for it; "
    "red: banks serving several distinct words, one per wavefront"
)

CSV_COLUMNS = (
    "launch", "kernel", "site", "pc", "sass", "file", "line", "op", "width", "matrices", "class",
    "executions", "wavefronts", "ideal", "excess", "conflicts", "cycles", "atomic_op",
    "worst_record", "worst_block_x", "worst_block_y", "worst_block_z", "worst_warp", "worst_wavefronts",
)


#: Control characters a trace's strings (file and kernel names) may hold: printed escaped, never sent to
#: the terminal as they are (an ESC sequence would restyle it). Newlines and tabs stay.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


class _PipeConsole(Console):
    """A Rich console whose closed pipe ends the CLI quietly (Rich's own exits 1, the "conflicts" code),
    without Rich's highlighting (its regexes take quadratic time on a long name without spaces) and with
    control characters in the printed text escaped."""

    def __init__(self, **options: Any) -> None:
        super().__init__(highlight=False, **options)

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise StdoutClosed

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        escaped = (Segment(_CONTROL.sub(lambda m: f"\\x{ord(m[0]):02x}", segment.text), segment.style,
                           segment.control) if not segment.control else segment for segment in buffer)
        return super()._render_buffer(escaped)


def stdout_console(width: int | None = None) -> Console:
    """The console the reports print on: the terminal's width, else PIPE_WIDTH for a pipe or a log."""
    if width is not None:
        return _PipeConsole(width=width)
    if sys.stdout.isatty() or "COLUMNS" in os.environ:
        return _PipeConsole()
    return _PipeConsole(width=PIPE_WIDTH)


# ---------------------------------------------------------------------------------------------
# Rendering of the report
# ---------------------------------------------------------------------------------------------


def _op_text(site: TraceSite) -> str:
    if site.matrices:
        return f"{site.op}.x{site.matrices}" + (".trans" if site.trans else "")
    if site.op == "atomic":
        return f"atomic.{site.width}.{site.atomic_op}"
    return f"{site.op}.{site.width}"


def _source_text(file: str | None, line: int | None) -> str:
    """file:line with the file's name only (the JSON and CSV keep the whole path)."""
    if not file:
        return "?"
    name = Path(file).name
    return f"{name}:{line}" if line else name


def _worst_text(worst: WorstInstruction | None) -> str:
    if worst is None:
        return ""
    x, y, z = worst.block
    return f"({x},{y},{z}) w{worst.warp}: {worst.wavefronts}"


def _number(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.1f}"


#: The narrow tables (the default) are meant to fit an 80-column terminal: short headers, file:line.
NARROW_SOURCE = 18
NARROW_SASS = 14


def _place(site: TraceSite) -> str:
    """file:line of a site, the file's name only."""
    return _source_text(site.file, site.line)


def _short_source(site: TraceSite) -> str:
    """file:line with the file name cut from the left to fit the narrow table."""
    text = _place(site)
    return text if len(text) <= NARROW_SOURCE else "…" + text[-(NARROW_SOURCE - 1):]


def _excess_cell(excess: int) -> Text:
    return Text(_number(excess), style="bold red" if excess else "green")


def _new_table(headers: tuple[str, ...], footers: tuple[str, ...], numeric: set[int], wide: bool) -> Table:
    if wide:
        table = Table(show_footer=True, header_style="bold", footer_style="bold")
    else:
        table = Table(show_footer=True, header_style="bold", footer_style="bold", box=box.SIMPLE_HEAD,
                      show_edge=False, pad_edge=False, padding=(0, 1), collapse_padding=True)
    for position, (header, footer) in enumerate(zip(headers, footers, strict=True)):
        table.add_column(header, footer, justify="right" if position in numeric else "left", no_wrap=not wide)
    return table


def _ranges(ids: list[int]) -> str:
    return lanes_text(sorted(ids))


def site_table(report: LaunchReport, wide: bool = True) -> Table:
    """One row per instruction site (SASS instruction), plus the totals of the recorded records."""
    totals = report.totals()
    if wide:
        headers = ("site", "SASS", "source", "op", "executions", "wavefronts", "ideal", "excess",
                   "conflicts", "cycles", "worst warp (block) w: wavefronts")
        footers = ("total", "", "", "", _number(totals["executions"]), _number(totals["wavefronts"]),
                   _number(totals["ideal"]), _number(totals["excess"]), _number(totals["conflicts"]),
                   _number(totals["cycles"]), "")
        table = _new_table(headers, footers, set(range(4, 10)), wide)
        for stats in report.sites:
            table.add_row(
                str(stats.id), Text(stats.site.sass or ""), Text(_place(stats.site)),
                _op_text(stats.site),
                _number(stats.executions), _number(stats.wavefronts), _number(stats.ideal),
                _excess_cell(stats.excess), _number(stats.conflicts), _number(stats.cycles),
                _worst_text(stats.worst),
            )
        return table
    headers = ("site", "SASS", "source", "execs", "wavefr", "excess", "confl", "cycles")
    footers = ("total", "", "", _number(totals["executions"]), _number(totals["wavefronts"]),
               _number(totals["excess"]), _number(totals["conflicts"]), _number(totals["cycles"]))
    table = _new_table(headers, footers, set(range(3, 8)), wide)
    for stats in report.sites:
        table.add_row(
            str(stats.id), Text(_short_sass(stats.site)), Text(_short_source(stats.site)),
            _number(stats.executions), _number(stats.wavefronts), _excess_cell(stats.excess),
            _number(stats.conflicts), _number(stats.cycles),
        )
    return table


def _short_sass(site: TraceSite) -> str:
    """The SASS opcode, cut to NARROW_SASS characters (the op column of --wide spells it out)."""
    text = site.sass or _op_text(site)
    return text if len(text) <= NARROW_SASS else text[: NARROW_SASS - 1] + "…"


def _line_worst_text(line: LineStats) -> str:
    site = line.worst_site
    return "" if site is None else f"site {site.id} {_worst_text(site.worst)}"


def line_table(report: LaunchReport, wide: bool = False) -> Table:
    """One row per source line and op, its SASS sites folded in (Nsight Compute's source view)."""
    totals = report.totals()
    lines = report.lines()
    if wide:
        headers = ("source", "op", "sites", "SASS", "executions", "wavefronts", "ideal", "excess",
                   "conflicts", "cycles", "worst warp: site (block) w: wavefronts")
        footers = ("total", "", str(len(report.sites)), "", _number(totals["executions"]),
                   _number(totals["wavefronts"]), _number(totals["ideal"]), _number(totals["excess"]),
                   _number(totals["conflicts"]), _number(totals["cycles"]), "")
        table = _new_table(headers, footers, set(range(4, 10)), wide)
        for line in lines:
            first = line.sites[0].site
            sass = ",".join(sorted({s.site.sass or "?" for s in line.sites}))
            table.add_row(Text(_place(first)), line.op, _ranges([s.id for s in line.sites]), Text(sass),
                          _number(line.executions), _number(line.wavefronts), _number(line.ideal),
                          _excess_cell(line.excess), _number(line.conflicts), _number(line.cycles),
                          _line_worst_text(line))
        return table
    headers = ("source", "op", "sites", "execs", "wavefr", "excess", "confl", "cycles")
    footers = ("total", "", str(len(report.sites)), _number(totals["executions"]),
               _number(totals["wavefronts"]), _number(totals["excess"]), _number(totals["conflicts"]),
               _number(totals["cycles"]))
    table = _new_table(headers, footers, set(range(2, 8)), wide)
    for line in lines:
        table.add_row(Text(_short_source(line.sites[0].site)), line.op, str(len(line.sites)),
                      _number(line.executions), _number(line.wavefronts), _excess_cell(line.excess),
                      _number(line.conflicts), _number(line.cycles))
    return table


def comparison_table(report: LaunchReport, wide: bool = True) -> Table:
    """Measured ncu counters against the (scaled) prediction; the explanations in a column when wide,
    else printed under the table (``comparison_notes``)."""
    headers = ["class", "counter", "measured", "predicted", "difference", "verdict"]
    if wide:
        table = Table(header_style="bold")
        headers.append("explanation")
    else:
        table = Table(header_style="bold", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False,
                      padding=(0, 1), collapse_padding=True)
    for header in headers:
        numeric = header in ("measured", "predicted", "difference")
        table.add_column(header, justify="right" if numeric else "left", no_wrap=not wide)
    for row in report.comparisons():
        verdict = ("" if row.within_tolerance is None
                   else Text("ok", style="green") if row.within_tolerance else Text("off", style="bold red"))
        cells = [row.op_class, row.metric, _number(row.measured), _number(round(row.predicted, 1)),
                 _number(round(row.difference, 1)), verdict]
        table.add_row(*cells, *([row.explanation] if wide else []))
    return table


def comparison_notes(report: LaunchReport) -> list[str]:
    """The explanations the narrow comparison table leaves out: one line per class and counter that
    is not a plain match, the same explanation given once."""
    if not report.traced:
        return ["predicted: profiled only, the trace holds no sites or records for this launch"]
    notes: dict[str, list[str]] = {}
    for row in report.comparisons():
        if not row.explanation.startswith("match"):
            notes.setdefault(row.explanation, []).append(f"{row.op_class} {row.metric}")
    return [f"{', '.join(names)}: {why}" for why, names in notes.items()]


def _launch_heading(report: LaunchReport) -> str:
    launch = report.launch
    return (
        f"[bold]launch {report.index}[/bold]: {escape(report.kernel)}\n"
        f"grid {list(launch.grid)} x block {list(launch.block)}, shared memory {launch.shared_static} B "
        f"static + {launch.shared_dynamic} B dynamic; {report.records:,} warp-instructions recorded; "
        f"{report.scaling_note()}"
    )


def _measured_text(measured: dict[str, int]) -> str:
    """'509 (ld 471, st 38)': ncu's conflicts, in total and per class."""
    parts = ", ".join(f"{c} {_number(v)}" for c, v in measured.items() if v)
    return _number(sum(measured.values())) + (f" ({parts})" if parts else "")


def _verdict(report: LaunchReport) -> str:
    """The headline of a launch: the model's finding next to ncu's, never contradicting it."""
    measured = report.measured_conflicts
    measured_total = sum(measured.values()) if measured else 0
    conflicted = [s for s in report.sites if s.excess]
    if not report.traced:
        if measured is None:
            return "Nothing recorded for this launch: no sites, no counters."
        if not measured_total:
            return "[green]Bank conflicts: model: none (profiled only); measured: 0.[/green]"
        return (f"[bold red]Bank conflicts: model: none (profiled only, no addresses recorded); measured: "
                f"{_measured_text(measured)}[/bold red]. Trace the launch (`bankism trace`) to see where.")
    if conflicted:
        totals = report.totals()
        share = totals["excess"] / totals["wavefronts"]
        worst = max(conflicted, key=lambda s: s.excess)
        text = (
            f"[bold red]{len(conflicted)} of {len(report.sites)} sites have bank conflicts[/bold red]: "
            f"{_number(totals['excess'])} excess wavefronts ({share:.1%} of all recorded wavefronts); "
            f"most at site {worst.id} ({escape(_place(worst.site))}). `bankism show TRACE --site {worst.id} "
            f"--launch {report.index}` draws its worst warp."
        )
        if measured is not None:
            text += f" Measured: {_measured_text(measured)} conflicts."
        return text
    if measured is None:
        return "[green]No bank conflicts: every site runs at its ideal wavefront count.[/green]"
    if not measured_total:
        return "[green]No bank conflicts: every site runs at its ideal count, and ncu measured none.[/green]"
    if report.conflicts_explained():
        unexplained = report.unexplained_surplus()
        if unexplained:
            return (f"[yellow]Bank conflicts: model: none; measured: {_measured_text(measured)}, beyond the "
                    "addresses[/yellow] (ncu's own address-level count equals the model's): no layout change "
                    "removes them; the launch's traffic does not account for those of "
                    f"{', '.join(unexplained)} (not explained; docs/rules.md, whole kernels).")
        return (f"[yellow]Bank conflicts: model: none; measured: {_measured_text(measured)}, explained as L1 "
                "surplus[/yellow] (whole-kernel contention with L1 fills and global stores, "
                "which ncu counts as bank conflicts; docs/rules.md): no layout change removes them.")
    return (f"[bold red]Bank conflicts: model: none; measured: {_measured_text(measured)}, not explained by "
            "the model[/bold red]: see the comparison below.")


def _agreement(report: LaunchReport) -> str:
    agrees = report.agrees()
    if report.measured is not None and not report.traced:
        return "This launch was profiled, not traced: nothing to set against the counters."
    if agrees is None:
        return "The trace carries no measured counters."
    limits = "; ".join(
        f"{metric} " + ("exact" if not a.surplus and not a.deficit else
                        f"+{a.surplus:.0%}/-{a.deficit:.0%} of measured")
        for metric, a in TOLERANCE.items()) + "; conflicts: surplus = wavefront surplus"
    if any(e is not None for e in report.surplus_estimates().values()):
        limits += ("; with traffic counters, wavefronts = predicted + expected surplus within its band "
                   "(docs/rules.md, whole kernels)")
    if agrees:
        return f"[green]Prediction agrees with the measured ncu counters[/green] (tolerance {limits})."
    advice = report.sampling_advice()
    if advice:
        return f"[bold red]Recorded blocks not representative[/bold red]: {advice}."
    return f"[bold red]Prediction differs from the measured ncu counters[/bold red] (tolerance {limits})."


def _unrecorded(report: LaunchReport) -> str | None:
    """The kernel's shared-memory instructions the tracer does not record (capture.convert.UNRECORDED_SHARED),
    which the prediction therefore leaves out; None when the trace lists none."""
    found = report.launch.unrecorded_shared or []
    if not found:
        return None
    parts = [escape(f"{item['instructions']} x {item['sass']} at "
                    f"{_source_text(item.get('file'), item.get('line'))} ({item['what']})")
             for item in found]
    return ("[yellow]Not in the prediction[/yellow]: the kernel's code also holds shared-memory instructions "
            "the tracer does not record: " + "; ".join(parts) + ".")


def coverage_text(report: LaunchReport) -> str:
    """One line per site the engine could not simulate, and per class ncu counted unrecorded traffic in."""
    unrecorded = [f"ncu counted {row['missing']:,.0f} more {row['class']} instructions than the trace holds "
                  "(shared-memory traffic the tracer did not record)" for row in report.unrecorded()]
    if not report.unmodelled:
        return "\n".join([f"Coverage: every one of the {report.records:,} recorded warp-instructions was "
                          "simulated.", *unrecorded])
    lines = [
        f"[bold yellow]Coverage: {report.unmodelled_records():,} of {report.records:,} recorded "
        "warp-instructions could not be simulated[/bold yellow] (left out of the prediction):"
    ]
    for stats in report.unmodelled:
        opcode = stats.site.sass or stats.site.op
        lines.append(escape(f"  site {stats.id} ({_place(stats.site)}, {opcode}, {stats.op_class}): "
                            f"{stats.executions:,} warp-instructions; {stats.unmodelled}"))
    return "\n".join(lines + unrecorded)


def print_report(report: TraceReport, console: Console, by: str = "line", wide: bool = False) -> None:
    """The human-readable report: per launch, the line (or site) table, the verdict and the ncu comparison."""
    gpu = report.environment.get("gpu") or "GPU unknown"
    unwrapped = not console.is_terminal  # a pipe or a log keeps each sentence on one line, for grep
    heading = f"[bold]{escape(report.trace)}[/bold] ({escape(report.arch)}, {escape(gpu)})"
    console.print(heading, soft_wrap=True)
    for launch in report.launches:
        console.print()
        console.print(_launch_heading(launch), soft_wrap=unwrapped)
        if launch.traced:
            console.print(line_table(launch, wide) if by == "line" else site_table(launch, wide))
        console.print(_verdict(launch), soft_wrap=unwrapped)
        console.print(coverage_text(launch), soft_wrap=unwrapped, highlight=False)
        view = launch.launch
        for note in [*async_notes(view.async_events), *distributed_notes(view.distributed_shared)]:
            console.print(f"Not simulated: {note}.", markup=False, soft_wrap=unwrapped)
        if launch.measured is not None:
            console.print(comparison_table(launch, wide))
            if not wide:
                for note in comparison_notes(launch):
                    console.print(note, markup=False, soft_wrap=unwrapped)
        console.print(_agreement(launch), soft_wrap=unwrapped)
        console.print(fix_line(*launch.fix()), markup=False, soft_wrap=unwrapped, highlight=False)
        unrecorded = _unrecorded(launch)
        if unrecorded:
            console.print(unrecorded, soft_wrap=unwrapped)


def csv_rows(report: TraceReport) -> Iterator[list[Any]]:
    """One row per site of every analysed launch, in CSV_COLUMNS order (recorded figures, unscaled)."""
    for launch in report.launches:
        for stats in launch.sites:
            site = stats.site
            worst = stats.worst
            where = [worst.record, *worst.block, worst.warp, worst.wavefronts] if worst else [""] * 6
            yield [launch.index, launch.kernel, stats.id, site.pc, site.sass, site.file,
                   site.line, site.op, site.width, site.matrices, stats.op_class,
                   stats.executions, stats.wavefronts, stats.ideal, stats.excess, stats.conflicts,
                   stats.cycles, stats.atomic_op, *where]


def bank_map_tables(bank_map: BankMap) -> list[Table]:
    """One table per transaction: a row per bank in use with the words it serves, one per wavefront."""
    tables = []
    for t, (lo, hi) in enumerate(bank_map.transactions):
        table = Table(title=f"transaction {t}: lanes {lo}-{hi - 1}, "
                            f"{bank_map.wavefronts_per_transaction[t]} wavefront(s)",
                      header_style="bold", title_justify="left")
        table.add_column("bank", justify="right")
        table.add_column("words", justify="right")
        table.add_column("words in the order served, one per wavefront")
        for bank, hits in enumerate(bank_map.banks[t]):
            if not hits:
                continue
            words = bank_map.words(t, bank)
            style = "bold red" if len(words) > 1 else ""
            served = "  ".join(f"w{word}(L{lanes_text(lanes)})" for word, lanes in words)
            table.add_row(Text(str(bank), style=style), Text(str(len(words)), style=style), Text(served))
        tables.append(table)
    return tables


def show_heading(report: LaunchReport, stats: SiteStats) -> str:
    worst = stats.worst
    assert worst is not None
    x, y, z = worst.block
    return (
        f"[bold]launch {report.index}[/bold] {escape(report.kernel)}, [bold]site {stats.id}[/bold] "
        f"({escape(stats.site.sass or stats.site.op)} at {escape(_place(stats.site))}, "
        f"{_op_text(stats.site)}): "
        f"worst of {stats.executions:,} executions is record {worst.record}, block ({x},{y},{z}), "
        f"warp {worst.warp}, active lanes {worst.active:#010x}"
    )

