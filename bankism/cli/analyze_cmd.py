"""`bankism analyze TRACE` (per-site wavefronts, conflicts, ncu agreement) and `bankism show --site N`."""

from __future__ import annotations

import csv
import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import typer
from rich import box
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from bankism.analyze import (
    DEFAULT_ATOMIC_OP,
    TOLERANCE,
    LaunchReport,
    LineStats,
    SiteStats,
    TraceReport,
    WorstInstruction,
    analyze,
    analyze_launch,
    async_notes,
)
from bankism.cli.pipe import StdoutClosed
from bankism.engine import BankMap, SimulationResult, simulate
from bankism.errors import BankismError
from bankism.files import check_output, replace, temporary_sibling
from bankism.trace import Trace, open_trace
from bankism.trace.views import Site

#: A trace file at least this large gets a spinner on stderr while it loads (when stderr is a terminal).
LOAD_NOTICE_BYTES = 8 << 20

#: ... and, at least this large and JSON, the hint that the .npz form loads faster.
LOAD_HINT_BYTES = 32 << 20

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


class _PipeConsole(Console):
    """A Rich console whose closed pipe ends the CLI quietly (Rich's own exits 1, the "conflicts" code)."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise StdoutClosed


def _stdout_console(width: int | None = None) -> Console:
    if width is not None:
        return _PipeConsole(width=width)
    if sys.stdout.isatty() or "COLUMNS" in os.environ:
        return _PipeConsole()
    return _PipeConsole(width=PIPE_WIDTH)


# ---------------------------------------------------------------------------------------------
# Rendering of the report
# ---------------------------------------------------------------------------------------------


def _op_text(site: Site) -> str:
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


def _place(site: Site) -> str:
    """file:line of a site, the file's name only."""
    return _source_text(site.file, site.line)


def _short_source(site: Site) -> str:
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
    return _lanes_text(sorted(ids))


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
                str(stats.id), stats.site.sass or "", _place(stats.site),
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
            str(stats.id), _short_sass(stats.site), _short_source(stats.site), _number(stats.executions),
            _number(stats.wavefronts), _excess_cell(stats.excess), _number(stats.conflicts),
            _number(stats.cycles),
        )
    return table


def _short_sass(site: Site) -> str:
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
            table.add_row(_place(first), line.op, _ranges([s.id for s in line.sites]), sass,
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
        table.add_row(_short_source(line.sites[0].site), line.op, str(len(line.sites)),
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
        f"[bold]launch {report.index}[/bold]: {report.kernel}\n"
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
            f"most at site {worst.id} ({_place(worst.site)}). `bankism show TRACE --site {worst.id} "
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
        return (f"[yellow]Bank conflicts: model: none; measured: {_measured_text(measured)}, explained as L1 "
                "surplus[/yellow] (whole-kernel contention with global-load traffic, which ncu counts as "
                "bank conflicts; docs/rules.md): no layout change removes them.")
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
    parts = [f"{item['instructions']} x {item['sass']} at "
             f"{_source_text(item.get('file'), item.get('line'))} ({item['what']})"
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
        lines.append(f"  site {stats.id} ({_place(stats.site)}, {opcode}, {stats.op_class}): "
                     f"{stats.executions:,} warp-instructions; {stats.unmodelled}")
    return "\n".join(lines + unrecorded)


def print_report(report: TraceReport, console: Console, by: str = "line", wide: bool = False) -> None:
    """The human-readable report: per launch, the line (or site) table, the verdict and the ncu comparison."""
    gpu = report.environment.get("gpu") or "GPU unknown"
    unwrapped = not console.is_terminal  # a pipe or a log keeps each sentence on one line, for grep
    console.print(f"[bold]{report.trace}[/bold] ({report.arch}, {gpu})", soft_wrap=True)
    for launch in report.launches:
        console.print()
        console.print(_launch_heading(launch), soft_wrap=unwrapped)
        if launch.traced:
            console.print(line_table(launch, wide) if by == "line" else site_table(launch, wide))
        console.print(_verdict(launch), soft_wrap=unwrapped)
        console.print(coverage_text(launch), soft_wrap=unwrapped, highlight=False)
        for note in async_notes(launch.launch.async_events):
            console.print(f"Not simulated: {note}.", markup=False, soft_wrap=unwrapped)
        if launch.measured is not None:
            console.print(comparison_table(launch, wide))
            if not wide:
                for note in comparison_notes(launch):
                    console.print(note, markup=False, soft_wrap=unwrapped)
        console.print(_agreement(launch), soft_wrap=unwrapped)
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


# ---------------------------------------------------------------------------------------------
# Progress on stderr
# ---------------------------------------------------------------------------------------------


@contextmanager
def _progress(trace: Trace, launches: list[int] | None, enabled: bool) -> Iterator[Any]:
    """A callback advancing a Rich progress bar (stderr) by a number of records; a no-op when disabled."""
    if not enabled:
        yield None
        return
    chosen = trace.launches if launches is None else [trace.launch(i) for i in launches]
    total = sum(trace.record_count(launch) for launch in chosen)
    columns = (TextColumn("simulating"), BarColumn(), MofNCompleteColumn(), TextColumn("records"),
               TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("simulating", total=total)
        yield lambda n: progress.advance(task, n)


def _fail_on_conflict(report: TraceReport) -> None:
    """Exit 1 when the model finds excess wavefronts, or ncu measured conflicts the model does not explain."""
    sites = sum(1 for item in report.launches for s in item.sites if s.excess)
    unexplained = [item.index for item in report.launches if item.conflicts_explained() is False]
    if not sites and not unexplained:
        return
    reasons = []
    if sites:
        reasons.append(f"{sites} site(s) have excess wavefronts")
    if unexplained:
        reasons.append(f"launch(es) {', '.join(map(str, unexplained))} have measured conflicts the model "
                       "does not explain")
    print(f"bank conflicts: {'; '.join(reasons)} (--fail-on-conflict)", file=sys.stderr)
    raise SystemExit(1)


def _open_with_progress(path: str, enabled: bool, console: Console | None = None) -> Trace:
    """open_trace, with a spinner on stderr (size and seconds) while a large JSON document is read."""
    try:
        size = os.path.getsize(path)
    except OSError:
        size = 0
    if not enabled or size < LOAD_NOTICE_BYTES:
        return open_trace(path)
    hint = "" if size < LOAD_HINT_BYTES else "; the .npz form loads faster (docs/analyze.md)"
    label = TextColumn(f"loading {path} ({size / 1e6:,.0f} MB{hint}): " + "{task.description}")
    columns = (SpinnerColumn(), label, TimeElapsedColumn())
    with Progress(*columns, console=console or Console(stderr=True), transient=True) as progress:
        task = progress.add_task("reading", total=None)
        return open_trace(path, progress=lambda step: progress.update(task, description=step))


# ---------------------------------------------------------------------------------------------
# `show`: the bank map of a site's worst warp-instruction
# ---------------------------------------------------------------------------------------------


def _lanes_text(lanes: list[int]) -> str:
    """Lanes as compact ranges: 0-3,8,12-13."""
    parts, start = [], None
    for i, lane in enumerate(lanes):
        if start is None:
            start = lane
        if i + 1 == len(lanes) or lanes[i + 1] != lane + 1:
            parts.append(str(start) if start == lane else f"{start}-{lane}")
            start = None
    return ",".join(parts)


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
            served = "  ".join(f"w{word}(L{_lanes_text(lanes)})" for word, lanes in words)
            table.add_row(Text(str(bank), style=style), Text(str(len(words)), style=style), Text(served))
        tables.append(table)
    return tables


def _pick_launch(trace: Trace, site_id: int, launch_index: int | None) -> dict[str, Any]:
    if launch_index is not None:
        launch = trace.launch(launch_index)
        if all(s["id"] != site_id for s in launch["sites"]):
            ids = ", ".join(str(s["id"]) for s in launch["sites"]) or "none"
            raise BankismError(
                f"{trace.path}: launch {launch_index} has no site {site_id} (its sites: {ids})"
            )
        return launch
    for launch in trace.launches:
        if any(s["id"] == site_id for s in launch["sites"]):
            return launch
    raise BankismError(f"{trace.path}: no launch has a site {site_id}")


def worst_of_site(trace: Trace, site_id: int, launch_index: int | None) -> tuple[LaunchReport, SiteStats]:
    """Analyse one site of one launch; its stats carry the worst warp-instruction."""
    launch = _pick_launch(trace, site_id, launch_index)
    report = analyze_launch(trace, launch, sites=[site_id])
    if report.unmodelled:
        raise BankismError(f"{trace.path}: launch {launch['index']}, site {site_id} cannot be simulated: "
                           f"{report.unmodelled[0].unmodelled}")
    stats = report.sites[0]
    if stats.worst is None:
        raise BankismError(f"{trace.path}: launch {launch['index']}, site {site_id} was never executed")
    return report, stats


def simulate_worst(stats: SiteStats, arch: str) -> SimulationResult:
    """Re-simulate the worst warp-instruction alone, for its bank map and description."""
    site, worst = stats.site, stats.worst
    assert worst is not None
    return simulate(worst.addresses, width=site.width, op=site.op, active=worst.active,
                    matrices=site.matrices, arch=arch, atomic_op=site.atomic_op or DEFAULT_ATOMIC_OP)


def _lane_colours(count: int) -> Any:
    import matplotlib

    return matplotlib.colormaps["hsv"](np.linspace(0.0, 1.0, count, endpoint=False))


def draw_png(bank_map: BankMap, title: str, path: Path) -> None:
    """Draw the bank map with matplotlib: banks across, wavefronts down, cells coloured by lane."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib import pyplot
    except ImportError:
        raise BankismError("--png needs matplotlib: pip install 'bankism[png]'") from None
    colours = _lane_colours(32)
    rows = len(bank_map.transactions)
    depths = [max((len(bank_map.words(t, b)) for b in range(len(bank_map.banks[t]))), default=1)
              for t in range(rows)]
    figure, axes = pyplot.subplots(rows, 1, figsize=(16, 1.2 + 0.9 * sum(max(d, 1) for d in depths)),
                                   squeeze=False, layout="constrained",
                                   gridspec_kw={"height_ratios": [max(d, 1) for d in depths]})
    for t, axis in enumerate(axes[:, 0]):
        lo, hi = bank_map.transactions[t]
        for bank in range(len(bank_map.banks[t])):
            for k, (word, lanes) in enumerate(bank_map.words(t, bank)):
                axis.add_patch(pyplot.Rectangle(
                    (bank, k), 1, 1, facecolor=colours[lanes[0]], edgecolor="red" if k else "black",
                    linewidth=1.5 if k else 0.5))
                axis.text(bank + 0.5, k + 0.5, f"w{word}\nL{_lanes_text(lanes)}", ha="center", va="center",
                          fontsize=5)
        axis.set_xlim(0, 32)
        axis.set_ylim(max(depths[t], 1), 0)
        axis.set_xticks(np.arange(32) + 0.5, [str(b) for b in range(32)], fontsize=6)
        axis.set_yticks(np.arange(max(depths[t], 1)) + 0.5,
                        [f"wavefront {k + 1}" for k in range(max(depths[t], 1))], fontsize=6)
        axis.set_title(f"transaction {t}: lanes {lo}-{hi - 1}, "
                       f"{bank_map.wavefronts_per_transaction[t]} wavefront(s)", fontsize=8, loc="left")
    axes[-1, 0].set_xlabel("bank")
    figure.suptitle(title, fontsize=9)
    _save_figure_atomically(figure, path)
    pyplot.close(figure)


def _save_figure_atomically(figure: Any, path: Path) -> None:
    kind = path.suffix.lstrip(".").lower() or "png"
    with temporary_sibling(path, f"--png {path}") as temp:
        try:
            figure.savefig(temp, format=kind, dpi=150)
        except ValueError as error:
            raise BankismError(f"--png {path}: {_one_line(error)}") from None
        replace(temp, path, f"--png {path}")


def _one_line(error: Exception) -> str:
    return " ".join(str(error).split())


def _show_heading(report: LaunchReport, stats: SiteStats) -> str:
    worst = stats.worst
    assert worst is not None
    x, y, z = worst.block
    return (
        f"[bold]launch {report.index}[/bold] {report.kernel}, [bold]site {stats.id}[/bold] "
        f"({stats.site.sass or stats.site.op} at {_place(stats.site)}, "
        f"{_op_text(stats.site)}): "
        f"worst of {stats.executions:,} executions is record {worst.record}, block ({x},{y},{z}), "
        f"warp {worst.warp}, active lanes {worst.active:#010x}"
    )


# ---------------------------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------------------------


def register(app: typer.Typer) -> None:
    """Add the `analyze` and `show` commands to ``app``."""

    @app.command("analyze")
    def analyze_command(
        trace: str = typer.Argument(..., help="Trace file (JSON, with its .npz sibling if it has one)."),
        as_json: bool = typer.Option(False, "--json", help="Print the report as JSON (docs/analyze.md)."),
        as_csv: bool = typer.Option(False, "--csv", help="Print one CSV row per instruction site."),
        fail_on_conflict: bool = typer.Option(
            False, "--fail-on-conflict", help="Exit with code 1 when any site has excess wavefronts."),
        launch: int = typer.Option(None, "--launch", help="Analyse only the launch with this index."),
        no_progress: bool = typer.Option(False, "--no-progress", help="No progress bar on stderr."),
        by: str = typer.Option("line", "--by", metavar="line|site",
                               help="Table rows: one per source line and op (default), or per SASS site."),
        wide: bool = typer.Option(False, "--wide", help="Every column, full file names (wider than 80)."),
        threads: int = typer.Option(
            None, "--threads", metavar="N",
            help="Engine threads (default: one per CPU; 1 on a busy machine)."),
    ) -> None:
        """Wavefronts, bank conflicts and cycles of every shared-memory instruction site in a trace."""
        if as_json and as_csv:
            raise BankismError("--json and --csv exclude each other")
        if by not in ("line", "site"):
            raise BankismError(f"--by {by}: expected line or site")
        show_progress = not no_progress and sys.stderr.isatty()
        opened = _open_with_progress(trace, show_progress)
        chosen = None if launch is None else [launch]
        with _progress(opened, chosen, show_progress) as advance:
            report = analyze(opened, chosen, on_records=advance, threads=threads)
        if as_json:
            print(json.dumps(report.to_json(), indent=2))
        elif as_csv:
            writer = csv.writer(sys.stdout, lineterminator="\n")
            writer.writerow(CSV_COLUMNS)
            writer.writerows(csv_rows(report))
        else:
            print_report(report, _stdout_console(), by=by, wide=wide)
        if fail_on_conflict:
            _fail_on_conflict(report)

    @app.command("show")
    def show_command(
        trace: str = typer.Argument(..., help="Trace file."),
        site: int = typer.Option(..., "--site", help="Instruction site id (see `bankism analyze`)."),
        launch: int = typer.Option(None, "--launch", help="Launch index (default: the first with the site)."),
        png: str = typer.Option(None, "--png", help="Also draw the bank map into this image file."),
    ) -> None:
        """Draw the bank map of the worst warp-instruction of one instruction site."""
        if png is not None:
            check_output(png, "--png", [trace, Path(trace).with_suffix(".npz")])
        opened = open_trace(trace)
        report, stats = worst_of_site(opened, site, launch)
        result = simulate_worst(stats, opened.arch)
        bank_map = result.bank_map(0)
        console = _stdout_console()
        console.print(_show_heading(report, stats), soft_wrap=True)
        console.print(result.describe(0), soft_wrap=True, markup=False)
        for table in bank_map_tables(bank_map):
            console.print(table)
        console.print(BANK_MAP_LEGEND)
        if png is not None:
            title = f"launch {report.index}, site {stats.id}: {result.describe(0)}"
            draw_png(bank_map, title, Path(png))
            console.print(f"bank map drawn to {png}")
