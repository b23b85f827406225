"""Capture real CUDA programs: build the Sanitizer-API tracer, run a program under it, write a trace.

The tracer (``bankism/tracer/``) is a CUDA injection library plus a patch fatbin, built on first use
with the machine's ``nvcc`` into a cache directory keyed by a hash of its sources. A program run with
``CUDA_INJECTION64_PATH`` pointing at it writes, into a scratch directory, one cubin per loaded module,
one raw record file per traced launch and a ``manifest.jsonl``. ``convert_capture`` turns that into a
trace document (format v1, ``bankism.traceio``): program counters become sites with their SASS
opcode and source line (from ``nvdisasm -g`` on the module's cubin), raw records become the five
record arrays.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bankism import tracing_async
from bankism.errors import BankismError

TRACER_NAME = "bankism-sanitizer 1"
TRACER_DIR = Path(__file__).parent / "tracer"
TRACER_SOURCES = (
    "tracer.cpp", "tracer_patches.cu", "tracer_records.h",
    "tracer_async.cpp", "tracer_async.h", "tracer_async_patches.cuh",
)
LIBRARY_NAME = "libbankism_tracer.so"
PATCHES_NAME = "bankism_patches.fatbin"
DEFAULT_MAX_RECORDS = 1_000_000
MAX_SELECTED_BLOCKS = 64  # BANKISM_MAX_SELECTED_BLOCKS in tracer_records.h
FALLBACK_ARCHS = ("75", "80", "86", "89", "90")

#: One raw record as tracer_records.h lays it out (RawRecord, 168 bytes).
RECORD_DTYPE = np.dtype(
    [
        ("pc", "<u8"),
        ("block", "<u4", (3,)),
        ("warp", "<u4"),
        ("active", "<u4"),
        ("flags", "<u4"),
        ("width", "<u2"),
        ("matrices", "<u2"),
        ("kind", "<u4"),
        ("addresses", "<u4", (32,)),
    ]
)
assert RECORD_DTYPE.itemsize == 168

FLAG_READ, FLAG_WRITE, FLAG_ATOMSYS = 0x1, 0x2, 0x4
KIND_SHARED, KIND_MATRIX = 1, 2  # cp.async and the async events: tracing_async.KIND_*

_SASS_OPS = {
    "LDS": "load", "STS": "store", "ATOMS": "atomic", "LDSM": "ldmatrix", "STSM": "stmatrix",
    "LDGSTS": "ldgsts",
}
_INSTRUCTION = re.compile(
    r"/\*([0-9a-fA-F]+)\*/\s+(?:\{\s*)?(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*)"
)
_LINE_INFO = re.compile(r'//## File "([^"]*)", line (\d+)')
_LOCATION = re.compile(r'"([^"]*)", line (\d+)')
_TOOLKIT_HEADER = re.compile(r"/targets/[^/]+/include/|/cuda[^/]*/include/")
_FUNCTION = re.compile(r"^\s*\.text\.(\S+):\s*$")


# ---------------------------------------------------------------------------------------------
# Tools
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Toolkit:
    """The CUDA tools the tracer needs: nvcc, the Sanitizer API (headers + library), nvdisasm."""

    nvcc: Path
    sanitizer_include: Path
    sanitizer_lib: Path
    nvdisasm: Path | None


def _cuda_homes() -> list[Path]:
    homes = [Path(os.environ[name]) for name in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(name)]
    nvcc = shutil.which("nvcc")
    if nvcc:
        homes.append(Path(nvcc).resolve().parent.parent)
    homes.append(Path("/usr/local/cuda"))
    return homes


def find_nvcc() -> Path:
    """The nvcc that builds the tracer: $BANKISM_NVCC, then PATH, then $CUDA_HOME/bin."""
    candidates = [os.environ.get("BANKISM_NVCC"), shutil.which("nvcc")]
    candidates += [str(home / "bin" / "nvcc") for home in _cuda_homes()]
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    raise BankismError(
        "nvcc not found: bankism builds its tracer with CUDA's nvcc; put it on PATH or set CUDA_HOME"
    )


def _sanitizer_dirs() -> list[Path]:
    dirs = [Path(os.environ["BANKISM_SANITIZER_DIR"])] if os.environ.get("BANKISM_SANITIZER_DIR") else []
    tool = shutil.which("compute-sanitizer")
    if tool:
        dirs.append(Path(tool).resolve().parent)
    dirs += [home / "compute-sanitizer" for home in _cuda_homes()]
    return dirs


def find_sanitizer() -> tuple[Path, Path]:
    """The Sanitizer API's include directory and the directory holding libsanitizer-public.so."""
    for root in _sanitizer_dirs():
        include = root / "include"
        libs = [d for d in (root, root / "lib", root / "lib64") if (d / "libsanitizer-public.so").is_file()]
        if (include / "sanitizer.h").is_file() and libs:
            return include, libs[0]
    raise BankismError(
        "compute-sanitizer's Sanitizer API (include/sanitizer.h, libsanitizer-public.so) not found: "
        "install CUDA's compute-sanitizer or set BANKISM_SANITIZER_DIR"
    )


def find_toolkit() -> Toolkit:
    """nvcc, the Sanitizer API and nvdisasm, or a one-line error saying which is missing."""
    nvcc = find_nvcc()
    include, lib = find_sanitizer()
    nvdisasm = shutil.which("nvdisasm") or (
        str(nvcc.parent / "nvdisasm") if (nvcc.parent / "nvdisasm").is_file() else None
    )
    return Toolkit(nvcc, include, lib, Path(nvdisasm) if nvdisasm else None)


def _output(command: Sequence[str]) -> str | None:
    """stdout of a short tool query, or None when the tool is missing or fails."""
    try:
        done = subprocess.run(list(command), capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def cuda_version(nvcc: Path) -> str | None:
    """'13.0 (V13.0.88)' from ``nvcc --version``."""
    text = _output([str(nvcc), "--version"]) or ""
    match = re.search(r"release (\d+\.\d+), (V[\d.]+)", text)
    return f"{match.group(1)} ({match.group(2)})" if match else None


def ncu_version(ncu: str | None = None) -> str | None:
    """Nsight Compute's version ('2025.3.1.0'), or None when ncu is not installed."""
    ncu = ncu or shutil.which("ncu")
    if not ncu:
        return None
    match = re.search(r"Version\s+([\d.]+)", _output([ncu, "--version"]) or "")
    return match.group(1) if match else None


def gpu_properties() -> dict[str, str]:
    """Name, driver and compute capability of the first visible GPU, from nvidia-smi."""
    text = _output(["nvidia-smi", "--query-gpu=name,driver_version,compute_cap", "--format=csv,noheader"])
    if not text or not text.strip():
        raise BankismError("nvidia-smi found no GPU: tracing needs an NVIDIA GPU and its driver")
    visible = os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip()
    rows = [row for row in text.strip().splitlines() if row.strip()]
    row = rows[int(visible)] if visible.isdigit() and int(visible) < len(rows) else rows[0]
    name, driver, capability = (part.strip() for part in row.split(","))
    return {"gpu": name, "driver": driver, "compute_capability": capability}


def environment(nvcc: Path | None, ncu: str | None = None) -> dict[str, Any]:
    """The trace's environment block: GPU, arch, driver, CUDA, ncu, time of capture, tracer."""
    gpu = gpu_properties()
    return {
        "gpu": gpu["gpu"],
        "arch": "sm_" + gpu["compute_capability"].replace(".", ""),
        "compute_capability": gpu["compute_capability"],
        "driver": gpu["driver"],
        "cuda": cuda_version(nvcc) if nvcc else None,
        "ncu": ncu_version(ncu),
        "captured": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "tracer": TRACER_NAME,
    }


# ---------------------------------------------------------------------------------------------
# Building the tracer
# ---------------------------------------------------------------------------------------------


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
    text = _output(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"]) or ""
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


# ---------------------------------------------------------------------------------------------
# Running a program under the tracer
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TraceOptions:
    """Which launches and blocks to record, as `bankism trace` takes them."""

    kernel: str | None = None
    launches: tuple[int, ...] = ()
    blocks: str = "all"
    max_records: int = DEFAULT_MAX_RECORDS


def parse_blocks(text: str) -> tuple[str, int | None, list[list[int]]]:
    """``all`` | ``first:K`` | ``x,y[,z];...`` as (mode, K, blocks); a bad spec is a BankismError."""
    spec = text.strip()
    if spec == "all":
        return "all", None, []
    if spec.startswith("first:"):
        count = spec.removeprefix("first:")
        if not count.isdigit() or int(count) < 1:
            raise BankismError(f"--blocks {text!r}: first:K needs a positive integer K")
        return "first", int(count), []
    blocks = []
    for item in filter(None, (part.strip() for part in spec.split(";"))):
        coords = [c.strip() for c in item.split(",")]
        if not 1 <= len(coords) <= 3 or not all(c.isdigit() for c in coords):
            raise BankismError(f"--blocks {text!r}: {item!r} is not a block index x[,y[,z]]")
        blocks.append([int(c) for c in coords] + [0] * (3 - len(coords)))
    if not blocks:
        raise BankismError(f"--blocks {text!r}: expected all, first:K or a list x,y,z;x,y,z")
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
    block_spec = {"all": "all", "first": f"first:{count}"}.get(mode) or ";".join(
        ",".join(map(str, b)) for b in blocks
    )
    return {
        "CUDA_INJECTION64_PATH": str(build.library),
        "BANKISM_TRACE_DIR": str(raw_dir),
        "BANKISM_TRACE_PATCHES": str(build.patches),
        "BANKISM_TRACE_KERNEL": options.kernel or "",
        "BANKISM_TRACE_LAUNCHES": ",".join(str(i) for i in options.launches),
        "BANKISM_TRACE_BLOCKS": block_spec,
        "BANKISM_TRACE_MAX_RECORDS": str(options.max_records),
    }


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
    env = dict(os.environ)
    env.update(tracer_environment(build, options, raw_dir))
    env.setdefault("CUDA_MODULE_LOADING", "EAGER")  # every module is loaded, so patched, before it runs
    if os.environ.get("BANKISM_TRACE_PRELOAD") == "1":  # load the tracer at process start as well
        env["LD_PRELOAD"] = " ".join(filter(None, [str(build.library), os.environ.get("LD_PRELOAD", "")]))
        env["BANKISM_TRACE_INIT_AT_LOAD"] = "1"
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


# ---------------------------------------------------------------------------------------------
# Reading what the tracer wrote
# ---------------------------------------------------------------------------------------------


@dataclass
class RawCapture:
    """The tracer's output directory, parsed: modules, launches (traced or not) and errors."""

    directory: Path
    modules: dict[int, dict[str, Any]] = field(default_factory=dict)
    launches: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    started: bool = False

    def records(self, launch: dict[str, Any]) -> np.ndarray:
        """The raw records of a traced launch as a RECORD_DTYPE array."""
        name = launch.get("records_file")
        if not name:
            return np.zeros(0, RECORD_DTYPE)
        path = self.directory / name
        size = path.stat().st_size
        if size % RECORD_DTYPE.itemsize:
            raise BankismError(
                f"{path}: {size} bytes is not a whole number of {RECORD_DTYPE.itemsize}-byte records"
            )
        return np.fromfile(path, RECORD_DTYPE)


def read_capture(directory: Path) -> RawCapture:
    """Parse manifest.jsonl of a tracer run."""
    capture = RawCapture(Path(directory))
    manifest = capture.directory / "manifest.jsonl"
    if not manifest.is_file():
        raise BankismError(
            f"{manifest}: the tracer wrote nothing; the program did not initialise CUDA, or the Sanitizer "
            "API "
            "could not load (is the GPU supported and CUDA_INJECTION64_PATH honoured?)"
        )
    for number, line in enumerate(manifest.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError as error:
            raise BankismError(f"{manifest}, line {number}: {error.msg}") from None
        kind = event.get("event")
        if kind == "start":
            capture.started = True
            if event.get("record_size") != RECORD_DTYPE.itemsize:
                raise BankismError(
                    f"{manifest}: records are {event.get('record_size')} bytes, this bankism reads "
                    f"{RECORD_DTYPE.itemsize}: tracer and Python side are out of step"
                )
        elif kind == "module":
            capture.modules[int(event["id"])] = event
        elif kind == "launch":
            capture.launches.append(event)
        elif kind == "error":
            capture.errors.append(str(event.get("message")))
        elif kind == "warning":
            capture.warnings.append(str(event.get("message")))
    return capture


# ---------------------------------------------------------------------------------------------
# SASS: opcode and source line of each program counter
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SassInstruction:
    """One disassembled instruction: opcode with modifiers (``LDS.128``) and its source line."""

    opcode: str
    file: str | None
    line: int | None


def _user_location(locations: list[tuple[str, int]]) -> tuple[str | None, int | None]:
    """The innermost source location outside CUDA's own headers (the line a user wrote)."""
    for path, line in locations:
        if not _TOOLKIT_HEADER.search(path):
            return path, line
    return locations[0] if locations else (None, None)


def parse_nvdisasm(text: str) -> dict[str, dict[int, SassInstruction]]:
    """``nvdisasm -gi -c`` output as {function: {byte offset: instruction}}.

    The ``//## File`` lines before an instruction give its source location and the chain of calls it
    was inlined into; the instruction gets the innermost location that is not in a CUDA header.
    """
    functions: dict[str, dict[int, SassInstruction]] = {}
    current: dict[int, SassInstruction] | None = None
    source: tuple[str | None, int | None] = (None, None)
    pending: list[tuple[str, int]] = []
    for line in text.splitlines():
        header = _FUNCTION.match(line)
        if header:
            current = functions.setdefault(header.group(1), {})
            source, pending = (None, None), []
            continue
        if _LINE_INFO.search(line):
            pending += [(path, int(number)) for path, number in _LOCATION.findall(line)]
            continue
        instruction = _INSTRUCTION.search(line)
        if instruction and current is not None:
            if pending:
                source, pending = _user_location(pending), []
            current[int(instruction.group(1), 16)] = SassInstruction(instruction.group(2), *source)
    return functions


def disassemble(cubin: Path, nvdisasm: Path | None) -> dict[str, dict[int, SassInstruction]]:
    """The SASS map of one module's cubin; empty when nvdisasm is missing or the image is not an ELF cubin."""
    if nvdisasm is None or not cubin.is_file() or cubin.read_bytes()[:4] != b"\x7fELF":
        return {}
    text = _output([str(nvdisasm), "-gi", "-c", str(cubin)])
    return parse_nvdisasm(text) if text else {}


# ---------------------------------------------------------------------------------------------
# Raw records -> trace launches
# ---------------------------------------------------------------------------------------------


def classify_site(opcode: str | None, kind: int, flags: int, width: int, matrices: int) -> dict[str, Any]:
    """op, width, matrices and trans of a site, from its SASS opcode (or the Sanitizer flags without one)."""
    parts = opcode.split(".") if opcode else []
    op = _SASS_OPS.get(parts[0]) if parts else None
    if op is None and kind == tracing_async.KIND_ASYNC_COPY:
        op = "ldgsts"
    if op is None and kind == KIND_MATRIX:
        op = "stmatrix" if flags & FLAG_WRITE else "ldmatrix"
    if op is None:
        writes, reads = bool(flags & FLAG_WRITE), bool(flags & FLAG_READ)
        op = "atomic" if (writes and reads) or flags & FLAG_ATOMSYS else ("store" if writes else "load")
    if op in ("ldmatrix", "stmatrix"):
        count = int(parts[-1]) if parts and parts[-1] in ("1", "2", "4") else (matrices or 1)
        return {"op": op, "width": 16, "matrices": count, "trans": any(p.startswith("MT") for p in parts)}
    return {"op": op, "width": int(width), "matrices": None, "trans": False}


def _site_offsets(records: np.ndarray, launch: dict[str, Any]) -> np.ndarray:
    """Each record's byte offset in its function: pc minus the function's start when the tracer knew it."""
    pc = records["pc"].astype(np.int64)
    start = int(launch.get("function_pc") or 0)
    size = int(launch.get("function_size") or 0)
    if start and len(pc) and pc.min() >= start and (not size or pc.max() < start + size):
        return pc - start
    return pc


def _most_common(values: np.ndarray) -> int:
    uniques, counts = np.unique(values, return_counts=True)
    return int(uniques[np.argmax(counts)])


def display_path(path: str | None) -> str | None:
    """A source path from the line table, relative to the working directory when it lies inside it."""
    if not path:
        return None
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return path


def build_sites(
    records: np.ndarray, offsets: np.ndarray, sass: dict[int, SassInstruction]
) -> tuple[list[dict[str, Any]], np.ndarray]:
    """One site per distinct program counter (sorted), and each record's site id."""
    unique, site_of_record = np.unique(offsets, return_inverse=True)
    sites = []
    for site_id, offset in enumerate(unique.tolist()):
        mine = records[site_of_record == site_id]
        instruction = sass.get(offset)
        shape = classify_site(
            instruction.opcode if instruction else None,
            _most_common(mine["kind"]),
            _most_common(mine["flags"]),
            _most_common(mine["width"]),
            _most_common(mine["matrices"]),
        )
        sites.append(
            {
                "id": site_id,
                "pc": int(offset),
                "sass": instruction.opcode if instruction else None,
                **shape,
                "file": display_path(instruction.file) if instruction else None,
                "line": instruction.line if instruction else None,
            }
        )
    return sites, site_of_record.astype(np.int32)


def blocks_recorded(spec: str, grid: Sequence[int]) -> str | list[list[int]]:
    """The blocks a --blocks spec keeps in this grid: "all" or the explicit list."""
    mode, count, listed = parse_blocks(spec)
    total = grid[0] * grid[1] * grid[2]
    if mode == "all" or (mode == "first" and count is not None and count >= total):
        return "all"
    if mode == "first":
        linear = np.arange(count)
        return np.stack(
            [linear % grid[0], (linear // grid[0]) % grid[1], linear // (grid[0] * grid[1])], 1
        ).tolist()
    inside = [b for b in listed if all(b[i] < grid[i] for i in range(3))]
    unique = [list(b) for b in dict.fromkeys(tuple(b) for b in inside)]
    if len(unique) == total:
        return "all"
    if not unique:
        raise BankismError(f"--blocks {spec!r}: none of these blocks exists in the grid {list(grid)}")
    return unique


def record_arrays(
    records: np.ndarray, site_of_record: np.ndarray, grid: Sequence[int]
) -> dict[str, np.ndarray]:
    """The trace's record arrays, sorted by block then warp (each warp's records stay in program order)."""
    block = records["block"].astype(np.int64)
    linear = block[:, 0] + grid[0] * (block[:, 1] + grid[1] * block[:, 2])
    order = np.lexsort((records["warp"], linear))
    active = records["active"][order].astype(np.uint32)
    addresses = records["addresses"][order].astype(np.int64)
    lanes = ((active[:, None].astype(np.int64) >> np.arange(32)) & 1).astype(bool)
    addresses[~lanes] = 0
    return {
        "block": records["block"][order].astype(np.int32),
        "warp": records["warp"][order].astype(np.int32),
        "site": site_of_record[order].astype(np.int32),
        "active": active,
        "addresses": addresses,
    }


def without_duplicate_matrix_records(records: np.ndarray) -> np.ndarray:
    """Drop ordinary-access records at program counters the matrix callback also reported."""
    matrix_pcs = np.unique(records["pc"][records["kind"] == KIND_MATRIX])
    if matrix_pcs.size == 0:
        return records
    duplicate = (records["kind"] != KIND_MATRIX) & np.isin(records["pc"], matrix_pcs)
    return records[~duplicate]


def convert_launch(
    launch: dict[str, Any], records: np.ndarray, sass: dict[str, dict[int, SassInstruction]], blocks: str
) -> dict[str, Any]:
    """One traced launch of the manifest, with its raw records, as a trace-format launch."""
    grid = [int(v) for v in launch["grid"]]
    records, events = tracing_async.split_events(records)
    records = tracing_async.without_duplicate_async_records(without_duplicate_matrix_records(records))
    records, sources = tracing_async.split_sources(records)
    offsets = _site_offsets(records, launch)
    function_sass = sass.get(launch["mangled"], {})
    sites, site_of_record = build_sites(records, offsets, function_sass)
    for site in sites:
        if site["op"] == "ldgsts":
            mine = site_of_record == site["id"]
            site.update(tracing_async.source_grouping(site["width"], records["active"][mine], sources[mine]))
    event_offsets = _site_offsets(events, launch)
    recorded = {int(site["pc"]) for site in sites} | set(event_offsets.tolist())
    async_block = tracing_async.async_summary(events, event_offsets, function_sass, recorded, display_path)
    dynamic = launch.get("dynamic_shared")
    return {
        "index": int(launch["index"]),
        "kernel": launch.get("kernel") or launch["mangled"],
        "mangled": launch.get("mangled"),
        "grid": grid,
        "block": [int(v) for v in launch["block"]],
        "shared_bytes": {"static": max(int(launch.get("static_shared", 0)), 0), "dynamic": int(dynamic or 0)},
        "blocks_total": grid[0] * grid[1] * grid[2],
        "blocks_recorded": blocks_recorded(blocks, grid),
        "sites": sites,
        "records": record_arrays(records, site_of_record, grid),
        "counters": None,
        "counters_scope": "launch",
        **({"async": async_block} if any(async_block.values()) else {}),
    }


def _launch_names(capture: RawCapture) -> str:
    names = list(dict.fromkeys(str(launch.get("kernel")) for launch in capture.launches))
    shown = "; ".join(names[:8]) + ("; ..." if len(names) > 8 else "")
    return shown or "none"


def traced_launches(capture: RawCapture, options: TraceOptions) -> list[dict[str, Any]]:
    """The manifest's traced launches, after checking that nothing failed or was cut short."""
    if capture.errors:
        raise BankismError(f"the tracer reported: {capture.errors[0]}")
    for warning in capture.warnings:
        print(f"bankism trace: warning: {warning}", file=sys.stderr)
    traced = [launch for launch in capture.launches if launch.get("traced")]
    if not traced:
        wanted = f"matched --kernel {options.kernel!r}" if options.kernel else "was launched"
        raise BankismError(f"no kernel launch {wanted}; launches seen: {_launch_names(capture)}")
    for launch in traced:
        label = f"launch {launch['index']} ({launch.get('kernel')})"
        if not launch.get("ok"):
            raise BankismError(f"{label}: the tracer could not copy its records back (did the kernel fail?)")
        if int(launch["seen"]) > int(launch["records"]):
            raise BankismError(
                f"{label}: {launch['seen']} shared-memory warp-instructions exceed --max-records "
                f"{options.max_records}; record fewer blocks (--blocks first:K) or raise --max-records"
            )
    return traced


def describe(
    command: Sequence[str], options: TraceOptions, launches: list[dict[str, Any]], note: str | None
) -> str:
    """The trace's description: what ran, what was kept, and how counters relate to addresses."""
    kept = "all blocks" if options.blocks == "all" else f"blocks {options.blocks}"
    parts = [note] if note else []
    parts.append(
        f"Recorded with `bankism trace` ({TRACER_NAME}) from `{shlex.join(command)}`: "
        f"{len(launches)} launch(es) of kernels matching {options.kernel or 'any name'}"
        + (f", matching launches {list(options.launches)}" if options.launches else "")
        + f", {kept}. Addresses cover blocks_recorded; counters, when present, cover the whole launch."
    )
    return " ".join(parts)


def convert_capture(
    capture: RawCapture,
    command: Sequence[str],
    options: TraceOptions,
    env: dict[str, Any],
    nvdisasm: Path | None,
    source: str | None = None,
    note: str | None = None,
    sass: dict[str, dict[int, SassInstruction]] | None = None,
) -> dict[str, Any]:
    """The whole trace document of a tracer run (``sass``: a ready SASS map instead of running nvdisasm)."""
    chosen = traced_launches(capture, options)
    if sass is None:
        sass = {}
        for module_id in sorted({int(launch["module"]) for launch in chosen}):
            module = capture.modules.get(module_id)
            if module and module.get("cubin"):
                sass.update(disassemble(capture.directory / module["cubin"], nvdisasm))
    launches = [convert_launch(launch, capture.records(launch), sass, options.blocks) for launch in chosen]
    return {
        "format": "bankism-trace",
        "version": 1,
        "description": describe(command, options, chosen, note),
        "environment": env,
        "program": {"command": list(command), "source": source},
        "launches": launches,
    }


def _write_context(
    raw_dir: Path,
    command: Sequence[str],
    options: TraceOptions,
    env: dict[str, Any],
    source: str | None,
    note: str | None,
) -> None:
    """Save what conversion needs beside the raw output, so a kept raw folder can be converted later."""
    context = {
        "command": list(command),
        "options": asdict(options),
        "environment": env,
        "source": source,
        "note": note,
    }
    (raw_dir / "context.json").write_text(json.dumps(context, indent=1), encoding="utf-8")


def convert_raw_folder(
    raw_dir: Path, nvdisasm: Path | None, sass: dict[str, dict[int, SassInstruction]] | None = None
) -> dict[str, Any]:
    """The trace document of a raw folder kept with --keep-raw (its context.json says how it was taken)."""
    context_file = Path(raw_dir) / "context.json"
    try:
        context = json.loads(context_file.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise BankismError(f"{context_file}: cannot read the capture context ({error})") from None
    options = context["options"]
    options = TraceOptions(
        options["kernel"], tuple(options["launches"]), options["blocks"], options["max_records"]
    )
    return convert_capture(
        read_capture(Path(raw_dir)),
        context["command"],
        options,
        context["environment"],
        nvdisasm,
        context.get("source"),
        context.get("note"),
        sass,
    )


def trace_program(
    command: Sequence[str],
    output: Path,
    options: TraceOptions,
    source: str | None = None,
    note: str | None = None,
    keep_raw: Path | None = None,
    timeout: float | None = None,
) -> dict[str, Any]:
    """Build the tracer if needed, run the program under it, and save the trace to ``output``."""
    from bankism import traceio

    if not command:
        raise BankismError("no program given: put it after --, e.g. bankism trace -o t.json -- ./app")
    validate_options(options)
    toolkit = find_toolkit()
    env = environment(toolkit.nvcc)
    build = build_tracer(toolkit)
    with tempfile.TemporaryDirectory(prefix="bankism-trace-") as scratch:
        raw_dir = Path(scratch)
        _write_context(raw_dir, command, options, env, source, note)
        try:
            run_traced(command, build, options, raw_dir, timeout)
        finally:
            if keep_raw is not None:
                shutil.copytree(raw_dir, keep_raw, dirs_exist_ok=True)
        capture = read_capture(raw_dir)
        doc = convert_capture(capture, command, options, env, toolkit.nvdisasm, source, note)
    traceio.save(doc, output)
    return doc
