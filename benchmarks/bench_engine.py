"""Engine throughput, memory and first-call cost; prints a Markdown table for docs/performance.md.

Run: python benchmarks/bench_engine.py [--instructions 8000000] [--repeats 5]
The yardstick is one np.sum pass over the same int64 (N, 32) address array.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time

import numba
import numpy as np

import bankism

KINDS = [("load", 4), ("load", 8), ("load", 16), ("store", 16)]


def make_addresses(n: int, width: int, seed: int) -> np.ndarray:
    """Half random aligned addresses, half strided rows (stride 1..33 elements), int64."""
    rng = np.random.default_rng(seed)
    half = n // 2
    random_rows = rng.integers(0, 48 * 1024 // width, size=(half, 32), dtype=np.int64) * width
    strides = rng.integers(1, 34, size=(n - half, 1), dtype=np.int64)
    bases = rng.integers(0, 256, size=(n - half, 1), dtype=np.int64) * width
    strided_rows = (bases + strides * np.arange(32, dtype=np.int64) * width) % (48 * 1024)
    return np.ascontiguousarray(np.concatenate([random_rows, strided_rows]))


def best_of(repeats: int, run) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def throughput(n: int, repeats: int) -> list[tuple[str, float, float]]:
    rows = []
    for op, width in KINDS:
        addresses = make_addresses(n, width, seed=width)
        bankism.simulate(addresses[:64], width=width, op=op)
        engine = best_of(repeats, lambda a=addresses, w=width, o=op: bankism.simulate(a, width=w, op=o))
        yardstick = best_of(repeats, lambda a=addresses: a.sum())
        rows.append((f"{op} {width} B", engine, yardstick))
    return rows


def chunked_peak_rss(total: int, chunk: int) -> tuple[float, float]:
    """Peak RSS (VmHWM, MiB) of a fresh process after one chunk and after ``total`` instructions."""
    code = (
        "import bankism\n"
        "from benchmarks.bench_engine import make_addresses\n"
        "def high_water():\n"
        "    status = open('/proc/self/status').read().split('VmHWM:')[1]\n"
        "    return int(status.split()[0]) / 1024\n"
        f"total, chunk = {total}, {chunk}\n"
        "peaks = []\n"
        "for start in range(0, total, chunk):\n"
        "    bankism.simulate(make_addresses(chunk, 8, seed=start), width=8).total_wavefronts\n"
        "    peaks.append(high_water())\n"
        "print(peaks[0], peaks[-1])\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True,
                          cwd=root, env={**os.environ, "PYTHONPATH": root})
    first, last = (float(value) for value in done.stdout.split())
    return first, last


def first_call_seconds(cache_dir: str) -> float:
    """Wall time of a fresh interpreter importing bankism and simulating one warp of each kind."""
    code = (
        "import numpy as np, bankism\n"
        "for op, w in [('load',4),('load',8),('load',16),('store',16)]:\n"
        "    bankism.simulate(np.arange(32)*w, width=w, op=op)\n"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--instructions", type=int, default=4_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    n = args.instructions
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"numba threads {numba.get_num_threads()}, numpy {np.__version__}, numba {numba.__version__}")
    print(f"\n{n:,} warp-instructions per kind, best of {args.repeats}\n")
    print("| kind | engine (s) | M instr/s | np.sum (s) | engine / np.sum |")
    print("|---|---|---|---|---|")
    total_engine = total_sum = 0.0
    for name, engine, yardstick in throughput(n, args.repeats):
        total_engine += engine
        total_sum += yardstick
        rate = n / engine / 1e6
        print(f"| {name} | {engine:.3f} | {rate:.1f} | {yardstick:.3f} | {engine / yardstick:.2f}x |")
    mix = len(KINDS) * n
    print(f"| mix | {total_engine:.3f} | {mix / total_engine / 1e6:.1f} | {total_sum:.3f} | "
          f"{total_engine / total_sum:.2f}x |")
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
