"""``simulate_many`` (one pass over a batch of mixed kinds, as ``analyze`` runs it) agrees with
``simulate`` kind by kind: sums, the worst instruction and the first invalid address."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bankism.engine import AddressError, Kind, engine_threads, simulate, simulate_many
from bankism.errors import BankismError
from tests.strategies import warp_instructions


def _batch(instructions):
    kinds = sorted({(op, width, mat, atomic) for op, width, mat, _, _, atomic in instructions}, key=str)
    index = {kind: k for k, kind in enumerate(kinds)}
    addresses = np.stack([a for _, _, _, a, _, _ in instructions]).astype(np.int32)
    active = np.asarray([m for _, _, _, _, m, _ in instructions], np.int64)
    kind_of = np.asarray([index[(op, w, mat, ao)] for op, w, mat, _, _, ao in instructions], np.int32)
    return [Kind(op, w, mat, ao) for op, w, mat, ao in kinds], addresses, active, kind_of


@given(st.lists(warp_instructions(), min_size=1, max_size=40))
def test_batch_of_mixed_kinds_agrees_with_simulate(instructions):
    kinds, addresses, active, kind_of = _batch(instructions)
    totals = simulate_many(addresses, active, kind_of, kinds)
    for k, kind in enumerate(kinds):
        rows = np.flatnonzero(kind_of == k)
        one = simulate(addresses[rows], width=kind.width, op=kind.op, active=active[rows],
                       matrices=kind.matrices, atomic_op=kind.atomic_op)
        got = totals[k]
        assert (got.executions, got.wavefronts, got.ideal, got.conflicts) == (
            len(rows), one.total_wavefronts, one.total_ideal, one.total_conflicts)
        assert got.cycles == pytest.approx(one.total_cycles, nan_ok=True)
        excess = one.wavefronts - one.ideal
        first_worst = max(range(len(rows)), key=lambda i: (excess[i], one.wavefronts[i], -i))
        assert got.worst == rows[first_worst]
        assert got.worst_wavefronts == one.wavefronts[first_worst]
        assert got.worst_ideal == one.ideal[first_worst]


def test_large_batch_is_the_same_on_one_and_two_threads():
    rng = np.random.default_rng(3)
    n = 50_000
    kinds = [Kind("load", 4), Kind("load", 8), Kind("store", 16), Kind("atomic", 4, atomic_op="cas"),
             Kind("ldmatrix", 16, 4)]
    kind_of = rng.integers(0, len(kinds), n).astype(np.int32)
    addresses = (rng.integers(0, 2048, (n, 32)) * 16).astype(np.int32)
    active = rng.integers(0, 1 << 32, n)
    with engine_threads(1):
        one = simulate_many(addresses, active, kind_of, kinds)
    with engine_threads(2):
        two = simulate_many(addresses, active, kind_of, kinds)
    assert one == two


def test_first_invalid_address_names_instruction_lane_and_reason():
    addresses = np.tile(np.arange(32, dtype=np.int32) * 4, (300, 1))
    addresses[120, 7] = 4096
    addresses[200, 3] = 2
    kinds = [Kind("load", 4), Kind("load", 16)]
    kind_of = np.zeros(300, np.int32)
    with pytest.raises(AddressError) as error:
        simulate_many(addresses, np.full(300, 0xFFFFFFFF), kind_of, kinds, limit=4096)
    assert (error.value.instruction, error.value.lane, error.value.reason) == (120, 7, "range")
    addresses[120, 7] = 0
    kind_of[200] = 1
    addresses[200] = np.arange(32) * 16
    addresses[200, 3] = 8
    with pytest.raises(AddressError) as error:
        simulate_many(addresses, np.full(300, 0xFFFFFFFF), kind_of, kinds, limit=4096)
    assert (error.value.instruction, error.value.lane, error.value.reason) == (200, 3, "align")


def test_kinds_are_checked_like_simulate():
    with pytest.raises(BankismError, match="CAST.SPIN"):
        simulate_many(np.zeros((1, 32), np.int32), np.ones(1), np.zeros(1, np.int32), [Kind("atomic", 8)])
    with pytest.raises(BankismError, match="index the 1 kinds"):
        simulate_many(np.zeros((1, 32), np.int32), np.ones(1), np.ones(1, np.int32), [Kind("load", 4)])


@pytest.mark.parametrize("threads", [0, 10_000, 1.5])
def test_thread_counts_outside_the_machine_are_refused(threads):
    with pytest.raises(BankismError, match="threads must be an integer from 1"), engine_threads(threads):
        pass
