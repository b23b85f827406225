"""`bankism explain kernel.cu`: where each shared-memory access of a kernel lands, what it
costs in wavefronts, and (with --snapshot) what the shared arrays hold at a given line."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from bankism.arch import DEFAULT_ARCH
from bankism.errors import BankismError


def _triple(text: str, option: str, fill: int) -> tuple[int, int, int]:
    """``"16,16"`` -> (16, 16, fill): the X,Y[,Z] form of --grid, --block, --block-index."""
    try:
        values = [int(v, 0) for v in text.replace(" ", "").split(",") if v != ""]
    except ValueError:
        raise BankismError(f"{option} {text!r}: expected X[,Y[,Z]] integers") from None
    if not 1 <= len(values) <= 3:
        raise BankismError(f"{option} {text!r}: expected X[,Y[,Z]] integers")
    return tuple(values + [fill] * (3 - len(values)))  # type: ignore[return-value]


def _pairs(items: list[str], option: str) -> list[tuple[str, str]]:
    pairs = []
    for item in items:
        name, sep, value = item.partition("=")
        if not name.strip() or not name.strip().isidentifier():
            raise BankismError(f"{option} {item!r}: expected NAME=VALUE")
        pairs.append((name.strip(), value if sep else "1"))
    return pairs


def _when(items: list[str]) -> tuple[tuple[str, int], ...]:
    out = []
    for name, value in _pairs(items, "--when"):
        try:
            out.append((name, int(value, 0)))
        except ValueError:
            raise BankismError(f"--when {name}={value}: VALUE must be an integer") from None
    return tuple(out)


def _only_lines(sites: list[dict], lines: list[int]) -> list[dict]:
    """The sites on ``lines``; a line without any shared-memory access is an error."""
    for wanted in lines:
        if not any(s["line"] == wanted for s in sites):
            raise BankismError(f"--line {wanted}: no shared-memory access ran on line {wanted}")
    return [s for s in sites if s["line"] in lines]


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError as error:
        raise BankismError(f"{path}: {error.strerror}") from None


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
        snapshot: Annotated[int | None, typer.Option(help="Show the shared arrays right after LINE.")] = None,
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
        line: Annotated[list[int] | None, typer.Option(
            help="Report only the access sites on this line (repeatable).")] = None,
    ) -> None:
        """Explain every shared-memory access of a CUDA kernel, warp by warp, without a GPU."""
        from bankism.explain import ExplainOptions, SnapshotRequest, explain, render

        if launch is not None and trace is None:
            raise BankismError("--launch needs --trace FILE")
        if when and snapshot is None:
            raise BankismError("--when needs --snapshot LINE")
        indices = block_index or []
        everything = any(i.strip().lower() == "all" for i in indices)
        options = ExplainOptions(
            kernel=kernel,
            grid=_triple(grid, "--grid", 1) if grid else None,
            block=_triple(block, "--block", 1) if block else None,
            block_indices=None if everything or not indices else [
                _triple(i, "--block-index", 0) for i in indices],
            all_blocks=everything,
            defines=dict(_pairs(define or [], "-D")),
            snapshot=SnapshotRequest(snapshot, _when(when or [])) if snapshot is not None else None,
            dynamic_shared=dynamic_smem,
            arch=arch,
            trace=trace,
            trace_launch=launch,
        )
        source = _read(path)
        try:
            report = explain(source, path, options)
        except (BankismError, KeyboardInterrupt):
            raise
        except Exception as error:  # a bug in bankism: still one line, never a traceback
            raise BankismError(f"{path}: internal error in bankism explain ({type(error).__name__}: "
                               f"{error}); please report it with the kernel") from None
        if line:
            report["sites"] = _only_lines(report["sites"], line)
            if report.get("trace"):
                report["trace"]["lines"] = [e for e in report["trace"]["lines"] if e["line"] in line]
        if as_json:
            print(json.dumps(report, indent=1))
        else:
            print(render(report, all_warps=all_warps, bank_maps=bank_map))
