"""Build, check, trace and profile the corpus programs of traces/kernels on the GPU machine.

Run from the repository root (hw/corpus/run.sh does it on the device): every program is built with
nvcc -lineinfo for the GPU's architecture, run once on its own (it checks its own result), traced with
`bankism trace` and profiled with `bankism profile` into the same trace. Traces land in traces/, logs and
ncu CSV exports in build/corpus/. A table comparing the recorded warp-instructions with ncu's instruction
counts (for launches whose every block was recorded) ends the output.

Usage: python3 hw/corpus/corpus.py [NAME ...]     (default: every entry)
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build" / "corpus"
TRACES = ROOT / "traces"
KERNELS = TRACES / "kernels"
STEP_TIMEOUT = 150
TRACE_TIMEOUT = "90"


@dataclass(frozen=True)
class Entry:
    """One corpus trace: which program, which kernel and blocks, and why."""

    name: str
    source: str
    args: tuple[str, ...]
    kernel: str
    blocks: str
    note: str

    @property
    def is_python(self) -> bool:
        return self.source.endswith(".py")

    def command(self) -> list[str]:
        if self.is_python:
            return [sys.executable, str(Path("traces/kernels") / self.source), *self.args]
        return [str((BUILD / Path(self.source).stem).relative_to(ROOT)), *self.args]


LDSM_NOTE = (
    " Note: ncu's smsp__sass_inst_executed_op_shared_ld/st count LDS/STS only, while its wavefront and "
    "bank-conflict counters for ld/st include LDSM/STSM."
)

ENTRIES = (
    Entry(
        "dgemm_tile",
        "dgemm_tile.cu",
        (),
        "multiply",
        "0,0;1,0;0,1;1,1",
        "The double-precision 16x16 tiled matmul of /work/shared/quiz/dgemm_tile_quiz.cu, kernel verbatim "
        "(same "
        "line numbers), grid 16x16, block 16x16, 256x256 matrices. Blocks (0,0), (1,0), (0,1) and (1,1) are "
        "recorded (every block runs the same access pattern); counters cover all 256 blocks.",
    ),
    Entry(
        "matmul32",
        "matmul32.cu",
        ("plain",),
        "matmul32",
        "first:2",
        "Float 32x32 tiled matmul, 128x128, grid 4x4, block 32x32, tiles float[32][32]; lanes walk down a "
        "column "
        "of C so As[threadIdx.x][k] reads a tile column. The first 2 of 16 blocks are recorded.",
    ),
    Entry(
        "matmul32_padded",
        "matmul32.cu",
        ("padded",),
        "matmul32",
        "first:2",
        "Float 32x32 tiled matmul as matmul32 but with tiles float[32][33] (one word of padding per row). "
        "The first 2 of 16 blocks are recorded.",
    ),
    Entry(
        "transpose32",
        "transpose32.cu",
        ("plain",),
        "transpose32",
        "all",
        "32x32 tiled transpose of a 256x256 float matrix, tile float[32][32], block 32x8, grid 8x8; all "
        "blocks.",
    ),
    Entry(
        "transpose32_padded",
        "transpose32.cu",
        ("padded",),
        "transpose32",
        "all",
        "32x32 tiled transpose with tile float[32][33]; all blocks.",
    ),
    Entry(
        "sgemm_regtile",
        "sgemm_regtile.cu",
        ("plain",),
        "sgemm_regtile",
        "all",
        "float4 register-tiled SGEMM (256x256, BM=BN=128, BK=8, TM=TN=8, 256 threads, grid 2x2) storing the "
        "A "
        "tile transposed into As[8][128]; all blocks.",
    ),
    Entry(
        "sgemm_regtile_padded",
        "sgemm_regtile.cu",
        ("padded",),
        "sgemm_regtile",
        "all",
        "float4 register-tiled SGEMM as sgemm_regtile with As[8][128+4]; all blocks.",
    ),
    Entry(
        "ldmatrix_tile",
        "ldmatrix_tile.cu",
        ("plain",),
        "ldmatrix_tile",
        "all",
        "ldmatrix.x4, ldmatrix.x2.trans and stmatrix.x4 on 64x64 16-bit tiles with 128-byte rows, "
        "unswizzled; 4 blocks of 4 warps, all recorded." + LDSM_NOTE,
    ),
    Entry(
        "ldmatrix_tile_swizzled",
        "ldmatrix_tile.cu",
        ("swizzled",),
        "ldmatrix_tile",
        "all",
        "As ldmatrix_tile with the 128-byte XOR swizzle (chunk c of row r at chunk c ^ (r % 8)); all blocks."
        + LDSM_NOTE,
    ),
    Entry(
        "histogram64",
        "histogram64.cu",
        (),
        "histogram64",
        "all",
        "Byte histogram with atomicAdd on unsigned long long counters in shared memory (8-byte shared "
        "atomics: a CAS loop on sm_90), 65536 bytes, grid 16, block 256; all blocks. Note: the CAS loop "
        "retries depend on timing, and the traced run (under the tracer) and the profiled run (under ncu) "
        "are two executions, so their instruction counts can differ slightly.",
    ),
    Entry(
        "transpose_half",
        "transpose_half.cu",
        (),
        "transpose_half",
        "all",
        "Tiled transpose of a 128x128 __half matrix through __half tile[64][64] (16-bit shared accesses), "
        "block 64x8, grid 2x2; all blocks.",
    ),
    Entry(
        "cupy_sum",
        "cupy_sum.py",
        (),
        "cupy_sum",
        "first:4",
        "CuPy's own reduction kernel (cupy_sum, CUPY_ACCELERATORS emptied so CUB is not used) for "
        "sum(axis=1) "
        "of a 64x4096 float32 array. The first 4 blocks are recorded; counters cover the whole launch.",
    ),
)


def run(command: list[str], log: Path, timeout: int = STEP_TIMEOUT) -> tuple[int, float]:
    """Run a command, appending its output to ``log``; returns (exit code, seconds)."""
    start = time.time()
    with log.open("a") as out:
        out.write(f"$ {shlex.join(command)}\n")
        out.flush()
        try:
            code = subprocess.run(
                command, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT, timeout=timeout
            ).returncode
        except subprocess.TimeoutExpired:
            out.write(f"timed out after {timeout} s\n")
            code = 124
    return code, time.time() - start


def gpu_arch() -> str:
    text = subprocess.run(
        ["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return "sm_" + text.strip().splitlines()[0].replace(".", "")


def build(source: str, arch: str) -> tuple[str, int]:
    out = BUILD / Path(source).stem
    log = BUILD / f"{Path(source).stem}.build.log"
    log.write_text("")
    code, _ = run(["nvcc", f"-arch={arch}", "-lineinfo", "-O3", "-o", str(out), str(KERNELS / source)], log)
    return source, code


def bankism(*args: str) -> list[str]:
    return [sys.executable, "-m", "bankism", *args]


def record_entry(entry: Entry) -> dict:
    """Check, trace and profile one entry; returns a status row."""
    log = BUILD / f"{entry.name}.log"
    log.write_text("")
    trace = TRACES / f"{entry.name}.json"
    status = {"name": entry.name}
    code, seconds = run(entry.command(), log)
    status["check"] = "ok" if code == 0 else f"exit {code}"
    if code != 0:
        return status
    source = str(Path("traces/kernels") / entry.source)
    code, seconds = run(
        bankism(
            "trace",
            "-o",
            str(trace),
            "--kernel",
            entry.kernel,
            "--blocks",
            entry.blocks,
            "--source",
            source,
            "--description",
            entry.note,
            "--keep-raw",
            str(BUILD / "raw" / entry.name),
            "--timeout",
            TRACE_TIMEOUT,
            "--",
            *entry.command(),
        ),
        log,
    )
    status["trace"] = f"ok {seconds:.1f}s" if code == 0 else f"exit {code}"
    into = ["-o", str(trace)] if code == 0 else []  # without a trace, still save ncu's CSV exports
    code, seconds = run(
        bankism(
            "profile",
            *into,
            "--kernel",
            entry.kernel,
            "--csv",
            str(BUILD / f"{entry.name}.ncu-raw.csv"),
            "--details-csv",
            str(BUILD / f"{entry.name}.ncu-details.csv"),
            "--",
            *entry.command(),
        ),
        log,
    )
    status["profile"] = f"ok {seconds:.1f}s" if code == 0 else f"exit {code}"
    return status


NCU_CLASS = {"load": "ld", "ldmatrix": "ld", "store": "st", "stmatrix": "st", "atomic": "atom"}


def compare(entry: Entry) -> list[str]:
    """Per launch and ncu class: recorded warp-instructions and the engine's wavefronts and conflicts, scaled
    to the whole launch, next to ncu's instructions, wavefronts and conflicts."""
    from bankism.analyze import atomic_op_of
    from bankism.engine import simulate
    from bankism.trace import blocks_recorded_count, load

    path = TRACES / f"{entry.name}.json"
    if not path.exists():
        return [f"{entry.name}: no trace"]
    lines = []
    for launch in load(path)["launches"]:
        records = launch["records"]
        scale = launch["blocks_total"] / blocks_recorded_count(launch)
        totals = {k: [0, 0, 0] for k in ("ld", "st", "atom")}
        for site in launch["sites"]:
            chosen = records["site"] == site["id"]
            kind = NCU_CLASS[site["op"]]
            totals[kind][0] += int(chosen.sum())
            try:
                result = simulate(
                    records["addresses"][chosen],
                    width=site["width"],
                    op=site["op"],
                    active=records["active"][chosen],
                    matrices=site["matrices"],
                    atomic_op=atomic_op_of(site) or "add",
                )
                totals[kind][1] += int(result.total_wavefronts)
                totals[kind][2] += int(result.total_conflicts)
            except Exception as error:  # the engine is another engineer's work in progress: report it
                lines.append(f"    site {site['id']} {site['sass']}: engine: {type(error).__name__}: {error}")
        counters = launch.get("counters") or {}
        for kind, (count, waves, conflicts) in totals.items():
            ncu = counters.get(kind, {})
            lines.append(
                f"{entry.name} launch {launch['index']} {kind}: records x{scale:g} = {count * scale:g} "
                f"vs ncu {ncu.get('instructions')}; engine wavefronts {waves * scale:g} "
                f"vs ncu {ncu.get('wavefronts')}; engine conflicts {conflicts * scale:g} "
                f"vs ncu {ncu.get('conflicts')}"
            )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="entries to record (default: all)")
    chosen = parser.parse_args().names
    entries = [e for e in ENTRIES if not chosen or e.name in chosen]
    BUILD.mkdir(parents=True, exist_ok=True)
    arch = gpu_arch()
    sources = sorted({e.source for e in entries if not e.is_python})
    with ThreadPoolExecutor(8) as pool:
        built = dict(pool.map(lambda s: build(s, arch), sources))
    rows = []
    for entry in entries:
        if not entry.is_python and built.get(entry.source) != 0:
            rows.append({"name": entry.name, "check": "build failed"})
            continue
        rows.append(record_entry(entry))
        print(json.dumps(rows[-1]), flush=True)
    (BUILD / "status.json").write_text(json.dumps(rows, indent=1))
    for entry in entries:
        try:
            for line in compare(entry):
                print(line, flush=True)
        except Exception as error:
            print(f"{entry.name}: compare failed: {type(error).__name__}: {error}", flush=True)
    failed = [r["name"] for r in rows if r.get("profile", "").split()[:1] != ["ok"]]
    print(
        f"{len(rows) - len(failed)} of {len(rows)} entries traced and profiled"
        + (f"; failed: {failed}" if failed else "")
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
