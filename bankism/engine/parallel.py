"""The engine's threads: a batch is cut into contiguous pieces that a small pool of threads takes as
they free up, each running the serial, GIL-free kernel on its piece.

Why not Numba's ``prange``: a serial kernel compiles much faster (docs/performance.md), and threads
that take pieces one at a time keep going when the machine is busy, where a static split waits
for its slowest (descheduled) worker. Small batches run on the calling thread.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

from bankism.errors import BankismError

#: A piece holds at least this many warp-instructions (about 0.3 ms of work): smaller batches are
#: not split, and a batch of fewer than two pieces runs on the calling thread.
MIN_PIECE = 4096
#: Pieces per thread: enough for a thread that falls behind to be covered by the others.
PIECES_PER_THREAD = 8

_lock = threading.Lock()
_threads: int | None = None
_pool: ThreadPoolExecutor | None = None
_pool_size = 0


def cpu_count() -> int:
    """CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def threads() -> int:
    """Threads the engine uses now: ``engine_threads``'s setting, else one per CPU."""
    return _threads if _threads is not None else cpu_count()


@contextmanager
def engine_threads(count: int | None) -> Iterator[None]:
    """Run the engine on ``count`` threads inside the block (None: one per CPU)."""
    global _threads
    if count is None:
        yield
        return
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 4 * cpu_count():
        raise BankismError(
            f"threads must be an integer from 1 to {4 * cpu_count()} (4 per CPU); got {count!r}"
        )
    before = _threads
    _threads = count
    try:
        yield
    finally:
        _threads = before


def pieces(n: int) -> list[tuple[int, int]]:
    """Contiguous [lo, hi) ranges covering n instructions for the current thread count."""
    count = max(1, min(-(-n // MIN_PIECE), threads() * PIECES_PER_THREAD)) if threads() > 1 else 1
    step = -(-n // count) if n else 0
    return [(lo, min(n, lo + step)) for lo in range(0, n, step)] if n else []


def run(tasks: list[Callable[[], None]]) -> None:
    """Run every task: on the calling thread for one task or one thread, else on the pool."""
    if len(tasks) <= 1 or threads() == 1:
        for task in tasks:
            task()
        return
    for future in [_executor().submit(task) for task in tasks]:
        future.result()


def _executor() -> ThreadPoolExecutor:
    global _pool, _pool_size
    with _lock:
        if _pool is None or _pool_size != threads():
            if _pool is not None:
                _pool.shutdown(wait=False)
            _pool = ThreadPoolExecutor(max_workers=threads(), thread_name_prefix="bankism-engine")
            _pool_size = threads()
        return _pool
