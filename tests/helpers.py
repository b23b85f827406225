"""Shared test helpers: the CLI run in-process, as the `bankism` script runs it (builders.py: traces)."""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import io
import os
import sys
import types
from pathlib import Path
from typing import NamedTuple

from bankism import cli

ROOT = Path(__file__).resolve().parent.parent


class Ran(NamedTuple):
    """What a command did: exit code and both streams (named as in subprocess.CompletedProcess)."""

    returncode: int
    stdout: str
    stderr: str


def run_cli(*args: object, cwd: Path | None = None, env: dict[str, str] | None = None) -> Ran:
    """``bankism ARGS`` through the real entry point (``bankism.cli.main``), in this process.

    ``main`` turns bad input into one ``error:`` line and exit code 2; this returns that code and both
    streams, so a test asserts what a user sees without paying for a new interpreter. ``env`` overrides
    environment variables (``PATH``, say) for the duration of the command.
    """
    out, err = io.StringIO(), io.StringIO()
    argv, here, saved = sys.argv, os.getcwd(), dict(os.environ)
    sys.argv = ["bankism", *map(str, args)]
    code = 0
    try:
        if cwd is not None:
            os.chdir(cwd)
        os.environ.update(env or {})
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            cli.main()
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    finally:
        sys.argv = argv
        os.chdir(here)
        os.environ.clear()
        os.environ.update(saved)
    return Ran(code, out.getvalue(), err.getvalue())


def one_line_error(ran: Ran) -> str:
    """The one `error:` line of a refused command (asserting exit code 2 and nothing else on stderr)."""
    assert ran.returncode == 2, (ran.returncode, ran.stderr)
    lines = ran.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), ran.stderr
    return lines[0]


def analyze_refuses(path: Path) -> str:
    """The one `error:` line of `bankism analyze PATH`, asserting that the trace file was left untouched."""
    before = path.read_bytes()
    line = one_line_error(run_cli("analyze", path))
    assert path.read_bytes() == before
    return line


def ncu_raw_csv(extra: dict[str, str]) -> str:
    """A one-launch ncu ``--page raw`` CSV: every shared-memory counter of ld, st and atom at 2, then the
    ``extra`` metrics with their values as ncu prints them (``"3,072"``)."""
    from bankism.capture.ncu import SHARED_METRICS

    names = [m for kind in ("ld", "st", "atom") for m in SHARED_METRICS[kind].values()]
    header = ",".join(f'"{n}"' for n in ["ID", "Kernel Name", *names, *extra])
    values = ",".join(['"0"', '"k"'] + ['"2"'] * len(names) + [f'"{v}"' for v in extra.values()])
    return f"{header}\n{values}\n"


@functools.cache
def hw_script(relative: str) -> types.ModuleType:
    """A script under hw/ (a device run's collector or fit) loaded as a module, once per session."""
    path = ROOT / "hw" / relative
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
