"""The `bankism` command line: a Typer app; each command lives in its own module here (`*_cmd`).

``main`` keeps the contract of docs/cli.md: bad input of any kind (a BankismError, a bad option
value, an unknown option) is one line ``error: ...`` on stderr and exit code 2; a closed pipe on
stdout (``bankism analyze T.json | head -1``) ends the program quietly with exit code 0.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import typer
import typer.main

from bankism.cli import advise_cmd, analyze_cmd, capture_cmd, explain_cmd, simulate_cmd
from bankism.errors import BankismError
from bankism.version import __version__

app = typer.Typer(
    name="bankism",
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
    version: bool = typer.Option(False, "--version", is_eager=True, callback=_print_version,
                                 help="Print bankism's version and exit."),
) -> None:
    """Shared-memory wavefronts and bank conflicts of CUDA warps, exactly and without a GPU."""


for module in (analyze_cmd, simulate_cmd, explain_cmd, advise_cmd, capture_cmd):
    module.register(app)

#: Metavars shown in --help for values of these types (Typer would print <int>, <list[str]>, <bool>).
_METAVARS = {int: "INTEGER", float: "NUMBER", str: "TEXT", Path: "PATH"}


def _plain_metavar(param: Any) -> str | None:
    """The plain metavar of one parameter: '' for a flag, INTEGER/NUMBER/TEXT/PATH for a value."""
    if getattr(param, "is_flag", False):
        return ""
    if param.param_type_name == "argument":
        return param.name.upper() + ("..." if param.nargs != 1 else "")
    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    inner = getattr(annotation, "__args__", None)
    base = inner[0] if inner else annotation
    return _METAVARS.get(base)


class _TypeOnly:
    """A parameter seen as an option, for the metavar of its value type."""

    param_type_name = "option"

    def __init__(self, param: Any) -> None:
        self.type_descriptor = getattr(param, "type_descriptor", None)


def command() -> Any:
    """The click command group of the app, with plain metavars in its help."""
    group = typer.main.get_command(app)
    for sub in [group, *getattr(group, "commands", {}).values()]:
        for param in sub.params:
            if param.metavar is None:
                param.metavar = _plain_metavar(param)
            if param.param_type_name == "argument":  # Typer shows <str> beside an argument's name
                shown = _plain_metavar(_TypeOnly(param)) or ""
                param.display_type_rich = lambda ctx, shown=shown: shown
    return group


def _one_line(text: str) -> str:
    return " ".join(part.strip() for part in str(text).splitlines() if part.strip())


def _quiet_broken_pipe() -> None:
    """The reader of stdout went away: drop what is left unwritten and exit 0 without a word."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    sys.exit(0)


def main(args: list[str] | None = None) -> None:
    """Run the CLI; bad input becomes a one-line `error:` message and exit code 2."""
    from typer._click.exceptions import NoArgsIsHelpError, UsageError

    try:
        code = command().main(args=args, prog_name="bankism", standalone_mode=False)
        sys.stdout.flush()
    except BrokenPipeError:
        _quiet_broken_pipe()
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
    sys.exit(code if isinstance(code, int) else 0)
