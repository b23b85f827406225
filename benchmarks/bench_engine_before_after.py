"""CPU time per warp-instruction of the engine now and of an earlier engine, on the same arrays.

Run: python benchmarks/bench_engine_before_after.py [--before 39aa567] [--instructions 100000]
     [--masks partial|full]

The earlier ``bankism/engine.py`` is taken from git (``git show REV:bankism/engine.py``) into a
temporary module, so both engines run in one process on the same mixed workload as
benchmarks/bench_engine.py, on one thread; the figure is the best of 7 CPU times
(``time.process_time``) per kind, which a busy machine changes far less than wall time.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bankism.engine import engine_threads, simulate  # noqa: E402
from benchmarks.bench_engine import KINDS, loadavg, workload  # noqa: E402


def earlier_engine(revision: str, folder: str):
    source = subprocess.run(["git", "show", f"{revision}:bankism/engine.py"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout
    path = Path(folder) / "engine_before.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("engine_before", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["engine_before"] = module
    spec.loader.exec_module(module)
    return module


def best_cpu(function, work, repeats: int = 7) -> float:
    total = 0.0
    for (op, width, atomic_op), addresses, masks in work:
        function(addresses[:64], width=width, op=op, active=None if masks is None else masks[:64],
                 atomic_op=atomic_op)
        best = float("inf")
        for _ in range(repeats):
            start = time.process_time()
            function(addresses, width=width, op=op, active=masks, atomic_op=atomic_op)
            best = min(best, time.process_time() - start)
        total += best
    return total


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--before", default="39aa567")
    parser.add_argument("--instructions", type=int, default=100_000)
    parser.add_argument("--masks", choices=["full", "partial"], default="partial")
    args = parser.parse_args()
    n = args.instructions
    work = workload(n, args.masks == "partial", np.int64)
    yardstick = float("inf")
    for _ in range(7):
        start = time.process_time()
        for _, addresses, _ in work:
            addresses.sum()
        yardstick = min(yardstick, time.process_time() - start)
    with tempfile.TemporaryDirectory() as folder:
        before = earlier_engine(args.before, folder)
        numba.set_num_threads(1)  # the earlier engine ran on Numba's threads
        with engine_threads(1):
            old = best_cpu(before.simulate, work)
            new = best_cpu(simulate, work)
    count = n * len(KINDS)
    print(f"{args.masks} masks, {n:,} warp-instructions per kind, one thread, load average {loadavg()}")
    for name, seconds in ((f"before ({args.before})", old), ("now", new)):
        print(f"{name}: {seconds / count * 1e9:.1f} CPU ns per warp-instruction, "
              f"{seconds / yardstick:.2f}x the CPU time of np.sum")


if __name__ == "__main__":
    main()
