"""`bankism explain` speed: CPU and wall time of fresh processes, now and at an earlier commit.

Run: python benchmarks/bench_explain_processes.py [--before REV] [--repeat 3] [--k 256 512]
(benchmarks/bench_explain.py times the repeating-loop shortcut in-process.)

Cases: the project's register-tiled SGEMM (tests/data/explain/sgemm_vectorized.cu: 128x128
tile, BK=8, 256 threads, float4 loads, A stored transposed) for one block at each K, and the
start-up case (tests/data/explain/reduction.cu). Each case runs ``--repeat`` times per version;
the table gives min / median / max of CPU time (user + system of the process, ``os.wait4``)
and of wall time, and /proc/loadavg before and after (the machine is shared: compare CPU
time). The earlier version is checked out with ``git worktree add --detach`` into a temporary
folder and run with ``PYTHONPATH`` pointing at it. ``--json`` output of both versions is
compared byte for byte, so a speed-up that changes an answer shows up here.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "n/a"


def run(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, str]:
    """CPU seconds, wall seconds and the sha256 of stdout of one process."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        process = subprocess.Popen(command, env=env, cwd=cwd, stdout=out)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        if status:
            raise SystemExit(f"{' '.join(command)} failed in {cwd}")
        out.seek(0)
        digest = hashlib.sha256(out.read()).hexdigest()[:12]
    return usage.ru_utime + usage.ru_stime, wall, digest


def cases(ks: list[int]) -> list[tuple[str, list[str]]]:
    explain = [sys.executable, "-m", "bankism", "explain"]
    out = [("start-up: reduction.cu", [*explain, "tests/data/explain/reduction.cu", "--json"])]
    for k in ks:
        out.append((f"sgemm_vectorized.cu K={k}",
                    [*explain, "tests/data/explain/sgemm_vectorized.cu", "-D", "M=128", "-D", "N=128",
                     "-D", f"K={k}", "--json"]))
    return out


def spread(values: list[float]) -> str:
    return f"{min(values):.2f} / {statistics.median(values):.2f} / {max(values):.2f}"


def measure(label: str, root: Path, ks: list[int], repeat: int) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    digests = {}
    for name, command in cases(ks):
        before = loadavg()
        runs = [run(command, env, root) for _ in range(repeat)]
        cpu, wall = [r[0] for r in runs], [r[1] for r in runs]
        digests[name] = runs[0][2]
        print(f"| {label} | {name} | {spread(cpu)} | {spread(wall)} | {before} -> {loadavg()} "
              f"| {runs[0][2]} |", flush=True)
    return digests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="earlier commit to compare with")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--k", type=int, nargs="+", default=[256, 512])
    args = parser.parse_args()
    print("| version | case | CPU s min / median / max | wall s min / median / max | load | output sha256 |")
    print("|---|---|---|---|---|---|")
    now = measure("now", ROOT, args.k, args.repeat)
    if args.before:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp) / "before"
            subprocess.run(["git", "worktree", "add", "--detach", str(folder), args.before], cwd=ROOT,
                           check=True, capture_output=True)
            try:
                then = measure(args.before, folder, args.k, args.repeat)
            finally:
                subprocess.run(["git", "worktree", "remove", "--force", str(folder)], cwd=ROOT, check=True)
        changed = [name for name in now if now[name] != then[name]]
        print("answers identical" if not changed else f"ANSWERS DIFFER: {', '.join(changed)}")


if __name__ == "__main__":
    main()
