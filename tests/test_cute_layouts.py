"""CuTe layouts: the printed notation, evaluation as CuTe's crd2idx, copy atoms and tiled copies, and
the checks and fixes of bankism.review.cute_check (docs/layouts.md). Where pycute is installed
(``bankism[cute]``), the evaluation, complement and make_tiled_copy are checked against it."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from bankism.errors import BankismError
from bankism.review.cute import CuteLayout, as_layout, complement, parse_layout
from bankism.review.cute_check import check_layout
from bankism.review.cute_copy import copy_atom, make_tiled_copy, tiled_copy
from bankism.review.layout import Swizzle

#: make_tiled_copy_A(Copy_Atom<SM75_U32x4_LDSM_N>, one SM80_16x8x16 MMA): the A operand's TV layout.
A_TV = "((4,8),(2,2,2)):((32,1),(16,8,128))"
#: The B operand of two 16x8x16 MMAs side by side in N (a 16x16 (N,K) tile), as ldmatrix.trans reads it.
B_TV = "((4,8),(2,2,2)):((32,1),(16,128,8))"


def lay(text: str) -> CuteLayout:
    return parse_layout(text)


# --- notation -------------------------------------------------------------------------------


@pytest.mark.parametrize("text, shape, stride, swizzle, offset", [
    ("Sw<3,3,3> o _0 o ((_8,_8),(_8,_8)):((_64,_8),(_1,_512))", ((8, 8), (8, 8)), ((64, 8), (1, 512)),
     Swizzle(3, 3, 3), 0),
    ("Sw<3,4,3> o 32 o (8,64):(64,1)", (8, 64), (64, 1), Swizzle(3, 4, 3), 32),
    ("Swizzle<2,3,3> o (16,32):(32,1)", (16, 32), (32, 1), Swizzle(2, 3, 3), 0),
    ("SW_3_3_3 o 0 o (8, 64):(64, 1)", (8, 64), (64, 1), Swizzle(3, 3, 3), 0),  # pycute's str()
    ("(_4,_8)", (4, 8), (1, 4), None, 0),  # a shape alone: CuTe's compact column-major stride
    ("_32:_1", 32, 1, None, 0),
])
def test_printed_notation(text, shape, stride, swizzle, offset):
    layout = parse_layout(text)
    assert (layout.shape, layout.stride, layout.swizzle, layout.offset) == (shape, stride, swizzle, offset)
    assert parse_layout(str(layout)) == layout  # what it prints reads back the same


@pytest.mark.parametrize("text", ["", "(8,8):(1)", "(8,8):(8,1) junk", "Sw<3,3> o (8,8):(8,1)", "(8,8:(8,1)",
                                  "Sw<1,3,0> o (8,8):(8,1)", "Sw<3,3,3> o x o (8,8):(8,1)", "(0,8):(8,1)"])
def test_bad_notation_is_one_error(text):
    with pytest.raises(BankismError):
        parse_layout(text)


def test_the_issues_layout_evaluates_as_crd2idx():
    """Sw<3,3,3> o _0 o ((8,8),(8,8)):((64,8),(1,512)): the 1-D index of each mode is split over its
    leaves first-fastest, then the swizzle xors bits 6-8 of the offset into bits 3-5."""
    layout = lay("Sw<3,3,3> o _0 o ((8,8),(8,8)):((64,8),(1,512))")
    m, k = np.meshgrid(np.arange(64), np.arange(64), indexing="ij")
    plain = 64 * (m % 8) + 8 * (m // 8) + (k % 8) + 512 * (k // 8)
    assert np.array_equal(layout(m, k), plain ^ ((plain >> 3) & 0x38))
    assert layout.mode_sizes == (64, 64) and layout.cosize() == 4096


@pytest.mark.parametrize("text", ["(8,64):(64,1)", "((8,8),(8,8)):((64,8),(1,512))", "(4,(2,8)):(2,(1,16))",
                                  "Sw<3,3,3> o _0 o (64,64):(64,1)",
                                  "Sw<2,2,4> o _8 o (16,(4,4)):(16,(1,4))"])
def test_evaluation_agrees_with_pycute(text):
    pycute = pytest.importorskip("pycute", reason="pycute not installed (pip install 'bankism[cute]')")
    ours = lay(text)
    theirs = pycute.Layout(ours.shape, ours.stride)
    if ours.swizzle is not None:
        sw = ours.swizzle
        theirs = pycute.ComposedLayout(pycute.Swizzle(sw.bits, sw.base, sw.shift), ours.offset, theirs)
    index = np.arange(ours.size)
    assert ours(index).tolist() == [theirs(int(i)) for i in index]
    assert as_layout(theirs) == ours  # a pycute object is accepted as it is


@pytest.mark.parametrize("text, cotarget", [("(4,8):(1,4)", 128), ("(16,8):(8,1)", 512),
                                            ("(8,4):(4,64)", 1024), ("(2,2):(2,8)", 64)])
def test_complement_agrees_with_pycute(text, cotarget):
    pycute = pytest.importorskip("pycute", reason="pycute not installed (pip install 'bankism[cute]')")
    ours = complement(lay(text), cotarget)
    theirs = pycute.complement(pycute.Layout(lay(text).shape, lay(text).stride), cotarget)
    size = pycute.size(theirs)
    assert ours.size == size
    assert ours(np.arange(size)).tolist() == [theirs(i) for i in range(size)]


@pytest.mark.parametrize("thr, val", [("(16,8):(8,1)", "(1,8)"), ("(16,8):(1,16)", "(8,1)"),
                                      ("(32,4):(4,1)", "(1,4)"), ("(8,16):(1,8)", "(4,2)")])
def test_make_tiled_copy_agrees_with_pycute(thr, val):
    """raked_product(thr, val), right-inverted and shaped (threads, values), as CuTe's make_tiled_copy."""
    pycute = pytest.importorskip("pycute", reason="pycute not installed (pip install 'bankism[cute]')")
    copy = make_tiled_copy("u128", thr, val)
    a, b = lay(thr), lay(val)
    product = pycute.logical_product(pycute.Layout(a.shape, a.stride), pycute.Layout(b.shape, b.stride))
    inner, outer = product[1], product[0]
    raked = pycute.Layout(tuple((inner.shape[i], outer.shape[i]) for i in range(2)),
                          tuple((inner.stride[i], outer.stride[i]) for i in range(2)))
    inverse = pycute.right_inverse(raked)
    threads, values = copy.tv.shape
    assert copy.tiler == tuple(inner.shape[i] * outer.shape[i] for i in range(2))
    for t, v in itertools.product(range(threads), range(values)):
        assert copy.tv[t, v] == inverse(t + threads * v)


# --- copy atoms ----------------------------------------------------------------------------


def lanes_of(copy, bits=16):
    """(row, column) where each lane's first element lies, for a 16x16 tile (tile=0, atom=0)."""
    coords, _ = copy.smem_coordinates(bits)
    first = coords[:32, 0, 0]
    return [(int(i % 16), int(i // 16)) for i in first]


def test_ldmatrix_x4_of_the_mma_a_fragment_points_lane_l_at_row_l_mod_16():
    copy = tiled_copy("SM75_U32x4_LDSM_N", A_TV, (16, 16))
    assert lanes_of(copy) == [(lane % 16, 8 * (lane // 16)) for lane in range(32)]


def test_ldmatrix_trans_reads_rows_of_k_for_the_b_operand():
    """U16x8_LDSM_T on the (N,K) B tile: lane l's 16-byte row is n = 8*(l//16) ... +7 at k = l % 16."""
    copy = tiled_copy("ldmatrix.x4.trans", B_TV, (16, 16))
    coords, per = copy.smem_coordinates(16)
    assert per == 8
    for lane in range(32):
        values = coords[lane, 0]
        assert [int(i // 16) for i in values] == [lane % 16] * 8  # one k
        assert [int(i % 16) for i in values] == list(range(8 * (lane // 16), 8 * (lane // 16) + 8))


def test_stmatrix_writes_where_ldmatrix_reads():
    """STSM's shared side is LDSM's (copy_traits_sm90.hpp swaps them): same TV, same addresses."""
    for load, store in (("ldmatrix.x4", "stmatrix.x4"), ("ldmatrix.x2.trans", "stmatrix.x2.trans")):
        tv = A_TV if "trans" not in load else "((4,8),(2,2)):((32,1),(16,8))"
        tile = (16, 16) if "trans" not in load else (16, 8)
        a, b = tiled_copy(load, tv, tile), tiled_copy(store, tv, tile)
        assert np.array_equal(a.smem_coordinates(16)[0], b.smem_coordinates(16)[0])


def test_cp_async_tiled_copy_places_16_bytes_per_thread():
    copy = make_tiled_copy("cp.async.16", "(16,8):(8,1)", "(1,8)")
    assert copy.tiler == (16, 64) and copy.atom.op == "ldgsts"
    coords, per = copy.smem_coordinates(16)
    assert per == 8
    rows, cols = coords[:, 0, 0] % 16, coords[:, 0, 0] // 16
    assert rows.tolist() == [t // 8 for t in range(128)]
    assert cols.tolist() == [8 * (t % 8) for t in range(128)]


@pytest.mark.parametrize("name, op, width", [("u32", "load", 4), ("u64", "load", 8), ("u128", "load", 16),
                                             ("cp.async.4", "ldgsts", 4), ("cp.async.8", "ldgsts", 8),
                                             ("UniversalCopy<uint64_t>", "load", 8)])
def test_universal_and_cp_async_atoms(name, op, width):
    atom = copy_atom(name)
    assert atom.op == op and atom.threads == 1
    assert atom.bits(atom.smem).mode(1)[0] == 8 * width


@pytest.mark.parametrize("name", ["ldmatrix.x3", "cp.async.2", "UniversalCopy<float>",
                                  "SM80_CP_ASYNC_CACHEALWAYS<uint16_t>"])
def test_unknown_atoms_are_refused(name):
    with pytest.raises(BankismError):
        copy_atom(name)


# --- checks and fixes: the worked answers of docs/layouts.md ------------------------------


def lds(tv=A_TV, name="ldmatrix.x4"):
    return tiled_copy(name, tv, (16, 16))


@pytest.mark.parametrize("layout, copy, wavefronts, ideal", [
    ("(64,64):(64,1)", "ldmatrix.x4", 512, 64),  # rows of 128 B: every matrix's 8 rows in the same banks
    ("Sw<3,3,3> o _0 o (64,64):(64,1)", "ldmatrix.x4", 64, 64),
    ("Sw<3,3,3> o _0 o (128,32):(1,128)", "ldmatrix.x4.trans", 128, 64),  # 256-byte rows: rows r, r+4 collide
    ("Sw<3,3,4> o _0 o (128,32):(1,128)", "ldmatrix.x4.trans", 64, 64),
    ("Sw<3,3,4> o _0 o (64,32):(1,64)", "ldmatrix.x4.trans", 64, 32),  # 128-byte rows: rows 2i, 2i+1 collide
    ("Sw<3,3,3> o _0 o (64,32):(1,64)", "ldmatrix.x4.trans", 32, 32),
])
def test_swizzles_under_ldmatrix(layout, copy, wavefronts, ideal):
    result = check_layout(layout, "half", lds(B_TV if "trans" in copy else A_TV, copy))
    assert (result.report.wavefronts, result.report.ideal) == (wavefronts, ideal)


def test_the_swizzle_for_the_row_length_is_the_fix():
    """A .trans read walks down the rows of the (N,K) tile: the swizzle's shift must reach the row bits,
    2^(M+S) = the row length in elements (Sw<3,3,4> for 128 halves, Sw<3,3,3> for 64)."""
    wide = check_layout("Sw<3,3,3> o _0 o (128,32):(1,128)", "half", lds(B_TV, "ldmatrix.x4.trans"))
    best = wide.fixes()[0]
    assert str(best.layout) == "Sw<3,3,4> o _0 o (128,32):(1,128)"
    assert best.excess == 0 and best.extra_bytes == 0
    narrow = check_layout("Sw<3,3,4> o _0 o (64,32):(1,64)", "half", lds(B_TV, "ldmatrix.x4.trans"))
    assert str(narrow.fixes()[0].layout) == "Sw<3,3,3> o _0 o (64,32):(1,64)"


def test_padding_fix_costs_memory():
    result = check_layout("(64,64):(64,1)", "half", lds())
    pads = [f for f in result.fixes(5) if f.kind == "pad"]
    assert pads and str(pads[0].layout) == "(64,64):(72,1)"  # 8 halves: the 16-byte rows stay aligned
    assert pads[0].excess == 0 and pads[0].extra_bytes == (63 * 72 + 64 - 4096) * 2


def test_the_fill_and_the_read_together():
    fill = make_tiled_copy("cp.async.16", "(16,8):(8,1)", "(1,8)")
    result = check_layout("Sw<3,3,3> o _0 o (64,64):(64,1)", "half", [fill, lds()])
    assert [s.conflicts for s in result.report.sites] == [0, 0]
    assert [s.instructions for s in result.report.sites] == [16, 16]  # 4 warps x 4 tiles; 16 blocks


def test_a_swizzle_that_splits_a_vector_is_refused():
    with pytest.raises(BankismError, match="not contiguous"):
        check_layout("Sw<3,2,3> o _0 o (64,64):(64,1)", "half", lds())


def test_a_tile_that_does_not_divide_the_layout_is_refused():
    with pytest.raises(BankismError, match="multiples"):
        check_layout("(24,64):(64,1)", "half", lds())
