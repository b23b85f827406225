"""Bad input gives a BankismError with one line naming the instruction and lane."""

import numpy as np
import pytest

import bankism
from bankism import BankismError


def _one_line(error: pytest.ExceptionInfo) -> str:
    message = str(error.value)
    assert "\n" not in message
    return message


def test_wrong_shape():
    with pytest.raises(BankismError) as error:
        bankism.simulate(np.arange(31) * 4, width=4)
    assert "(31,)" in _one_line(error)


def test_negative_address_names_instruction_and_lane():
    addresses = np.arange(64).reshape(2, 32) * 4
    addresses[1, 5] = -4
    with pytest.raises(BankismError) as error:
        bankism.simulate(addresses, width=4)
    assert "instruction 1, lane 5" in _one_line(error)


def test_address_past_shared_memory():
    addresses = np.arange(32) * 4
    addresses[9] = 228 * 1024
    with pytest.raises(BankismError) as error:
        bankism.simulate(addresses, width=4)
    assert "lane 9" in _one_line(error) and "past" in str(error.value)


def test_misaligned_address():
    addresses = np.arange(32) * 8
    addresses[3] = 12
    with pytest.raises(BankismError) as error:
        bankism.simulate(addresses, width=8)
    assert "lane 3" in _one_line(error) and "aligned" in str(error.value)


def test_misaligned_inactive_lane_is_ignored():
    addresses = np.arange(32) * 8
    addresses[3] = 12
    assert bankism.simulate(addresses, width=8, active=~(1 << 3) & 0xFFFFFFFF).wavefronts[0] >= 1


def test_non_integer_addresses():
    addresses = np.arange(32) * 4.0
    addresses[2] = 8.5
    with pytest.raises(BankismError) as error:
        bankism.simulate(addresses, width=4)
    assert "lane 2" in _one_line(error)
    assert bankism.simulate(np.arange(32) * 4.0, width=4).wavefronts[0] == 1


def test_string_addresses():
    with pytest.raises(BankismError):
        bankism.simulate(["a"] * 32, width=4)


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"width": 3}, "width"),
        ({"op": "prefetch"}, "op"),
        ({"arch": "sm_12"}, "arch"),
        ({"op": "ldmatrix"}, "matrices"),
        ({"op": "ldmatrix", "matrices": 3}, "matrices"),
        ({"op": "load", "matrices": 2}, "matrices"),
        ({"op": "atomic", "width": 2}, "atomic"),
        ({"op": "atomic", "atomic_op": "nand"}, "atomic_op"),
        ({"active": np.ones((2, 32), bool)}, "active"),
        ({"active": 1 << 40}, "mask"),
    ],
)
def test_unknown_settings(kwargs, fragment):
    with pytest.raises(BankismError) as error:
        bankism.simulate(np.arange(32) * 16, **{"width": 4, **kwargs})
    assert fragment in _one_line(error)
