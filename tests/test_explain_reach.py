"""Constructs public kernels use that never decide a shared access (tests/data/explain/reach):
clock readings, braced cooperative-groups function objects, half2 arithmetic, ... Every site's
per-warp addresses, wavefronts and ideal are checked against the engine run on addresses
computed here from the kernels' own index formulas."""

from __future__ import annotations

import numpy as np

from tests.test_explain_support import BASE, DATA, check_site, run, site

REACH = DATA / "reach"


def _lanes(addresses: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """One execution whose first len(addresses) lanes are active at ``addresses``:
    ((1, 32) addresses, (1, 32) active mask)."""
    row = np.zeros((1, 32), np.int64)
    row[0, : len(addresses)] = addresses
    active = np.zeros((1, 32), bool)
    active[0, : len(addresses)] = True
    return row, active


def _check(found: dict, per_warp: dict[int, list[int]], width: int, op: str) -> None:
    expected = {w: _lanes(a) for w, a in per_warp.items()}
    addresses = {w: e[0] for w, e in expected.items()}
    check_site(found, addresses, width, op, {w: e[1] for w, e in expected.items()})


def test_clock_values_and_braced_function_objects_do_not_refuse():
    report = run(REACH / "library_values.cu")
    totals, maxes = BASE, BASE + 32
    _check(site(report, 17, "warpTotals", "store"), {w: [totals + 4 * w] for w in range(8)}, 4, "store")
    _check(site(report, 18, "maxes", "store"), {w: [maxes + 4 * (7 - w)] for w in range(8)}, 4, "store")
    _check(site(report, 21, "warpTotals", "load"), {0: [totals + 4 * i for i in range(8)]}, 4, "load")
    _check(site(report, 21, "maxes", "load"), {0: [maxes + 4 * (i ^ 1) for i in range(8)]}, 4, "load")
    assert sum(s["conflicts"] for s in report["sites"]) == 0
