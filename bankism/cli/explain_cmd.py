"""`bankism explain kernel.cu`: where each shared-memory access of a kernel lands, what it
costs in wavefronts, and (with --snapshot) what the shared arrays hold at a given line."""

from __future__ import annotations

import json
import re
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any

import typer

from bankism.arch import DEFAULT_ARCH
from bankism.errors import BankismError
from bankism.inputs import c_integer
from bankism.version import __version__

if TYPE_CHECKING:
    from bankism.explain import ExplainReport

JSON_FORMAT = "bankism-explain"
JSON_VERSION = 1

#: Seconds of silent interpretation after which a spinner (on a terminal's stderr) says what is going on.
WAIT_NOTICE_SECONDS = 2.0

#: A -D value that is one C integer literal (decimal, hex, octal, binary; u/l suffixes).
_INTEGER_LITERAL = re.compile(r"^\s*[+-]?(0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)[uUlL]*\s*$", re.ASCII)


def _triple(text: str, option: str, fill: int) -> tuple[int, int, int]:
    """``"16,16"`` -> (16, 16, fill): the X,Y[,Z] form of --grid, --block, --block-index."""
    try:
        values = [c_integer(v) for v in text.replace(" ", "").split(",") if v != ""]
    except ValueError:
        raise BankismError(f"{option} {text!r}: expected X[,Y[,Z]] integers") from None
    if not 1 <= len(values) <= 3:
        raise BankismError(f"{option} {text!r}: expected X[,Y[,Z]] integers")
    return tuple(values + [fill] * (3 - len(values)))  # type: ignore[return-value]


def _pairs(items: list[str], option: str) -> list[tuple[str, str]]:
    pairs = []
    for item in items:
        name, sep, value = item.partition("=")
        field = option == "-D" and _FIELD_NAME.match(name.strip())  # a struct parameter's field
        plain = option == "-D" or name.strip().isidentifier()
        if not (_MACRO_NAME.match(name.strip()) or field) or not plain:
            raise BankismError(f"{option} {item!r}: expected NAME=VALUE")
        value = value if sep else "1"
        if _INTEGER_LITERAL.match(value) and (len(value) > 80 or abs(_literal_value(value)) >= 2**64):
            raise BankismError(f"{option} {item!r}: integer constant too large for 64 bits (nvcc refuses it "
                               "too); note that ^ in a C expression is XOR, not a power")
        pairs.append((name.strip(), value))
    return pairs


def _name(text: str, option: str) -> str:
    if not text.strip().isidentifier():
        raise BankismError(f"{option} {text!r}: expected a macro NAME")
    return text.strip()


def _literal_value(text: str) -> int:
    """The value of a C integer literal (suffixes dropped; a leading 0 means octal)."""
    digits = re.sub(r"[uUlL]+$", "", text.strip())
    body = digits.lstrip("+-")
    sign = -1 if digits.startswith("-") else 1
    if len(body) > 1 and body[0] == "0" and body[1].isdigit():
        return sign * int(body, 8 if set(body) <= set("01234567") else 10)
    return sign * int(body, 0)


def _check_dynamic(dynamic: int | None, arch: str) -> None:
    from bankism.arch import get_arch

    if dynamic is None:
        return
    try:
        limit = get_arch(arch).shared_bytes
    except BankismError:
        return  # explain itself reports the unknown arch
    if not 0 <= dynamic <= limit:
        raise BankismError(f"--dynamic-smem {dynamic}: expected 0 to {limit:,} bytes ({limit // 1024} KB, "
                           f"the shared memory of a {arch} block)")


@contextmanager
def _waiting_notice(path: str, enabled: bool, delay: float = WAIT_NOTICE_SECONDS,
                    console: Any = None) -> Iterator[None]:
    """After ``delay`` seconds of interpretation, a spinner on stderr saying why it takes long
    (transient: it disappears when explain ends); nothing when stderr is not a terminal."""
    if not enabled:
        yield
        return
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from bankism.explain.simt.statements import MAX_LOOP_ITERATIONS

    done = threading.Event()

    def notice() -> None:
        if done.wait(delay):
            return
        from rich.markup import escape

        text = (f"interpreting {escape(path)}: long loops take time; an endless loop is stopped after "
                f"{MAX_LOOP_ITERATIONS:,} iterations (shrink sizes with -D)")
        columns = (SpinnerColumn(), TextColumn(text), TimeElapsedColumn())
        with Progress(*columns, console=console or Console(stderr=True), transient=True) as progress:
            progress.add_task("interpreting", total=None)
            done.wait()

    thread = threading.Thread(target=notice, name="bankism-explain-notice", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


#: PARAM.FIELD[.FIELD...]: a scalar field of a struct kernel parameter (-D A.width=64).
_FIELD_NAME = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$")
#: NAME, or NAME(a,b) for a function-like macro (-D 'CEIL_DIV(a,b)=(((a)+(b)-1)/(b))').
_MACRO_NAME = re.compile(r"^[A-Za-z_]\w*(\(\s*([A-Za-z_]\w*\s*(,\s*[A-Za-z_]\w*\s*)*)?\))?$")


def _when(items: list[str]) -> tuple[tuple[str, int], ...]:
    out = []
    for name, value in _pairs(items, "--when"):
        try:
            out.append((name, c_integer(value)))
        except ValueError:
            raise BankismError(f"--when {name}={value}: VALUE must be an integer") from None
    return tuple(out)


def _place(text: str, option: str) -> tuple[str | None, int]:
    """``40`` -> (None, 40); ``header.cuh:40`` -> ("header.cuh", 40)."""
    file, _, number = text.rpartition(":")
    try:
        line = int(number)
    except ValueError:
        raise BankismError(f"{option} {text!r}: expected LINE or FILE:LINE") from None
    if line < 1 or (not file and ":" in text):
        raise BankismError(f"{option} {text!r}: expected LINE or FILE:LINE")
    return file or None, line


def _at(entry_file: str | None, entry_line: int, place: tuple[str | None, int], main: str) -> bool:
    """Whether an entry on ``entry_file:entry_line`` (None: the main file) is on ``place``."""
    from bankism.explain.simt.snapshot_point import file_matches

    file, line = place
    return entry_line == line and (file is None or file_matches(entry_file or main, file))


def _only_lines(report: ExplainReport, places: list[tuple[str | None, int]]) -> ExplainReport:
    """The report cut to the sites (and trace lines) on ``places``; a place without any
    shared-memory access is an error."""
    from dataclasses import replace

    main = report.file
    for place in places:
        if not any(_at(s.file, s.line, place, main) for s in report.sites):
            where = f"{place[0]}:{place[1]}" if place[0] else str(place[1])
            raise BankismError(f"--line {where}: no shared-memory access ran on line {place[1]}"
                               + (f" of {place[0]}" if place[0] else ""))
    sites = tuple(s for s in report.sites if any(_at(s.file, s.line, place, main) for place in places))
    trace = report.trace
    if trace:
        main = trace.get("source_file", "")
        trace = {**trace, "lines": [e for e in trace["lines"]
                                    if any(_at(e.get("file"), e["line"], place, main) for place in places)]}
    return replace(report, sites=sites, trace=trace)


def _snapshot(snapshot: str | None, when: list[str] | None):  # noqa: ANN202
    from bankism.explain import SnapshotRequest

    if snapshot is None:
        return None
    file, line = _place(snapshot, "--snapshot")
    return SnapshotRequest(line, _when(when or []), file)


def _read(path: str) -> str:
    """The CUDA source (``-``: stdin), a regular file within the ``source`` cap (bankism.inputs)."""
    from bankism import inputs

    if path == "-":
        stream = getattr(sys.stdin, "buffer", sys.stdin)  # a text stream in tests: read the same way
        data = inputs.read_stream(stream, "source", "stdin")
        return data if isinstance(data, str) else inputs.decode_text(data, "stdin", errors="replace")
    return inputs.read_text(path, "source", errors="replace")


def register(app: typer.Typer) -> None:
    """Add the `explain` command to ``app``."""

    @app.command("explain")
    def explain_command(
        path: Annotated[str, typer.Argument(help="CUDA source (.cu file or pasted snippet); - for stdin.")],
        kernel: Annotated[str | None, typer.Option(help="Kernel to explain if the file has several.")] = None,
        grid: Annotated[str | None, typer.Option(help="Grid X[,Y[,Z]] (default: from the launch).")] = None,
        block: Annotated[str | None, typer.Option(help="Block X[,Y[,Z]] (default: from the launch).")] = None,
        block_index: Annotated[list[str] | None, typer.Option(
            help="Block to simulate, X[,Y[,Z]] (repeatable; 'all' for the whole grid).")] = None,
        define: Annotated[list[str] | None, typer.Option(
            "-D", "--define", help="NAME=VALUE: macro, template parameter or scalar argument.")] = None,
        include_dir: Annotated[list[str] | None, typer.Option(
            "-I", "--include-dir", help="DIR: search it for #include files, like nvcc -I.")] = None,
        pre_include: Annotated[list[str] | None, typer.Option(
            "-include", "--pre-include", help="FILE: include it first, like nvcc -include.")] = None,
        undefine: Annotated[list[str] | None, typer.Option(
            "-U", "--undefine", help="NAME: undefine a macro (wins over the file's #define).")] = None,
        data: Annotated[list[str] | None, typer.Option(
            "--data", help="[NAME=]random, random:LOW:HIGH, VALUE or file:PATH: what global memory holds "
            "(kernel pointer NAME, or all), for shared addresses that depend on input data.")] = None,
        data_seed: Annotated[int, typer.Option(help="Seed of --data random.")] = 0,
        as_written: Annotated[bool, typer.Option(
            "--as-written", help="Count each access as the source writes it, without the merging of "
            "neighbouring scalar accesses into LDS.64/LDS.128 that nvcc does.")] = False,
        snapshot: Annotated[str | None, typer.Option(
            help="Show the shared arrays right after LINE (or FILE:LINE, for a kernel in a header).")] = None,
        when: Annotated[list[str] | None, typer.Option(
            help="VAR=VALUE: take the snapshot when VAR has this value (repeatable).")] = None,
        dynamic_smem: Annotated[int | None, typer.Option(
            help="Bytes of dynamic (extern __shared__) memory per block.")] = None,
        arch: Annotated[str, typer.Option(help="Architecture the engine models.")] = DEFAULT_ARCH,
        as_json: Annotated[bool, typer.Option("--json", help="Print the JSON report instead.")] = False,
        all_warps: Annotated[bool, typer.Option(help="List every warp in the text report.")] = False,
        bank_map: Annotated[bool, typer.Option(
            help="Show the engine's bank map of each example instruction.")] = False,
        trace: Annotated[str | None, typer.Option(
            help="A trace of this kernel (traces/*.json): compare the source with the SASS.")] = None,
        launch: Annotated[int | None, typer.Option(help="With --trace: the launch index to use.")] = None,
        line: Annotated[list[str] | None, typer.Option(
            help="Report only the access sites on this line (repeatable).")] = None,
        html_path: Annotated[str | None, typer.Option(
            "--html", metavar="FILE", help="Also write a self-contained HTML report with bank maps.")] = None,
    ) -> None:
        """Explain every shared-memory access of a CUDA kernel, warp by warp, without a GPU."""
        from bankism.explain import ExplainOptions, explain_report, render
        from bankism.explain.simt.global_data import parse_data

        if launch is not None and trace is None:
            raise BankismError("--launch needs --trace FILE")
        if when and snapshot is None:
            raise BankismError("--when needs --snapshot LINE")
        _check_dynamic(dynamic_smem, arch)
        indices = block_index or []
        everything = any(i.strip().lower() == "all" for i in indices)
        options = ExplainOptions(
            kernel=kernel,
            grid=_triple(grid, "--grid", 1) if grid is not None else None,
            block=_triple(block, "--block", 1) if block is not None else None,
            block_indices=None if everything or not indices else [
                _triple(i, "--block-index", 0) for i in indices],
            all_blocks=everything,
            defines=dict(_pairs(define or [], "-D")),
            snapshot=_snapshot(snapshot, when),
            dynamic_shared=dynamic_smem,
            arch=arch,
            trace=trace,
            trace_launch=launch,
            include_dirs=list(include_dir or []),
            pre_includes=list(pre_include or []),
            undefines=[_name(n, "-U") for n in undefine or []],
            data=parse_data(data or []),
            data_seed=data_seed,
            as_written=as_written,
        )
        if html_path is not None:
            from bankism.files import check_output

            check_output(html_path, "--html", [path if path != "-" else None, trace])
        source = _read(path)
        try:
            with _waiting_notice(path, sys.stderr.isatty()):
                report = explain_report(source, path, options)
        except (BankismError, KeyboardInterrupt):
            raise
        except RecursionError:
            raise BankismError(f"{path}: nested too deeply for bankism explain (Python's recursion limit); "
                               "simplify the nesting") from None
        except Exception as error:  # a bug in bankism: still one line, never a traceback
            raise BankismError(f"{path}: internal error in bankism explain ({type(error).__name__}: "
                               f"{error}); please report it with the kernel") from None
        if line:
            report = _only_lines(report, [_place(item, "--line") for item in line])
        data = report.to_dict() if as_json or html_path is not None else None  # JSON made once, here
        if as_json:
            envelope = {"format": JSON_FORMAT, "version": JSON_VERSION, "bankism": __version__}
            print(json.dumps({**envelope, **data}, indent=1))
        else:
            print(render(report, all_warps=all_warps, bank_maps=bank_map))
        if html_path is not None:
            from bankism.cli.pages import explain_page
            from bankism.files import write_text
            from bankism.render.html import render_page

            write_text(html_path, render_page(explain_page(data)), "--html")
