"""The `bankism` command line: a Typer app; each command lives in its own module here (`*_cmd`)."""

from __future__ import annotations

import importlib
import sys

import typer
from typer import _click as click
from typer.core import TyperCommand, TyperGroup

from bankism.errors import BankismError

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
    "ncu-import": (
        "capture_cmd",
        "Read Nsight Compute's shared-memory counters from a CSV export into a trace.",
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
        module._click_commands = commands
    return commands[name]


class _Listed(TyperCommand):
    """A command as ``bankism --help`` lists it; parsing its arguments loads the real command."""

    def make_context(self, info_name, args, parent=None, **extra):  # type: ignore[override]
        return load_command(self.name).make_context(info_name, args, parent=parent, **extra)


class LazyCommands(TyperGroup):
    """The command group: lists ``COMMANDS`` without importing them, loads the one that runs."""

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


@app.callback()
def _root() -> None:
    """Shared-memory wavefronts and bank conflicts of CUDA warps, exactly and without a GPU."""


def main() -> None:
    """Run the CLI; bad input becomes a one-line `error:` message and exit code 2."""
    try:
        code = app(standalone_mode=False)
    except BankismError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    except (typer.Abort, KeyboardInterrupt):
        print("error: interrupted", file=sys.stderr)
        sys.exit(130)
    except typer.TyperException as error:
        if hasattr(error, "show"):
            error.show()
        else:
            print(f"error: {error.format_message()}", file=sys.stderr)
        sys.exit(error.exit_code or 2)
    sys.exit(code if isinstance(code, int) else 0)
