"""What a seventh held-out scout of public kernels found (outside the repository), each with a kernel of
our own: the repeating-loop shortcut's copies count against the accesses limit before they take memory."""

from __future__ import annotations

import numpy as np
import pytest

from bankism import inputs
from bankism.errors import BankismError
from tests.test_explain_support import BASE, DATA, check_site, run, site

HELDOUT = DATA / "heldout"


def test_a_long_tile_loop_is_counted_by_copies():
    report = run(HELDOUT / "long_tile_loop.cu")
    loads = next(s for s in report["sites"] if s["op"] == "load")
    assert loads["instructions"] == 1024 * 8 * 4  # 1,024 tiles x 8 warps x 4 loads (as written)


def test_the_copies_of_a_repeating_loop_count_against_their_limit():
    inputs.set_limits(["copies=20000"])
    try:
        with pytest.raises(BankismError, match="over the copies limit of 20,000"):
            run(HELDOUT / "long_tile_loop.cu")
    finally:
        inputs.reset_limits()


def test_an_array_used_only_inside_lambdas_is_laid_out_and_counted():
    report = run(HELDOUT / "lambda_only_shared.cu")
    stores = [s for s in report["sites"] if s["line"] == 9]
    loads = [s for s in report["sites"] if s["line"] == 12]
    assert [(s["op"], s["instructions"], s["conflicts"]) for s in stores] == [("store", 2, 0)]
    assert [(s["op"], s["instructions"], s["conflicts"]) for s in loads] == [("load", 2, 2)]  # stride 2


def test_lroundf_rounds_halves_away_from_zero_and_lrintf_to_even():
    report = run(HELDOUT / "lambda_only_shared.cu")
    t = np.arange(64)
    rounded = np.sign(t * 2.5) * np.floor(np.abs(t * 2.5) + 0.5)
    check_site(site(report, 19, "buffer", "store"),
               {w: BASE + 1024 + 4 * (rounded[32 * w: 32 * w + 32].astype(int) % 256).reshape(1, 32)
                for w in range(2)}, 4, "store")
    check_site(site(report, 20, "buffer", "store"),
               {w: BASE + 4 * (np.rint(t[32 * w: 32 * w + 32] * 0.5).astype(int) % 256).reshape(1, 32)
                for w in range(2)}, 4, "store")
