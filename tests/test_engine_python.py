"""The engine kernel run as plain Python (``bankism.engine.kernel_python``, what a short
``explain`` uses before Numba is imported) gives exactly the compiled kernel's answers: per
instruction, per kind in a mixed batch, and the same first invalid lane."""

from __future__ import annotations

import sys
from dataclasses import astuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bankism
from bankism.engine import api
from bankism.engine.api import Kind, simulate_many
from bankism.engine.kernel import simulate_kernel as compiled
from bankism.engine.kernel_python import simulate_kernel as plain
from tests.strategies import warp_instructions

FIELDS = ("wavefronts", "ideal", "conflicts", "cycles", "groups", "merged")


def _with(monkeypatch, kernel):  # noqa: ANN001, ANN202
    monkeypatch.setattr(api, "kernel_for", lambda n: kernel)


@settings(max_examples=60, deadline=None)
@given(st.lists(warp_instructions(), min_size=1, max_size=6))
def test_plain_python_kernel_equals_the_compiled_one(instructions):
    with pytest.MonkeyPatch.context() as patch:
        for op, width, matrices, addresses, mask, atomic_op in instructions:
            kind = {"width": width, "op": op, "matrices": matrices, "atomic_op": atomic_op}
            _with(patch, compiled)
            fast = bankism.simulate(addresses, active=mask, **kind)
            _with(patch, plain)
            slow = bankism.simulate(addresses, active=mask, **kind)
            for field in FIELDS:
                np.testing.assert_array_equal(getattr(slow, field), getattr(fast, field))
        kinds = sorted({Kind(op, width, matrices, atomic_op) for op, width, matrices, _, _, atomic_op
                        in instructions}, key=repr)
        rows = np.stack([np.asarray(a, np.int64) for _, _, _, a, _, _ in instructions])
        masks = np.asarray([m for *_, m, _ in instructions], np.uint32)
        kind_of = np.asarray([kinds.index(Kind(op, w, m, a)) for op, w, m, _, _, a in instructions], np.int32)
        _with(patch, compiled)
        fast_totals = simulate_many(rows, masks, kind_of, kinds)
        _with(patch, plain)
        slow_totals = simulate_many(rows, masks, kind_of, kinds)
        # assert_equal takes NaN cycles (kinds without a cycle model) as equal
        np.testing.assert_equal([astuple(t) for t in slow_totals], [astuple(t) for t in fast_totals])


def _refusals(monkeypatch, addresses: np.ndarray, width: int) -> list[str]:  # noqa: ANN001
    """The error each kernel (compiled, then plain Python) gives for ``addresses``."""
    messages = []
    for kernel in (compiled, plain):
        _with(monkeypatch, kernel)
        with pytest.raises(bankism.errors.BankismError) as error:
            bankism.simulate(addresses, width=width)
        messages.append(str(error.value))
    return messages


def test_plain_python_kernel_names_the_same_invalid_lane(monkeypatch):
    addresses = np.arange(32) * 8
    addresses[7] = 5  # misaligned for an 8-byte load
    messages = _refusals(monkeypatch, addresses, 8)
    assert messages[0] == messages[1] and "lane 7" in messages[0]


def test_small_batches_use_the_plain_kernel_only_while_numba_is_not_imported():
    assert api.kernel_for(api.PYTHON_KERNEL_MAX + 1) is compiled
    assert api.kernel_for(1) is compiled  # the tests imported Numba


def test_a_process_runs_at_most_its_budget_in_plain_python(monkeypatch):
    """Many small batches (advise's candidate layouts) switch to the compiled kernel once the process has run
    PYTHON_KERNEL_BUDGET warp-instructions as plain Python, instead of paying 0.1 ms each for ever."""
    monkeypatch.delitem(sys.modules, "numba", raising=False)  # as in a process that has not imported it
    monkeypatch.setattr(api, "_python_kernel_used", [0])
    half = api.PYTHON_KERNEL_BUDGET // 2
    assert api.kernel_for(half) is plain
    assert api.kernel_for(half) is plain
    assert api.kernel_for(1) is compiled
    assert api._python_kernel_used == [2 * half]


@pytest.mark.parametrize("address", [2**63 - 1, 2**62, 2**40])
def test_plain_python_kernel_refuses_an_address_near_2_to_the_63_like_the_compiled_one(monkeypatch, address):
    # regression: as plain Python the lane's slot (an int32) overflowed before the lane was
    # reported invalid (an OverflowError traceback); Numba wraps it silently
    addresses = np.arange(32, dtype=np.int64) * 4
    addresses[3] = address
    messages = _refusals(monkeypatch, addresses, 4)
    assert messages[0] == messages[1]
