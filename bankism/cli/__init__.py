"""The `bankism` command line: a Typer app; each command lives in its own module here (`*_cmd`)."""

from __future__ import annotations

import sys

import typer

from bankism.cli import advise_cmd, analyze_cmd, capture_cmd, explain_cmd, simulate_cmd
from bankism.errors import BankismError

app = typer.Typer(
    name="bankism",
    help="Shared-memory wavefronts and bank conflicts of CUDA warps, exactly and without a GPU.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

for module in (analyze_cmd, simulate_cmd, explain_cmd, advise_cmd, capture_cmd):
    module.register(app)


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
