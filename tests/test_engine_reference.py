"""The fast engine agrees with the scalar reference on random warps of every kind."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import bankism
from tests.reference import reference_count
from tests.strategies import warp_instructions


@given(warp_instructions())
def test_engine_matches_reference(instruction):
    op, width, matrices, addresses, mask, atomic_op = instruction
    result = bankism.simulate(
        addresses, width=width, op=op, active=mask, matrices=matrices, atomic_op=atomic_op
    )
    expected = reference_count(addresses, width, op, mask, matrices, atomic_op=atomic_op)
    assert int(result.wavefronts[0]) == expected.wavefronts
    assert int(result.groups[0]) == expected.transactions


@given(st.lists(warp_instructions(), min_size=2, max_size=12))
def test_batch_equals_one_by_one(instructions):
    """One (N, 32) call gives the same counts as N single calls, kind by kind."""
    by_kind: dict = {}
    for op, width, matrices, addresses, mask, atomic_op in instructions:
        by_kind.setdefault((op, width, matrices, atomic_op), []).append((addresses, mask))
    for (op, width, matrices, atomic_op), rows in by_kind.items():
        addresses = np.stack([a for a, _ in rows])
        masks = np.asarray([m for _, m in rows], dtype=np.uint32)
        kind = {"width": width, "op": op, "matrices": matrices, "atomic_op": atomic_op}
        batch = bankism.simulate(addresses, active=masks, **kind)
        for i, (a, m) in enumerate(rows):
            single = bankism.simulate(a, active=m, **kind)
            assert batch.wavefronts[i] == single.wavefronts[0]
            assert batch.conflicts[i] == single.conflicts[0]
            np.testing.assert_array_equal(batch.cycles[i], single.cycles[0])


@given(warp_instructions())
def test_bank_map_agrees_with_counts(instruction):
    """The per-bank picture explains exactly the counted wavefronts."""
    op, width, matrices, addresses, mask, atomic_op = instruction
    result = bankism.simulate(
        addresses, width=width, op=op, active=mask, matrices=matrices, atomic_op=atomic_op
    )
    assert result.bank_map(0).wavefronts == int(result.wavefronts[0])
    assert result.describe(0).endswith(".")


def test_int32_and_int64_addresses_agree():
    rng = np.random.default_rng(7)
    addresses = rng.integers(0, 4096, size=(500, 32)) * 8
    wide = bankism.simulate(addresses.astype(np.int64), width=8)
    narrow = bankism.simulate(addresses.astype(np.int32), width=8)
    np.testing.assert_array_equal(wide.wavefronts, narrow.wavefronts)


def test_bool_and_bitmask_active_agree():
    rng = np.random.default_rng(8)
    addresses = rng.integers(0, 512, size=(300, 32)) * 4
    lanes = rng.random((300, 32)) < 0.6
    bits = (lanes.astype(np.uint64) << np.arange(32, dtype=np.uint64)).sum(axis=1)
    by_bool = bankism.simulate(addresses, width=4, active=lanes)
    by_bits = bankism.simulate(addresses, width=4, active=bits)
    np.testing.assert_array_equal(by_bool.wavefronts, by_bits.wavefronts)


def test_long_batches_agree_with_the_reference():
    """Batches long enough to wrap the engine's per-chunk stamps still count every instruction right."""
    rng = np.random.default_rng(11)
    rows = rng.integers(0, 64, size=(60_000, 32)) * 8
    rows[::3] = rows[::3] // 64 * 64
    result = bankism.simulate(rows, width=8)
    for i in rng.choice(len(rows), size=300, replace=False):
        assert result.wavefronts[i] == reference_count(rows[i], 8).wavefronts
