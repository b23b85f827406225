"""advise(): finds the known fixes unaided, ranks them, and proves each with the engine."""

import numpy as np
import pytest

from bankism.errors import BankismError
from bankism.review import Access, SharedArray, Swizzle, advise, check, swizzle_expression


def first(fixes, kind):
    return next(f for f in fixes if f.kind == kind)


def transpose(array):
    return [Access(array, lambda t: (t.y, t.x), op="store"), Access(array, lambda t: (t.x, t.y))]


def test_float_column_read_gets_32_by_33():
    tile = SharedArray("float", (32, 32), name="tile")
    fixes = advise(tile, transpose(tile), block=(32, 32))
    pad = first(fixes, "pad")
    assert pad.array == tile.with_layout(pad=1)
    assert pad.array.declaration == "__shared__ float tile[32][33];"
    assert (pad.complete, pad.extra_bytes, pad.excess) == (True, 128, 0)
    assert all(f.complete for f in fixes)


def test_sgemm_transposed_store_of_a_gets_plus_4():
    As = SharedArray("float", (8, 128), name="As")
    store = Access(As, lambda t, c: ((t.x % 2) * 4 + c, t.x // 2), op="store")
    load = Access(As, lambda t, k, h: (k, t.x // 16 * 8 + 4 * h), vector=4)
    loops = {"c": range(4), "k": range(8), "h": range(2)}
    assert check(store, block=256, loops=loops).conflicts > 0
    fixes = advise(As, [store, load], block=256, loops=loops)
    pad = first(fixes, "pad")
    assert pad.array.pad == 4 and pad.complete
    assert pad.array.declaration == "__shared__ float As[8][132];"
    assert pad.report.sites[0].conflicts == 0


def test_scalar_store_alone_needs_4_too():
    As = SharedArray("float", (8, 128), name="As")
    store = Access(As, lambda t, c: ((t.x % 2) * 4 + c, t.x // 2), op="store")
    for pad in (1, 2, 3):
        assert check(store.on(As.with_layout(pad=pad)), block=256, loops={"c": range(4)}).conflicts > 0
    fixes = advise(As, store, block=256, loops={"c": range(4)})
    assert first(fixes, "pad").array.pad == 4


def test_ldmatrix_over_64_half_rows_gets_the_128_byte_swizzle():
    tile = SharedArray("half", (64, 64), name="sA")
    fill = Access(tile, lambda t, i: (t.linear // 8 + 16 * i, t.linear % 8 * 8), op="store", vector=8)
    frag = Access(tile, lambda t, kk: (t.warp * 16 + t.lane % 16, kk * 16 + t.lane // 16 * 8),
                  op="ldmatrix", matrices=4)
    loops = {"i": range(4), "kk": range(4)}
    assert check([fill, frag], block=128, loops=loops).conflicts > 0
    fixes = advise(tile, [fill, frag], block=128, loops=loops)
    assert fixes[0].kind == "swizzle" and fixes[0].array.swizzle == Swizzle(3, 3, 3)
    assert fixes[0].complete and fixes[0].extra_bytes == 0
    assert fixes[0].code == "__shared__ half sA[64][64];  // sA[row][col ^ ((row & 7) << 3)]"


def test_ranking_and_proof():
    tile = SharedArray("float", (32, 32), name="tile")
    accesses = transpose(tile) + [Access(tile, lambda t, k: (t.y, k))]
    fixes = advise(tile, accesses, block=(32, 32), loops={"k": range(32)}, limit=50)
    keys = [(f.excess, f.extra_bytes) for f in fixes]
    assert keys == sorted(keys)
    for fix in fixes:
        again = check([a.on(fix.array) for a in accesses], block=(32, 32), loops={"k": range(32)})
        assert (again.wavefronts, again.ideal, again.conflicts) == (fix.wavefronts, fix.ideal, fix.excess)
        assert [a.array for a in fix.accesses] == [fix.array] * 3
    pads = [f.array.pad for f in fixes if f.kind == "pad"]
    assert pads == [1]


def test_a_conflict_free_layout_is_kept():
    tile = SharedArray("float", (32, 32), pad=1, name="tile")
    fixes = advise(tile, transpose(tile), block=(32, 32))
    kinds = [f.kind for f in fixes]
    assert "as given" in kinds
    assert fixes[0].extra_bytes == 0 and fixes[0].complete


def test_partial_fixes_are_ranked_by_what_remains():
    line = SharedArray("float", (1024,), name="line")
    stride = Access(line, lambda t: t.x * 32)
    fixes = advise(line, stride, block=32)
    assert fixes, "some swizzle spreads a stride-32 read over more banks"
    given = check(stride, block=32).conflicts
    assert all(f.excess < given or f.complete for f in fixes)
    assert [f.excess for f in fixes] == sorted(f.excess for f in fixes)


def test_accesses_to_other_arrays_are_ignored_and_none_is_an_error():
    a = SharedArray("float", (32, 32), name="a")
    b = SharedArray("float", (32, 32), base=a.nbytes, name="b")
    fixes = advise(a, transpose(a) + transpose(b), block=(32, 32))
    assert all(len(f.accesses) == 2 for f in fixes)
    with pytest.raises(BankismError, match="none of the given accesses"):
        advise(a, transpose(b), block=(32, 32))


def test_recorded_addresses_can_be_advised():
    tile = SharedArray("float", (32, 32), base=1024, name="tile")
    sites = check(transpose(tile), block=(32, 32)).sites
    recorded = [Access.from_addresses(tile, s.result.addresses, op=s.access.op, width=4) for s in sites]
    fixes = advise(tile, recorded)
    assert first(fixes, "pad").array.pad == 1


@pytest.mark.parametrize("bits,base,shift,columns",
                         [(3, 3, 3, 64), (5, 0, 5, 32), (1, 4, 5, 128), (2, 2, 4, 16)])
def test_swizzle_expression_is_the_swizzle(bits, base, shift, columns):
    array = SharedArray("float", (32, columns), swizzle=Swizzle(bits, base, shift), name="s")
    text = swizzle_expression(array)
    assert text.startswith("s[row][col ^ ")
    expression = text[len("s[row][col ^ "):-1]
    rows, cols = np.meshgrid(np.arange(32), np.arange(columns), indexing="ij")
    moved = eval(expression, {"row": rows})
    assert np.array_equal(rows * columns + (cols ^ moved), array.element_offsets(rows, cols))
