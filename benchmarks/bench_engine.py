"""Engine throughput against an np.sum yardstick, memory and first-call cost (docs/performance.md).

Run: python benchmarks/bench_engine.py [--instructions 1000000] [--repeats 7] [--threads 1 2]

The mixed workload: loads and stores of 4, 8 and 16 bytes and 4-byte add, 4-byte cas and
8-byte exch atomics, ``--instructions`` warp-instructions of each kind; half the rows random
aligned addresses in a 48 KiB window, half strided rows (stride 1..33 elements, many of them
conflicting). ``--masks full`` gives every lane active, ``partial`` (default) gives half
of the rows a random lane mask. Every repeat times the whole mix through ``bankism.simulate``
and then one ``np.sum`` pass over the same int64 address arrays, so that each engine figure
has a yardstick taken under the same load; the table gives min - median - max over repeats.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numba
import numpy as np

from bankism.engine import simulate

#: (op, width, atomic_op) of the mixed workload.
KINDS = [
    ("load", 4, "add"), ("load", 8, "add"), ("load", 16, "add"),
    ("store", 4, "add"), ("store", 8, "add"), ("store", 16, "add"),
    ("atomic", 4, "add"), ("atomic", 4, "cas"), ("atomic", 8, "exch"),
]


def make_addresses(n: int, width: int, seed: int, dtype: type = np.int64) -> np.ndarray:
    """Half random aligned addresses, half strided rows (stride 1..33 elements) in 48 KiB."""
    rng = np.random.default_rng(seed)
    half = n // 2
    random_rows = rng.integers(0, 48 * 1024 // width, size=(half, 32), dtype=np.int64) * width
    strides = rng.integers(1, 34, size=(n - half, 1), dtype=np.int64)
    bases = rng.integers(0, 256, size=(n - half, 1), dtype=np.int64) * width
    strided_rows = (bases + strides * np.arange(32, dtype=np.int64) * width) % (48 * 1024)
    rows = np.concatenate([random_rows, strided_rows])
    return np.ascontiguousarray(rows[rng.permutation(n)], dtype=dtype)


def make_masks(n: int, seed: int, partial: bool) -> np.ndarray | None:
    """None (all lanes) or, for half the rows in random order, a random 32-bit lane mask."""
    if not partial:
        return None
    rng = np.random.default_rng(seed + 1000)
    masks = np.full(n, 0xFFFFFFFF, np.int64)
    chosen = rng.random(n) < 0.5
    masks[chosen] = rng.integers(0, 1 << 32, size=int(chosen.sum()), dtype=np.int64)
    return masks


def workload(n: int, partial: bool, dtype: type) -> list[tuple[tuple[str, int, str], np.ndarray, object]]:
    return [(kind, make_addresses(n, kind[1], seed=k, dtype=dtype), make_masks(n, k, partial))
            for k, kind in enumerate(KINDS)]


def run_mix(work) -> tuple[list[float], float]:
    """Wall seconds per kind for one pass of the engine over the whole mix, and its CPU seconds."""
    times = []
    cpu = time.process_time()
    for (op, width, atomic_op), addresses, masks in work:
        start = time.perf_counter()
        simulate(addresses, width=width, op=op, active=masks, atomic_op=atomic_op)
        times.append(time.perf_counter() - start)
    return times, time.process_time() - cpu


def run_sum(work) -> tuple[list[float], float]:
    times = []
    cpu = time.process_time()
    for _, addresses, _ in work:
        start = time.perf_counter()
        addresses.sum()
        times.append(time.perf_counter() - start)
    return times, time.process_time() - cpu


def spread(values: list[float], digits: int = 1) -> str:
    return " – ".join(f"{v:.{digits}f}" for v in (min(values), statistics.median(values), max(values)))


def loadavg() -> str:
    try:
        with open("/proc/loadavg") as handle:
            return " ".join(handle.read().split()[:3])
    except OSError:
        return "unknown"


def throughput(n: int, repeats: int, threads: int, partial: bool, dtype: type) -> None:
    numba.set_num_threads(threads)
    work = workload(n, partial, dtype)
    yard = [(kind, addresses.astype(np.int64, copy=False), masks) for kind, addresses, masks in work]
    for (op, width, atomic_op), addresses, masks in work:  # compile and warm up
        simulate(addresses[:64], width=width, op=op, active=None if masks is None else masks[:64],
                 atomic_op=atomic_op)
    per_kind: list[list[float]] = [[] for _ in KINDS]
    rates, ratios, cpu_ns, cpu_ratios = [], [], [], []
    before = loadavg()
    for _ in range(repeats):
        engine, engine_cpu = run_mix(work)
        yardstick, yardstick_cpu = run_sum(yard)
        cpu_ns.append(engine_cpu / (len(KINDS) * n) * 1e9)
        cpu_ratios.append(engine_cpu / yardstick_cpu)
        for k, seconds in enumerate(engine):
            per_kind[k].append(n / seconds / 1e6)
        rates.append(len(KINDS) * n / sum(engine) / 1e6)
        ratios.append(sum(engine) / sum(yardstick))
    masks = "half the rows partial masks" if partial else "full masks"
    print(f"\n{threads} thread(s), {np.dtype(dtype).name} addresses, {masks}, "
          f"{n:,} warp-instructions per kind, {repeats} repeats, load average {before} -> {loadavg()}")
    print("\n| kind | M warp-instructions/s (min – median – max) |")
    print("|---|---|")
    for (op, width, atomic_op), values in zip(KINDS, per_kind, strict=True):
        name = f"{op} {width} B" + (f" {atomic_op}" if op == "atomic" else "")
        print(f"| {name} | {spread(values)} |")
    print(f"| **mix** | **{spread(rates)}** |")
    print(f"\nmix time / np.sum time over the same int64 arrays: {spread(ratios, 2)}x")
    print(f"CPU time (all threads) of the mix: {spread(cpu_ns)} ns per warp-instruction, "
          f"{spread(cpu_ratios, 2)}x the CPU time of np.sum")


def chunked_peak_rss(total: int, chunk: int) -> tuple[float, float]:
    """Peak RSS (VmHWM, MiB) of a fresh process after one chunk and after ``total`` instructions."""
    code = (
        "from bankism.engine import simulate\n"
        "from benchmarks.bench_engine import make_addresses\n"
        "def high_water():\n"
        "    status = open('/proc/self/status').read().split('VmHWM:')[1]\n"
        "    return int(status.split()[0]) / 1024\n"
        f"total, chunk = {total}, {chunk}\n"
        "peaks = []\n"
        "for start in range(0, total, chunk):\n"
        "    simulate(make_addresses(chunk, 8, seed=start), width=8).total_wavefronts\n"
        "    peaks.append(high_water())\n"
        "print(peaks[0], peaks[-1])\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True,
                          cwd=root, env={**os.environ, "PYTHONPATH": root})
    first, last = (float(value) for value in done.stdout.split())
    return first, last


def first_call_seconds(cache_dir: str) -> float:
    """Wall time of a fresh interpreter importing the engine and simulating one warp of each kind."""
    kinds = ", ".join(repr(kind) for kind in KINDS)
    code = (
        "import numpy as np\nfrom bankism.engine import simulate\n"
        f"for op, w, a in [{kinds}]:\n"
        "    simulate(np.arange(32) * w, width=w, op=op, atomic_op=a)\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--instructions", type=int, default=1_000_000, help="warp-instructions per kind")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--masks", choices=["full", "partial"], default="partial")
    parser.add_argument("--int32", action="store_true", help="int32 addresses (the yardstick stays int64)")
    parser.add_argument("--skip-memory", action="store_true", help="throughput only")
    args = parser.parse_args()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"numpy {np.__version__}, numba {numba.__version__}, python {platform.python_version()}")
    for threads in args.threads:
        throughput(args.instructions, args.repeats, threads, args.masks == "partial",
                   np.int32 if args.int32 else np.int64)
    if args.skip_memory:
        return
    first, last = chunked_peak_rss(total=16 * 1_000_000, chunk=1_000_000)
    print(f"\nfresh process, 8-byte loads fed in 1M-instruction chunks (256 MB of addresses each): "
          f"peak RSS {first:.0f} MiB after the first chunk, {last:.0f} MiB after 16 chunks")
    with tempfile.TemporaryDirectory() as cold:
        cold_seconds = first_call_seconds(cold)
        warm_seconds = first_call_seconds(cold)
    print(f"first call in a fresh process: {cold_seconds:.1f} s with an empty Numba cache, "
          f"{warm_seconds:.1f} s with the cache written by the first run")


if __name__ == "__main__":
    main()
