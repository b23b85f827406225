"""Start-up: CPU and wall time of fresh `bankism` processes, now and at an earlier commit.

Run: python benchmarks/bench_startup.py [--before 39aa567]

For each version (the earlier one checked out with ``git worktree add --detach`` into a
temporary folder, run with ``PYTHONPATH`` pointing at it): a first ``bankism analyze
traces/sgemm_regtile.json`` with an empty Numba cache (what a fresh install pays), the same
again with the cache written, then ``bankism explain tests/data/explain/reduction.cu``
(where that file exists). CPU time is user + system time of the process (``os.wait4``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    start = time.perf_counter()
    process = subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    if status:
        raise SystemExit(f"{' '.join(command)} failed in {cwd}")
    return usage.ru_utime + usage.ru_stime, time.perf_counter() - start


def measure(label: str, root: Path) -> None:
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(root)}
        analyze = [sys.executable, "-m", "bankism", "analyze", "traces/sgemm_regtile.json", "--no-progress"]
        cold, warm = run(analyze, env, root), run(analyze, env, root)
        text = (f"{label}: first analyze, empty cache {cold[0]:.2f} s CPU ({cold[1]:.1f} s wall); "
                f"cache written {warm[0]:.2f} s CPU ({warm[1]:.1f} s wall)")
        kernel = "tests/data/explain/reduction.cu"
        if (root / kernel).exists():
            explain = run([sys.executable, "-m", "bankism", "explain", kernel], env, root)
            text += f"; explain {explain[0]:.2f} s CPU ({explain[1]:.1f} s wall)"
    print(text)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--before", default="39aa567")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        earlier = Path(folder) / "before"
        subprocess.run(["git", "worktree", "add", "-q", "--detach", str(earlier), args.before], cwd=ROOT,
                       check=True)
        try:
            measure(f"before ({args.before})", earlier)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(earlier)], cwd=ROOT, check=True)
    measure("now", ROOT)
    print("load average:", " ".join(Path("/proc/loadavg").read_text().split()[:3]))


if __name__ == "__main__":
    main()
