"""The engine reads the bank geometry and the rules from ``Architecture``, whatever they are.

Made-up architectures (registered for one test) push the engine off today's sm_90 table:
transactions with up to 128 (transaction, bank group) keys and other bank counts.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bankism import arch as arch_module
from bankism.arch import SM90, Rule
from bankism.engine import simulate
from tests.reference import reference_count
from tests.strategies import lane_addresses, masks


def _variant(name: str, split: str, **changes) -> arch_module.Architecture:
    rules = {key: dataclasses.replace(rule, split=split, merge_xors=(), merge_scope="pair")
             for key, rule in SM90.rules.items() if key[0] in ("load", "store", "atomic")}
    return dataclasses.replace(SM90, name=name, rules=rules, **changes)


@pytest.fixture
def made_up(monkeypatch):
    """Register made-up architectures for the duration of one test."""
    def register(architecture):
        monkeypatch.setitem(arch_module.ARCHITECTURES, architecture.name, architecture)
        return architecture.name
    return register


KINDS = [(op, width, atomic) for (op, width, atomic) in SM90.rules if op in ("load", "store", "atomic")]


@pytest.mark.parametrize("split", ["half-warp", "quarter-warp"])
def test_many_keys_agree_with_the_reference(made_up, split):
    """4-byte accesses cut into 2 or 4 transactions: 64 and 128 keys, beyond the bit tricks."""
    name = made_up(_variant(f"test_{split}", split))
    run_checks(name)


def run_checks(name):
    @given(st.sampled_from(KINDS), st.data())
    def check(kind, data):
        op, width, atomic_op = kind
        addresses = data.draw(lane_addresses(width))
        mask = data.draw(masks())
        kwargs = {"atomic_op": atomic_op or "add"}
        result = simulate(addresses, width=width, op=op, active=mask, arch=name, **kwargs)
        expected = reference_count(addresses, width, op, mask, arch=name, **kwargs)
        assert int(result.wavefronts[0]) == expected.wavefronts
        assert int(result.groups[0]) == expected.transactions
    check()


def test_bank_count_comes_from_the_architecture(made_up):
    """16 banks of 4 bytes: 32 consecutive words put two distinct words in every bank."""
    name = made_up(dataclasses.replace(SM90, name="test_16_banks", banks=16))
    words = np.arange(32) * 4
    assert simulate(words, width=4).wavefronts[0] == 1
    assert simulate(words, width=4, arch=name).wavefronts[0] == 2
    # A stride of 16 words is a 32-way conflict on 16 banks, and on 32 banks a 16-way one.
    assert simulate(words * 16, width=4, arch=name).wavefronts[0] == 32
    assert simulate(words * 16, width=4).wavefronts[0] == 16


def test_bank_width_comes_from_the_architecture(made_up):
    """8-byte banks: two 4-byte lanes in one 8-byte bank word share it like a broadcast."""
    name = made_up(dataclasses.replace(SM90, name="test_8_byte_banks", banks=16, bank_bytes=8))
    assert simulate(np.arange(32) * 4, width=4, arch=name).wavefronts[0] == 1
    assert simulate(np.arange(32) * 8, width=8, op="store", arch=name).wavefronts[0] == 2


def test_geometry_that_is_not_a_power_of_two_is_refused(made_up):
    from bankism.errors import BankismError
    name = made_up(dataclasses.replace(SM90, name="test_24_banks", banks=24))
    with pytest.raises(BankismError, match="power of two"):
        simulate(np.arange(32) * 4, width=4, arch=name)


def test_rule_is_data(made_up):
    """A new rule field value (an unbanked 4-byte load) is interpreted, not looked up by name."""
    rules = dict(SM90.rules)
    rules[("load", 4, "")] = Rule("warp", banked=False, wavefronts_per_pass=3)
    name = made_up(dataclasses.replace(SM90, name="test_unbanked", rules=rules))
    result = simulate(np.arange(32) * 128, width=4, arch=name)
    assert (result.wavefronts[0], result.conflicts[0]) == (3, 0)
