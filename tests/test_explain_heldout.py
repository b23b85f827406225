"""Reach of explain on constructs a held-out scout of public kernels found refused (issue 19,
reach-heldout): brace lists as arguments, ... Each site's per-warp addresses, wavefronts and
ideal are checked against the engine run on addresses computed here from the kernel's own
formulas, and against the wavefront count that follows from the bank arithmetic."""

from __future__ import annotations

import numpy as np

from tests.test_explain_support import BASE, DATA, check_site, run, site

HELDOUT = DATA / "heldout"


def _words(words: np.ndarray) -> dict[int, np.ndarray]:
    """warp 0 -> (1, 32) byte addresses of 4-byte words ``words`` (one per lane) in ``s``."""
    return {0: (BASE + 4 * words).reshape(1, 32).astype(np.int64)}


def test_a_brace_list_argument_builds_the_parameters_type():
    report = run(HELDOUT / "braced_args.cu")
    t = np.arange(32)
    expected = {16: 2 * t, 17: 33 * t + 1, 18: 4 * t + 2, 19: 3 * t}
    for line, words in expected.items():
        check_site(site(report, line, "s", "store"), _words(words), 4, "store")
    wavefronts = {s["line"]: s["wavefronts"] for s in report["sites"] if s["op"] == "store"}
    assert [wavefronts[line] for line in expected] == [2, 1, 4, 1]


def test_local_arrays_sized_by_their_initializer_pointer_arrays_included():
    report = run(HELDOUT / "sized_by_init.cu")
    t = np.arange(32)
    # strides[] = {1, 2, 33}; frags[0][i] = 8t + i, frags[1][i] = 16t + i; 3 strides
    expected = {11: 2 * t, 12: 33 * t, 18: 8 * t + 3, 19: 16 * t + 1 + 3}
    for line, words in expected.items():
        check_site(site(report, line, "s", "store"), _words(words), 4, "store")
    wavefronts = {s["line"]: s["wavefronts"] for s in report["sites"] if s["op"] == "store"}
    assert [wavefronts[line] for line in expected] == [2, 1, 8, 16]
