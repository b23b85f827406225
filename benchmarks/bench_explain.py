"""`bankism explain` on one block of the register-tiled SGEMM (traces/kernels/sgemm_regtile.cu:
128x128 tile, BK=8, 256 threads, float4 stores of A transposed), for several K (the kernel's
``n``), with the repeating-loop shortcut (explain/repeat.py) and without it, checking that both
give the same report (docs/performance.md, "explain").

Run: python benchmarks/bench_explain.py [--k 1024 4096] [--repeats 3] [--no-slow]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from pathlib import Path

import bankism.explain.simt.repeat as repeat
from bankism.explain import ExplainOptions, explain

KERNEL = Path(__file__).resolve().parents[1] / "traces" / "kernels" / "sgemm_regtile.cu"


def timed(k: int, shortcut: bool) -> tuple[float, float, dict]:
    """(CPU seconds, wall seconds, report) of one explain run at K = ``k``."""
    saved = repeat.MIN_TRIPS
    repeat.MIN_TRIPS = saved if shortcut else 10**9
    try:
        cpu, wall = time.process_time(), time.perf_counter()
        report = explain(KERNEL.read_text(), str(KERNEL), ExplainOptions(defines={"n": str(k)}))
        return time.process_time() - cpu, time.perf_counter() - wall, report
    finally:
        repeat.MIN_TRIPS = saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, nargs="+", default=[1024, 4096])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-slow", action="store_true", help="skip the runs without the shortcut")
    args = parser.parse_args()
    machine = platform.processor() or platform.machine()
    print(f"{machine}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    timed(64, True)  # first call: numba compiles the engine
    for k in args.k:
        runs = [timed(k, True) for _ in range(args.repeats)]
        cpu = [r[0] for r in runs]
        wall = [r[1] for r in runs]
        print(f"K={k}: with the shortcut: CPU {min(cpu):.2f} - {statistics.median(cpu):.2f} - "
              f"{max(cpu):.2f} s, wall {min(wall):.2f} - {statistics.median(wall):.2f} - {max(wall):.2f} s "
              "(min - median - max)")
        if args.no_slow:
            continue
        slow_cpu, slow_wall, slow = timed(k, False)
        fast = dict(runs[0][2])
        fast.pop("assumptions")
        slow.pop("assumptions")
        same = json.dumps(fast, sort_keys=True) == json.dumps(slow, sort_keys=True)
        print(f"K={k}: without it: CPU {slow_cpu:.2f} s, wall {slow_wall:.2f} s; same report: {same}")


if __name__ == "__main__":
    main()
