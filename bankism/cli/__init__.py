"""The `bankism` command line: a Typer app; each command lives in its own module here (`*_cmd`).

``main`` keeps the contract of docs/cli.md: bad input of any kind (a BankismError, a bad option
value, an unknown option) is one line ``error: ...`` on stderr and exit code 2; a closed pipe on
stdout (``bankism analyze T.json | head -1``) ends the program quietly with exit code 0.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from typer import _click as click
from typer.core import TyperCommand, TyperGroup

from bankism.cli.pipe import GuardedStdout, StdoutClosed, StdoutFailed
from bankism.errors import BankismError
from bankism.version import __version__

#: Command name -> (module defining it with ``register(app)``, one-line help for ``bankism --help``).
#: A module is imported only when one of its commands runs, so ``bankism --help`` loads no engine.
COMMANDS: dict[str, tuple[str, str]] = {
    "analyze": (
        "analyze_cmd",
        "Wavefronts, bank conflicts and cycles of every shared-memory instruction site in a trace.",
    ),
    "show": (
        "analyze_cmd",
        "Draw the bank map of the worst warp-instruction of one instruction site.",
    ),
    "simulate": (
        "simulate_cmd",
        "Count the wavefronts of one warp-instruction and show the bank map behind them.",
    ),
    "explain": (
        "explain_cmd",
        "Explain every shared-memory access of a CUDA kernel, warp by warp, without a GPU.",
    ),
    "layout": (
        "layout_cmd",
        "Bank conflicts of a CuTe layout under its tiled copies, or of a Triton shared encoding; the fix.",
    ),
    "advise": (
        "advise_cmd",
        "Find the cheapest padding or XOR swizzle that removes the bank conflicts of each shared array.",
    ),
    "trace": (
        "capture_cmd",
        "Run a CUDA program under the Sanitizer-API tracer and record its shared-memory accesses.",
    ),
    "profile": (
        "capture_cmd",
        "Measure shared-memory instructions, wavefronts and bank conflicts of every launch with ncu.",
    ),
    "record": (
        "capture_cmd",
        "Trace a CUDA program and profile the same launches with ncu, into one trace.",
    ),
    "ncu-import": (
        "capture_cmd",
        "Read Nsight Compute's shared-memory counters from a CSV export (or an .ncu-rep) into a trace.",
    ),
}


def load_command(name: str) -> click.Command:
    """The click command ``name``, built from its module's ``register`` (imported now, once)."""
    module = importlib.import_module(f"bankism.cli.{COMMANDS[name][0]}")
    commands = getattr(module, "_click_commands", None)
    if commands is None:
        holder = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
        module.register(holder)
        commands = typer.main.get_group(holder).commands
        for command in commands.values():
            plain_metavars(command)
        module._click_commands = commands
    return commands[name]


class _Listed(TyperCommand):
    """A command as ``bankism --help`` lists it; parsing its arguments loads the real command."""

    def make_context(self, info_name, args, parent=None, **extra):  # type: ignore[override]
        return load_command(self.name).make_context(info_name, args, parent=parent, **extra)


def _plain_help_option(get_help_option: Any) -> Any:
    """``get_help_option`` whose --help flag shows no <bool> metavar."""

    def wrapped(ctx: click.Context) -> Any:
        option = get_help_option(ctx)
        if option is not None:
            option.metavar = ""
        return option

    return wrapped


class LazyCommands(TyperGroup):
    """The command group: lists ``COMMANDS`` without importing them, loads the one that runs."""

    def get_help_option(self, ctx: click.Context) -> Any:
        return _plain_help_option(super().get_help_option)(ctx)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        return _Listed(name, help=COMMANDS[name][1])


app = typer.Typer(
    name="bankism",
    cls=LazyCommands,
    help="Shared-memory wavefronts and bank conflicts of CUDA warps, exactly and without a GPU.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        print(f"bankism {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", is_eager=True, callback=_print_version, metavar="",
                                 help="Print bankism's version and exit."),
    limit: Annotated[list[str] | None, typer.Option(
        "--limit", metavar="NAME=VALUE",
        help="Raise a size cap or work budget, e.g. --limit source=64M (docs/cli.md lists them); "
             "repeatable. BANKISM_LIMITS does the same.")] = None,
) -> None:
    """Shared-memory wavefronts and bank conflicts of CUDA warps, exactly and without a GPU."""
    from bankism import inputs

    inputs.set_limits(limit or [])


#: Metavars shown in --help for values of these types (Typer would print <int>, <list[str]>, <bool>).
_METAVARS = {int: "INTEGER", float: "NUMBER", str: "TEXT", Path: "PATH"}


def _type_metavar(param: Any) -> str | None:
    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    inner = getattr(annotation, "__args__", None)
    return _METAVARS.get(inner[0] if inner else annotation)


def plain_metavars(command: click.Command) -> None:
    """Plain metavars in a command's --help: nothing for a flag, INTEGER/NUMBER/TEXT/PATH for a value,
    the name in capitals for an argument (with its type beside it)."""
    command.get_help_option = _plain_help_option(command.get_help_option)  # type: ignore[method-assign]
    for param in command.params:
        if param.metavar is not None:
            continue
        if getattr(param, "is_flag", False):
            param.metavar = ""
        elif param.param_type_name == "argument":
            param.metavar = param.name.upper() + ("..." if param.nargs != 1 else "")
            shown = _type_metavar(param) or ""
            param.display_type_rich = lambda ctx, shown=shown: shown  # Typer shows <str> by the name
        else:
            param.metavar = _type_metavar(param)


def _one_line(text: str) -> str:
    return " ".join(part.strip() for part in str(text).splitlines() if part.strip())


def _drop_stdout() -> None:
    """Point stdout at /dev/null, so that what is left unwritten cannot fail again at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _quiet_broken_pipe() -> None:
    """The reader of stdout went away: drop what is left unwritten and exit 0 without a word."""
    _drop_stdout()
    sys.exit(0)


def _lenient_streams() -> None:
    """Characters the terminal's encoding lacks (PYTHONIOENCODING=ascii, a file name's undecodable
    bytes) are written escaped instead of ending the command with a UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="backslashreplace")


def main(args: list[str] | None = None) -> None:
    """Run the CLI; bad input becomes a one-line `error:` message and exit code 2."""
    from typer._click.exceptions import NoArgsIsHelpError, UsageError

    from bankism import inputs

    inputs.reset_limits()
    _lenient_streams()
    real_stdout = sys.stdout
    sys.stdout = GuardedStdout(real_stdout)  # type: ignore[assignment]
    try:
        code = app(args=args, prog_name="bankism", standalone_mode=False)
        sys.stdout.flush()
    except (StdoutClosed, BrokenPipeError):
        sys.stdout = real_stdout
        _quiet_broken_pipe()
    except StdoutFailed as error:
        sys.stdout = real_stdout
        _drop_stdout()
        print(f"error: cannot write to stdout: {error}", file=sys.stderr)
        sys.exit(2)
    except BankismError as error:
        print(f"error: {_one_line(str(error))}", file=sys.stderr)
        sys.exit(2)
    except (typer.Abort, KeyboardInterrupt):
        print("error: interrupted", file=sys.stderr)
        sys.exit(130)
    except NoArgsIsHelpError as error:
        error.show()
        sys.exit(2)
    except UsageError as error:
        where = f"{error.ctx.command_path}: " if error.ctx is not None else ""
        print(f"error: {where}{_one_line(error.format_message())}", file=sys.stderr)
        sys.exit(2)
    except typer.TyperException as error:
        message = error.format_message() if hasattr(error, "format_message") else str(error)
        print(f"error: {_one_line(message)}", file=sys.stderr)
        sys.exit(getattr(error, "exit_code", None) or 2)
    finally:
        sys.stdout = real_stdout
    sys.exit(code if isinstance(code, int) else 0)
