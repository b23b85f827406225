"""Which blocks of a launch are recorded: the --blocks spec in a grid, and the spread that `--blocks auto`
falls back to when a launch's records exceed --max-records.

A spread records every S-th block by linear index, S prime to the grid's x extent so that the recorded
blocks cover every column and row of the grid (edge blocks included), not only its first rows. Analyze
scales the recorded counts by blocks_total / blocks recorded (docs/analyze.md); how representative the
recorded blocks are is checked there against ncu's instruction counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import ceil, gcd

import numpy as np

from bankism.capture.run import parse_blocks
from bankism.errors import BankismError

# Aim the spread's records at this share of --max-records: blocks differ in how much they record.
SPREAD_FILL = 0.8


class RecordsOverflow(BankismError):
    """`--blocks auto`: records over --max-records; trace again recording every ``stride``-th block."""

    def __init__(self, message: str, stride: int) -> None:
        super().__init__(message)
        self.stride = stride


def linear_blocks(indices: np.ndarray, grid: Sequence[int]) -> list[list[int]]:
    """Linear block indices as [x, y, z] block coordinates of ``grid``."""
    return np.stack(
        [indices % grid[0], (indices // grid[0]) % grid[1], indices // (grid[0] * grid[1])], 1
    ).tolist()


def blocks_recorded(spec: str, grid: Sequence[int]) -> str | list[list[int]]:
    """The blocks a --blocks spec keeps in this grid: "all" or the explicit list."""
    mode, count, listed = parse_blocks(spec)
    total = grid[0] * grid[1] * grid[2]
    if mode in ("all", "auto") or (mode in ("first", "every") and count is not None and
                                   (count >= total if mode == "first" else count == 1)):
        return "all"
    if mode == "first":
        return linear_blocks(np.arange(count), grid)
    if mode == "every":
        return linear_blocks(np.arange(0, total, count), grid)
    inside = [b for b in listed if all(b[i] < grid[i] for i in range(3))]
    unique = [list(b) for b in dict.fromkeys(tuple(b) for b in inside)]
    if len(unique) == total:
        return "all"
    if not unique:
        raise BankismError(f"--blocks {spec!r}: none of these blocks exists in the grid {list(grid)}")
    return unique


def spread_stride(seen: int, capacity: int, grid: Sequence[int], stride: int = 1) -> int:
    """The stride S whose blocks' records fit in ``capacity``, given ``seen`` records at stride ``stride``.

    S is prime to the grid's first extent larger than 1, so the recorded blocks visit every x (and y) of it.
    """
    wanted = max(stride + 1, ceil(stride * seen / (SPREAD_FILL * capacity)))
    extent = next((int(e) for e in grid[:2] if int(e) > 1), 1)
    while gcd(wanted, extent) != 1:
        wanted += 1
    return wanted


def spread_note(label: str, seen: int, capacity: int, stride: int, grid: Sequence[int]) -> str:
    """The one line `--blocks auto` prints when it records a spread of the blocks instead of all of them."""
    total = int(np.prod(grid))
    kept = len(range(0, total, stride))
    return (f"note: {label}: {seen:,} shared-memory warp-instructions exceed --max-records {capacity:,}; "
            f"recording every {stride}th block ({kept:,} of {total:,}, spread over the grid) and scaling the "
            f"counts to the whole launch (--blocks all with a larger --max-records records every block)")


#: Launches of one kernel with one shape from which the trace says how to record only one.
REPEATED_LAUNCHES = 4


def repeated_launch_note(launches: Sequence[dict]) -> str | None:
    """One line when the trace holds many launches of one kernel with one grid and block (a benchmark
    loop): each is traced and profiled in full, and ``--launch N`` keeps one."""
    shapes: dict[tuple, list[dict]] = {}
    for launch in launches:
        key = (launch.get("mangled") or launch["kernel"], tuple(launch["grid"]), tuple(launch["block"]))
        shapes.setdefault(key, []).append(launch)
    same = max(shapes.values(), key=len, default=[])
    if len(same) < REPEATED_LAUNCHES:
        return None
    first = same[0]
    name = first["kernel"].split("(")[0]
    return (f"note: {len(same)} launches of {name} with grid {list(first['grid'])} and "
            f"block {list(first['block'])} were recorded (a benchmark loop?); each is traced and profiled in "
            f"full: --kernel and --launch N keep one")
