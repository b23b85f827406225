"""Building the Sanitizer-API tracer (``capture/native/``) with the machine's nvcc, cached by source hash."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bankism.capture.toolkit import Toolkit, command_output
from bankism.errors import BankismError

TRACER_DIR = Path(__file__).parent / "native"
TRACER_SOURCES = (
    "tracer.cpp", "tracer_patches.cu", "tracer_records.h",
    "tracer_async.cpp", "tracer_async.h", "tracer_async_patches.cuh",
)
LIBRARY_NAME = "libbankism_tracer.so"
PATCHES_NAME = "bankism_patches.fatbin"
FALLBACK_ARCHS = ("75", "80", "86", "89", "90")


@dataclass(frozen=True)
class TracerBuild:
    """A built tracer: the injection library and the patch fatbin it loads."""

    library: Path
    patches: Path


def cache_root() -> Path:
    """Where built tracers live: $BANKISM_CACHE_DIR, else $XDG_CACHE_HOME/bankism, else ~/.cache/bankism."""
    if os.environ.get("BANKISM_CACHE_DIR"):
        return Path(os.environ["BANKISM_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "bankism"


def tracer_archs() -> tuple[str, ...]:
    """SM versions to build the patches for: $BANKISM_TRACER_ARCHS, else the GPUs nvidia-smi lists."""
    if os.environ.get("BANKISM_TRACER_ARCHS"):
        return tuple(
            a.strip().removeprefix("sm_") for a in os.environ["BANKISM_TRACER_ARCHS"].split(",") if a.strip()
        )
    text = command_output(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"]) or ""
    found = sorted({line.strip().replace(".", "") for line in text.splitlines() if line.strip()})
    return tuple(found) or FALLBACK_ARCHS


def build_commands(toolkit: Toolkit, out: Path, archs: Sequence[str]) -> list[list[str]]:
    """The two nvcc command lines: the host injection library and the device patch fatbin."""
    nvcc, include, lib = str(toolkit.nvcc), str(toolkit.sanitizer_include), str(toolkit.sanitizer_lib)
    library = [
        nvcc,
        "-O2",
        "-std=c++17",
        "-shared",
        "-Xcompiler",
        "-fPIC",
        "-cudart",
        "none",
        "-I",
        include,
        "-o",
        str(out / LIBRARY_NAME),
        str(TRACER_DIR / "tracer.cpp"),
        str(TRACER_DIR / "tracer_async.cpp"),
        "-L",
        lib,
        "-lsanitizer-public",
        "-ldl",
        "-Xlinker",
        "-rpath",
        "-Xlinker",
        lib,
    ]
    gencode = [f"-gencode=arch=compute_{a},code=sm_{a}" for a in archs]
    patches = [
        nvcc,
        "--fatbin",
        "--keep-device-functions",
        "-Xptxas",
        "--compile-as-tools-patch",
        *gencode,
        "-I",
        include,
        "-I",
        str(TRACER_DIR),
        "-o",
        str(out / PATCHES_NAME),
        str(TRACER_DIR / "tracer_patches.cu"),
    ]
    return [library, patches]


def _build_key(toolkit: Toolkit, archs: Sequence[str]) -> str:
    digest = hashlib.sha256()
    for name in TRACER_SOURCES:
        digest.update((TRACER_DIR / name).read_bytes())
    digest.update("\0".join([str(toolkit.nvcc), str(toolkit.sanitizer_include), *archs]).encode())
    return digest.hexdigest()[:16]


def build_tracer(toolkit: Toolkit, archs: Sequence[str] | None = None) -> TracerBuild:
    """The tracer for this machine, built with nvcc into the cache on first use (atomically)."""
    archs = tuple(archs or tracer_archs())
    final = cache_root() / f"tracer-{_build_key(toolkit, archs)}"
    build = TracerBuild(final / LIBRARY_NAME, final / PATCHES_NAME)
    if build.library.is_file() and build.patches.is_file():
        return build
    final.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".tracer-build-", dir=final.parent))
    try:
        for command in build_commands(toolkit, scratch, archs):
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                log = (done.stderr or done.stdout).strip().splitlines()
                first = next(
                    (line for line in log if "error" in line.lower()), log[0] if log else "no output"
                )
                raise BankismError(f"building the tracer failed ({Path(command[-1]).name}): {first.strip()}")
        try:
            scratch.rename(final)
        except OSError:
            if not build.library.is_file():  # not another process that finished the same build first
                raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return build


