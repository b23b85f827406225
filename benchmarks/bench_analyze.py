"""`bankism analyze` end to end, and start-up: numbers for docs/performance.md.

Run:
    python benchmarks/make_large_trace.py /tmp/big15m.json --records 15000000
    python benchmarks/bench_analyze.py /tmp/big15m.json [--repeats 3] [--threads 1 2]

Per thread count: min - median - max of records/s over ``--repeats`` in-process runs of
``analyze`` (the engine already compiled), each beside the rate of only reading the records
(inflate and check, the same reader) in the same repeat; peak RSS of a fresh process; the
load average before and after. Then start-up: a first ``bankism analyze`` of a small trace
with an empty Numba cache (what a fresh install pays), the same with the cache written,
and ``bankism explain`` of a small kernel.
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
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def spread(values: list[float], digits: int = 2) -> str:
    return " – ".join(f"{v:.{digits}f}" for v in (min(values), statistics.median(values), max(values)))


def throughput(path: str, repeats: int, threads: int) -> None:
    from bankism.analyze import analyze
    from bankism.engine import engine_threads
    from bankism.trace import open_trace
    from bankism.trace import read as trace_read

    trace = open_trace(path)
    records = sum(trace.record_count(launch) for launch in trace.launches)
    analyze(open_trace(ROOT / "traces" / "sgemm_regtile.json"))  # compile, outside the timing
    rates, read_rates, cpu = [], [], []
    before = loadavg()
    for _ in range(repeats):
        start, cpu_start = time.perf_counter(), time.process_time()
        analyze(open_trace(path), threads=threads)
        seconds = time.perf_counter() - start
        cpu.append((time.process_time() - cpu_start) / records * 1e9)
        rates.append(records / seconds / 1e6)
        start = time.perf_counter()
        with engine_threads(threads):
            opened = open_trace(path)
            for launch in opened.launches:
                for _ in opened.chunks(launch, check_addresses=False):
                    pass
        read_rates.append(records / (time.perf_counter() - start) / 1e6)
    inflater = trace_read._inflate_module.__name__
    print(f"\n{threads} engine thread(s), {records:,} records, {repeats} repeats, inflate with {inflater}, "
          f"load average {before} -> {loadavg()}")
    print(f"  analyze: {spread(rates)} M records/s; CPU time {spread(cpu, 0)} ns per record (all threads)")
    print(f"  reading alone (inflate + checks, same reader): {spread(read_rates)} M records/s")


def peak_rss(path: str, threads: int) -> float:
    code = (
        "import sys\nfrom bankism.analyze import analyze\nfrom bankism.trace import open_trace\n"
        f"analyze(open_trace({path!r}), threads={threads})\n"
        "status = open('/proc/self/status').read().split('VmHWM:')[1]\n"
        "print(int(status.split()[0]) / 1024)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return float(done.stdout.split()[-1])


def timed(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def startup(repeats: int) -> None:
    bankism = [sys.executable, "-m", "bankism"]
    small = str(ROOT / "traces" / "sgemm_regtile.json")
    kernel = str(ROOT / "tests" / "data" / "explain" / "reduction.cu")
    cold, warm, explain = [], [], []
    before = loadavg()
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as cache:
            env = {**os.environ, "NUMBA_CACHE_DIR": cache}
            cold.append(timed([*bankism, "analyze", small, "--no-progress"], env))
            warm.append(timed([*bankism, "analyze", small, "--no-progress"], env))
            timed([*bankism, "explain", kernel], env)
            explain.append(timed([*bankism, "explain", kernel], env))
    print(f"\nstart-up, {repeats} repeats, load average {before} -> {loadavg()}")
    print(f"  first `bankism analyze` of {Path(small).name}, empty Numba cache: {spread(cold)} s")
    print(f"  the same with the cache written: {spread(warm)} s")
    print(f"  `bankism explain {Path(kernel).name}` (cache written): {spread(explain)} s")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("trace", help="a large npz trace (benchmarks/make_large_trace.py)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--skip-startup", action="store_true")
    parser.add_argument("--zlib", action="store_true", help="inflate with zlib even where ISA-L is installed")
    args = parser.parse_args()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"python {platform.python_version()}")
    if args.zlib:
        import zlib

        from bankism.trace import read as trace_read
        trace_read._inflate_module = zlib
    for threads in args.threads:
        throughput(args.trace, args.repeats, threads)
        print(f"  peak RSS of a fresh process: {peak_rss(args.trace, threads):.0f} MiB")
    if not args.skip_startup:
        startup(args.repeats)


if __name__ == "__main__":
    main()
