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

import typer
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

from bankism.analyze import TraceReport, analyze
from bankism.analyze.worst import simulate_worst, worst_of_site
from bankism.cli.analyze_render import (  # noqa: F401 (print_report and CSV_COLUMNS: tests and scripts use them here)
    BANK_MAP_LEGEND,
    CSV_COLUMNS,
    bank_map_tables,
    csv_rows,
    print_report,
    show_heading,
    stdout_console,
)
from bankism.engine.bankmap_png import draw_png
from bankism.errors import BankismError
from bankism.files import check_output
from bankism.trace import Trace, open_trace

#: A trace file at least this large gets a spinner on stderr while it loads (when stderr is a terminal).
LOAD_NOTICE_BYTES = 8 << 20

#: ... and, at least this large and JSON, the hint that the .npz form loads faster.
LOAD_HINT_BYTES = 32 << 20

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
            print_report(report, stdout_console(), by=by, wide=wide)
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
        console = stdout_console()
        console.print(show_heading(report, stats), soft_wrap=True)
        console.print(result.describe(0), soft_wrap=True, markup=False)
        for table in bank_map_tables(bank_map):
            console.print(table)
        console.print(BANK_MAP_LEGEND)
        if png is not None:
            title = f"launch {report.index}, site {stats.id}: {result.describe(0)}"
            draw_png(bank_map, title, Path(png))
            console.print(f"bank map drawn to {png}")
