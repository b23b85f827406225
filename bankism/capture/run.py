"""Running a program under the tracer: options, the injection environment, the child process."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bankism.capture.build import TracerBuild
from bankism.errors import BankismError

DEFAULT_MAX_RECORDS = 1_000_000
MAX_SELECTED_BLOCKS = 64  # BANKISM_MAX_SELECTED_BLOCKS in tracer_records.h


@dataclass(frozen=True)
class TraceOptions:
    """Which launches and blocks to record, as `bankism trace` takes them."""

    kernel: str | None = None
    launches: tuple[int, ...] = ()
    blocks: str = "auto"
    max_records: int = DEFAULT_MAX_RECORDS


def _positive(text: str, spec: str, form: str) -> int:
    """A positive decimal integer of ASCII digits (``"²".isdigit()`` is true, ``int("²")`` fails)."""
    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        raise BankismError(f"--blocks {spec!r}: {form} needs a positive integer")
    return int(text)


def parse_blocks(text: str) -> tuple[str, int | None, list[list[int]]]:
    """``auto`` | ``all`` | ``first:K`` | ``every:S`` | ``x,y[,z];...`` as (mode, K or S, blocks).

    ``auto`` (the default) records every block when the records fit in --max-records, else every S-th
    block of the grid (``every:S``, S chosen by `trace_program`); a bad spec is a BankismError.
    """
    spec = text.strip()
    if spec in ("all", "auto"):
        return spec, None, []
    for mode in ("first", "every"):
        if spec.startswith(mode + ":"):
            letter = "K" if mode == "first" else "S"
            return mode, _positive(spec.removeprefix(mode + ":"), text, f"{mode}:{letter}"), []
    blocks = []
    for item in filter(None, (part.strip() for part in spec.split(";"))):
        coords = [c.strip() for c in item.split(",")]
        if not 1 <= len(coords) <= 3 or not all(c.isascii() and c.isdigit() for c in coords):
            raise BankismError(f"--blocks {text!r}: {item!r} is not a block index x[,y[,z]]")
        blocks.append([int(c) for c in coords] + [0] * (3 - len(coords)))
    if not blocks:
        raise BankismError(f"--blocks {text!r}: expected auto, all, first:K, every:S or a list x,y,z;x,y,z")
    if len(blocks) > MAX_SELECTED_BLOCKS:
        raise BankismError(f"--blocks: at most {MAX_SELECTED_BLOCKS} blocks can be listed; got {len(blocks)}")
    return "list", None, blocks


def validate_options(options: TraceOptions) -> None:
    """Reject a bad --kernel regex, --blocks spec, --launch or --max-records before anything runs."""
    if options.kernel:
        try:
            re.compile(options.kernel)
        except re.error as error:
            raise BankismError(
                f"--kernel {options.kernel!r} is not a valid regular expression: {error}"
            ) from None
    parse_blocks(options.blocks)
    if options.max_records < 1:
        raise BankismError(f"--max-records must be at least 1; got {options.max_records}")
    if any(index < 0 for index in options.launches):
        raise BankismError(f"--launch takes 0-based indices; got {min(options.launches)}")


def tracer_environment(build: TracerBuild, options: TraceOptions, raw_dir: Path) -> dict[str, str]:
    """The environment variables that load and configure the tracer (see tracer.cpp)."""
    validate_options(options)
    mode, count, blocks = parse_blocks(options.blocks)
    block_spec = {"all": "all", "auto": "all", "first": f"first:{count}", "every": f"every:{count}"}.get(
        mode
    ) or ";".join(",".join(map(str, b)) for b in blocks)
    return {
        "CUDA_INJECTION64_PATH": str(build.library),
        "BANKISM_TRACE_DIR": str(raw_dir),
        "BANKISM_TRACE_PATCHES": str(build.patches),
        "BANKISM_TRACE_KERNEL": options.kernel or "",
        "BANKISM_TRACE_LAUNCHES": ",".join(str(i) for i in options.launches),
        "BANKISM_TRACE_BLOCKS": block_spec,
        "BANKISM_TRACE_MAX_RECORDS": str(options.max_records),
    }


def program_environment(
    build: TracerBuild, options: TraceOptions, raw_dir: Path, environ: Mapping[str, str]
) -> dict[str, str]:
    """The traced program's environment: ``environ``, the tracer's settings, and the tracer preloaded.

    The Sanitizer API must start before the program loads its CUDA libraries (docs/tracer.md, "Why the
    tracer starts with the process"), so the library goes first in LD_PRELOAD and starts when loaded;
    ``BANKISM_TRACE_PRELOAD=0`` leaves it to CUDA_INJECTION64_PATH alone (started inside the first cuInit).
    """
    env = dict(environ)
    env.update(tracer_environment(build, options, raw_dir))
    if environ.get("BANKISM_TRACE_PRELOAD", "1") != "0":
        env["LD_PRELOAD"] = ":".join(filter(None, [str(build.library), environ.get("LD_PRELOAD", "")]))
        env["BANKISM_TRACE_INIT_AT_LOAD"] = "1"
    return env


def run_traced(
    command: Sequence[str],
    build: TracerBuild,
    options: TraceOptions,
    raw_dir: Path,
    timeout: float | None = None,
) -> None:
    """Run the program under the tracer; its output passes through; a failing program is an error."""
    if not command:
        raise BankismError("no program given: put it after --, e.g. bankism trace -o t.json -- ./app")
    env = program_environment(build, options, raw_dir, os.environ)
    try:
        done = subprocess.run(list(command), env=env, check=False, timeout=timeout)
    except FileNotFoundError:
        raise BankismError(f"program not found: {command[0]}") from None
    except PermissionError:
        raise BankismError(f"program is not executable: {command[0]}") from None
    except subprocess.TimeoutExpired:
        raise BankismError(
            f"{shlex.join(command)} ran past --timeout {timeout:g} s under the tracer; stopped it"
        ) from None
    if done.returncode != 0:
        raise BankismError(
            f"{shlex.join(command)} exited with code {done.returncode} under the tracer; no trace written"
        )


