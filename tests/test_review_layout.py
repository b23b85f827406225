"""SharedArray and Swizzle: layouts, CuTe's swizzle semantics, declarations and bad input."""

import numpy as np
import pytest

from bankism.errors import BankismError
from bankism.review import SharedArray, Swizzle


def cute_apply(offset: int, bits: int, base: int, shift: int) -> int:
    """cute::Swizzle<B,M,S>::apply written out from its yyy/zzz masks (swizzle.hpp)."""
    bit_msk = (1 << bits) - 1
    yyy = bit_msk << (base + max(0, shift))
    moved = offset & yyy
    moved = moved >> shift if shift >= 0 else moved << -shift
    return offset ^ moved


@pytest.mark.parametrize("bits,base,shift",
                         [(3, 3, 3), (2, 1, 5), (5, 0, 5), (3, 4, -3), (1, 2, -4), (0, 3, 3)])
def test_swizzle_matches_cute_definition(bits, base, shift):
    sw = Swizzle(bits, base, shift)
    offsets = np.arange(4096)
    assert [sw(int(o)) for o in offsets] == [cute_apply(int(o), bits, base, shift) for o in offsets]
    assert np.array_equal(sw(offsets), [cute_apply(int(o), bits, base, shift) for o in offsets])


def test_swizzle_positive_shift_is_the_familiar_formula():
    sw = Swizzle(3, 3, 3)
    for o in range(2048):
        assert sw(o) == o ^ ((o >> 3) & (((1 << 3) - 1) << 3))


@pytest.mark.parametrize("bits,base,shift", [(3, 3, 3), (2, 0, -2), (5, 0, 5)])
def test_swizzle_is_an_involution_and_a_permutation(bits, base, shift):
    sw = Swizzle(bits, base, shift)
    block = np.arange(1 << (bits + base + abs(shift)))
    assert np.array_equal(sw(sw(block)), block)
    assert np.array_equal(np.sort(sw(block)), block)


def test_swizzle_masks_and_text():
    sw = Swizzle(3, 3, 3)
    assert (sw.yyy_mask, sw.zzz_mask) == (0b111000000, 0b111000)
    assert str(sw) == "Swizzle<3,3,3>"


def test_swizzle_requires_shift_at_least_bits():
    with pytest.raises(BankismError, match="shift"):
        Swizzle(3, 3, 2)
    with pytest.raises(BankismError, match=">= 0"):
        Swizzle(-1, 0, 3)


@pytest.mark.parametrize("dtype,itemsize,cuda", [
    ("float32", 4, "float"), ("float", 4, "float"), ("double", 8, "double"), ("half", 2, "half"),
    ("bfloat16", 2, "__nv_bfloat16"), ("int", 4, "int"), (np.float16, 2, "half"), ("int8", 1, "signed char"),
])
def test_dtype_spellings(dtype, itemsize, cuda):
    array = SharedArray(dtype, (4, 8))
    assert array.itemsize == itemsize
    assert array.cuda_type == cuda


def test_padded_layout_offsets_bytes_and_declaration():
    tile = SharedArray("float32", (32, 32), pad=1, base=256, name="tile")
    assert tile.pitch == 33 and tile.strides == (33, 1)
    assert tile.nbytes == 32 * 33 * 4 and tile.dense_nbytes == 4096 and tile.extra_bytes == 128
    assert tile.declaration == "__shared__ float tile[32][33];"
    rows, cols = np.meshgrid(np.arange(32), np.arange(32), indexing="ij")
    assert np.array_equal(tile.element_offsets(rows, cols), rows * 33 + cols)
    assert np.array_equal(tile.byte_addresses(rows, cols), 256 + 4 * (rows * 33 + cols))


def test_three_dimensional_padding_applies_to_rows():
    cube = SharedArray("double", (2, 4, 8), pad=2)
    assert cube.strides == (40, 10, 1)
    assert int(cube.element_offsets(1, 2, 3)) == 40 + 20 + 3
    assert cube.nbytes == 2 * 4 * 10 * 8


def test_swizzle_applies_to_element_offsets_of_the_layout():
    sw = Swizzle(3, 3, 3)
    tile = SharedArray("half", (64, 64), swizzle=sw)
    rows, cols = np.meshgrid(np.arange(64), np.arange(64), indexing="ij")
    assert np.array_equal(tile.element_offsets(rows, cols), sw(rows * 64 + cols))
    assert tile.nbytes == tile.dense_nbytes == 64 * 64 * 2
    assert np.array_equal(np.sort(tile.element_offsets(rows, cols).ravel()), np.arange(64 * 64))


def test_layout_function_replaces_the_layout():
    skew = SharedArray("float", (32, 32), swizzle=lambda r, c: r * 32 + (c + r) % 32, name="s")
    assert int(skew.element_offsets(3, 30)) == 3 * 32 + 1
    assert skew.nbytes == 4096
    holes = SharedArray("float", (4, 4), swizzle=lambda r, c: r * 8 + c)
    assert holes.nbytes == (3 * 8 + 4) * 4 and holes.extra_bytes == holes.nbytes - 64


def test_layout_function_must_be_injective_and_non_negative():
    with pytest.raises(BankismError, match=r"\[0\]\[1\] and \[1\]\[0\] at the same offset 1"):
        SharedArray("float", (4, 4), swizzle=lambda r, c: r + c)
    with pytest.raises(BankismError, match="negative"):
        SharedArray("float", (4, 4), swizzle=lambda r, c: r * 4 + c - 3)
    with pytest.raises(BankismError, match="not both"):
        SharedArray("float", (4, 4), pad=1, swizzle=lambda r, c: r * 5 + c)


@pytest.mark.parametrize("kwargs,match", [
    (dict(dtype="float", shape=(0, 4)), "positive"),
    (dict(dtype="float", shape=(4,), pad=1), "1-D"),
    (dict(dtype="float", shape=(4, 4), pad=-1), "pad"),
    (dict(dtype="float", shape=(4, 4), base=2), "aligned"),
    (dict(dtype="quad", shape=(4, 4)), "unknown element type"),
    (dict(dtype="float", shape=(4, 4), swizzle=3), "swizzle"),
])
def test_bad_arrays_are_one_line_errors(kwargs, match):
    with pytest.raises(BankismError, match=match) as caught:
        SharedArray(**kwargs)
    assert "\n" not in str(caught.value)


def test_with_layout_keeps_name_and_base():
    tile = SharedArray("float", (8, 128), base=64, name="As")
    padded = tile.with_layout(pad=4)
    assert (padded.name, padded.base, padded.pad, padded.swizzle) == ("As", 64, 4, None)
    assert repr(padded) == "SharedArray('float32', (8, 128), pad=4, base=64, name='As')"
    assert str(tile.with_layout(swizzle=Swizzle(1, 4, 5))) == "float As[8][128] with Swizzle<1,4,5>"
