"""Properties every count must have, whatever the rule tables say."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import bankism
from bankism.arch import MATRIX_OPS
from tests.strategies import lane_addresses, warp_instructions


def _lanes(op, matrices):
    return 8 * matrices if op in MATRIX_OPS else 32


def _simulate(op, width, matrices, addresses, mask, atomic_op):
    return bankism.simulate(
        addresses, width=width, op=op, active=mask, matrices=matrices, atomic_op=atomic_op
    )


@given(warp_instructions())
def test_at_least_one_wavefront_per_128_distinct_bytes(instruction):
    op, width, matrices, addresses, mask, atomic_op = instruction
    result = _simulate(op, width, matrices, addresses, mask, atomic_op)
    lanes = [lane for lane in range(_lanes(op, matrices)) if (mask >> lane) & 1]
    distinct_bytes = len({int(addresses[lane]) + k for lane in lanes for k in range(width)})
    assert result.wavefronts[0] >= -(-distinct_bytes // 128)


@given(warp_instructions())
def test_ideal_at_most_wavefronts_and_conflicts_are_the_excess(instruction):
    result = _simulate(*instruction)
    assert 0 <= result.ideal[0] <= result.wavefronts[0]
    per_pass = result.rule.wavefronts_per_pass
    assert result.ideal[0] == result.groups[0] * per_pass
    assert result.conflicts[0] * per_pass == result.wavefronts[0] - result.ideal[0]
    if result.wavefronts[0] == 0:
        assert result.cycles[0] == 0


@given(warp_instructions(), st.integers(0, 2**31 - 1))
def test_inactive_lanes_do_not_matter(instruction, seed):
    op, width, matrices, addresses, mask, atomic_op = instruction
    scrambled = addresses.copy()
    rng = np.random.default_rng(seed)
    for lane in range(32):
        if not (mask >> lane) & 1 or lane >= _lanes(op, matrices):
            scrambled[lane] = rng.integers(0, 1024) * width
    before = _simulate(op, width, matrices, addresses, mask, atomic_op)
    after = _simulate(op, width, matrices, scrambled, mask, atomic_op)
    assert before.wavefronts[0] == after.wavefronts[0]


@given(st.sampled_from([1, 2, 4, 8, 16]), st.integers(0, 4095), st.sampled_from(["load", "store"]))
def test_broadcast_whole_warp_has_no_conflict(width, element, op):
    """Every lane reading the same address is a broadcast: no bank conflict."""
    result = bankism.simulate(np.full(32, element * width), width=width, op=op)
    assert result.conflicts[0] == 0 and result.wavefronts[0] == result.ideal[0]


@given(lane_addresses(4), st.integers(0, 31), st.integers(0, 31))
def test_broadcast_copying_a_word_never_adds_wavefronts(addresses, source, target):
    """On a 32-bit access, a lane that reads a word some other lane reads costs nothing extra."""
    before = bankism.simulate(addresses, width=4).wavefronts[0]
    copied = addresses.copy()
    copied[target] = copied[source]
    assert bankism.simulate(copied, width=4).wavefronts[0] <= before


@given(lane_addresses(4))
def test_translation_by_128_bytes_changes_nothing(addresses):
    """Banks repeat every 128 bytes, so moving the whole warp by 128 bytes keeps every count."""
    moved = addresses + 128
    before = bankism.simulate(addresses, width=4).wavefronts[0]
    assert bankism.simulate(moved, width=4).wavefronts[0] == before


@given(st.integers(0, 4095), st.sampled_from([4, 8]), st.sampled_from(["add", "exch", "cas"]))
def test_atomics_serialise_lanes_on_one_address(element, width, atomic_op):
    """Atomics do not broadcast: 32 lanes on one address take 32 passes (measured)."""
    if (width, atomic_op) == (8, "add"):
        return
    result = bankism.simulate(np.full(32, element * width), width=width, op="atomic", atomic_op=atomic_op)
    assert result.wavefronts[0] == 32 * result.rule.wavefronts_per_pass


def test_64_bit_atomic_add_is_not_one_instruction():
    with pytest.raises(bankism.BankismError, match="CAST.SPIN"):
        bankism.simulate(np.arange(32) * 8, width=8, op="atomic")


def test_no_active_lane_costs_nothing():
    result = bankism.simulate(np.arange(32) * 4, width=4, active=0)
    assert result.wavefronts[0] == 0 and result.ideal[0] == 0 and result.cycles[0] == 0


def test_textbook_32_bit_strides():
    """Stride s words: gcd(s, 32)-way conflict (the textbook case, measured in traces/probes)."""
    for stride in range(0, 65):
        result = bankism.simulate(np.arange(32) * stride * 4, width=4)
        expected = 1 if stride == 0 else np.gcd(stride, 32)
        assert result.wavefronts[0] == expected, stride
