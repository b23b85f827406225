"""`bankism explain` on a header that does not launch its kernel, in a synthetic repository of many source
files: the time the launch search takes (explain/frontend/launch_search.py; docs/performance.md, "explain:
the launch search").

Run: python benchmarks/bench_launch_search.py [--files 3000] [--lines 2000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from bankism.explain import ExplainOptions, explain
from bankism.explain.frontend.launch_search import launching_files

BESIDE = Path(__file__).resolve().parents[1] / "tests" / "data" / "explain" / "beside"
HEADER = BESIDE / "kernels" / "tile_kernels.cuh"
RUNNER = BESIDE / "runner.cu"


def tree(root: Path, files: int, lines: int) -> Path:
    """A repository with ``files`` unrelated sources of ``lines`` lines, the header, and its runner placed
    in the directory searched last (the worst case)."""
    (root / ".git").mkdir()
    for i in range(files):
        folder = root / "lib" / f"d{i % 50}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{i}.cu").write_text("int x;\n" * lines)
    (root / "src" / "kernels").mkdir(parents=True)
    shutil.copy(HEADER, root / "src" / "kernels" / HEADER.name)
    (root / "zz").mkdir()
    (root / "zz" / "runner.cu").write_text(RUNNER.read_text().replace("kernels/", "../src/kernels/"))
    return root / "src" / "kernels" / HEADER.name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        header = tree(Path(folder), args.files, args.lines)
        search, whole = [], []
        for _ in range(args.repeats):
            start = time.perf_counter()
            found = launching_files(str(header), "column_read")
            search.append(time.perf_counter() - start)
            start = time.perf_counter()
            report = explain(header.read_text(), str(header), ExplainOptions(kernel="column_read"))
            whole.append(time.perf_counter() - start)
        load = os.getloadavg()[0]
        print(f"{args.files} files of {args.lines} lines; cpus {os.cpu_count()}, load {load:.1f}")
        print(f"launch found: {found[:1]}, explain's launch from: {report['launch']['from']}")
        print(f"search: min {min(search):.2f} s, median {statistics.median(search):.2f} s")
        print(f"explain (search included): min {min(whole):.2f} s, median {statistics.median(whole):.2f} s")


if __name__ == "__main__":
    main()
