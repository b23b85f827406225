"""The `bankism` command line: a Typer app whose commands live in ``bankism.commands``."""

from __future__ import annotations

import sys

import typer

from bankism.errors import BankismError

app = typer.Typer(
    name="bankism",
    help="Shared-memory wavefronts and bank conflicts of CUDA warps, exactly and without a GPU.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# --- command modules ---
from bankism.commands import simulate_cmd  # noqa: E402

simulate_cmd.register(app)
from bankism.commands import analyze_cmd; analyze_cmd.register(app)  # noqa: E402, E702, I001
from bankism.commands import advise_cmd; advise_cmd.register(app)  # noqa: E402, E702, I001
from bankism.commands import capture; capture.register(app)  # noqa: E402, E702, I001
from bankism.commands import explain_cmd; explain_cmd.register(app)  # noqa: E402, E702, I001
# --- end of command modules ---


def main() -> None:
    """Run the CLI; bad input becomes a one-line `error:` message and exit code 2."""
    try:
        app(standalone_mode=False)
    except BankismError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    except typer.Exit as done:
        sys.exit(done.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        print("error: interrupted", file=sys.stderr)
        sys.exit(130)
    except Exception as error:  # click usage errors and friends
        import click

        if isinstance(error, click.exceptions.ClickException):
            error.show()
            sys.exit(2)
        raise
