"""Triton shared encodings: the swizzle formula against Triton's basis construction, TTGIR reading,
the modelled accesses, and the worked answers of docs/layouts.md (stores from a blocked layout,
ldmatrix reads of a dot operand, and the vec/perPhase/maxPhase that fixes them)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from bankism.errors import BankismError
from bankism.review.triton_shared import (
    Blocked,
    SharedEncoding,
    blocked_accesses,
    check_encoding,
    dot_operand_reads,
    parse_encoding,
)
from bankism.review.ttgir import shared_tiles

COLUMN_STRIPS = "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>"  # noqa: E501
ROW_RUNS = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"  # noqa: E501


def swizzled(vec, per_phase, max_phase, order=(1, 0)):
    return SharedEncoding(vec, per_phase, max_phase, order)


def basis_offsets(shape, vec, per_phase, max_phase):
    """Triton's swizzledSharedToLinearLayout, as its source builds it: an offset's column bits map to
    columns, its row bit 2^j to (2^j, (vec * ((2^j / perPhase) % maxPhase)) % cols), combined by XOR;
    inverted here by brute force to give each (row, col)'s offset."""
    rows, cols = shape
    col_bits, row_bits = cols.bit_length() - 1, rows.bit_length() - 1
    bases = [(0, 1 << b) for b in range(col_bits)]
    bases += [(1 << j, (vec * (((1 << j) // per_phase) % max_phase)) % cols) for j in range(row_bits)]
    where = np.zeros(shape, np.int64)
    for offset in range(rows * cols):
        r = c = 0
        for bit, (br, bc) in enumerate(bases):
            if offset >> bit & 1:
                r ^= br
                c ^= bc
        where[r, c] = offset
    return where


@pytest.mark.parametrize("shape", [(64, 64), (32, 128), (16, 32)])
@pytest.mark.parametrize("vec, per_phase, max_phase", [(8, 1, 8), (8, 2, 4), (4, 4, 2), (1, 1, 1), (8, 8, 8),
                                                       (4, 1, 16), (2, 2, 8)])
def test_closed_form_is_trions_linear_layout(shape, vec, per_phase, max_phase):
    rows, cols = np.indices(shape)
    ours = swizzled(vec, per_phase, max_phase).offsets(shape, 2, rows, cols)
    assert np.array_equal(ours, basis_offsets(shape, vec, per_phase, max_phase))


def test_order_0_1_swaps_the_roles():
    rows, cols = np.indices((32, 64))
    ours = swizzled(8, 1, 8, (0, 1)).offsets((32, 64), 2, rows, cols)
    assert np.array_equal(ours, basis_offsets((64, 32), 8, 1, 8).T)


@pytest.mark.parametrize("swizzle, vec, per_phase, max_phase", [(128, 8, 1, 8), (64, 8, 2, 4), (32, 8, 4, 2)])
def test_nvmma_parameters_as_triton_derives_them(swizzle, vec, per_phase, max_phase):
    encoding = parse_encoding(f"#ttg.nvmma_shared<{{swizzlingByteWidth = {swizzle}, transposed = false, "
                              "elementBitWidth = 16}>")
    assert (encoding.vec, encoding.per_phase, encoding.max_phase) == (vec, per_phase, max_phase)


def test_nvmma_tiles_the_columns_in_swizzle_wide_blocks():
    """A 128-byte NVMMA tile of 64x128 halves: columns 0-63 of every row first, then columns 64-127."""
    encoding = SharedEncoding.nvmma(128, 16)
    rows, cols = np.indices((64, 128))
    offsets = encoding.offsets((64, 128), 2, rows, cols)
    assert offsets[:, :64].max() == 64 * 64 - 1 and offsets[:, 64:].min() == 64 * 64
    assert np.array_equal(offsets[:, :64], swizzled(8, 1, 8).offsets((64, 64), 2, rows[:, :64], cols[:, :64]))


def test_ttgir_in_both_spellings():
    for p in ("ttg", "triton_gpu"):
        attribute = "swizzled_shared" if p == "ttg" else "shared"
        memdesc = f"!{p}.memdesc<64x64xf16, #shared, #smem, mutable>"
        dot = f"#{p}.dot_op<{{opIdx = 0, parent = #mma, kWidth = 2}}>"
        text = "\n".join([
            f"#blocked = {COLUMN_STRIPS.replace('#ttg.', f'#{p}.')}",
            f"#mma = #{p}.nvidia_mma<{{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1]}}>",
            f"#shared = #{p}.{attribute}<{{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}}>",
            f"  %0 = {p}.local_alloc : () -> !{p}.memdesc<2x64x64xf16, #shared, #smem, mutable>",
            f"  {p}.local_store %1, %2 : tensor<64x64xf16, #blocked> -> {memdesc}",
            f"  %3 = {p}.local_load %2 : {memdesc} -> tensor<64x64xf16, {dot}>",
        ])
        tiles = shared_tiles(text)
        expected = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"
        assert [(t.shape, t.dtype, str(t.encoding)) for t in tiles] == [((64, 64), "float16", expected)]
        assert [a.op for a in tiles[0].accesses] == ["store", "ldmatrix"]


@pytest.mark.parametrize("text", ["#ttg.swizzled_shared<{vec = 3, perPhase = 1, maxPhase = 8, order = [1, 0]}>",  # noqa: E501
                                  "#ttg.swizzled_shared<{vec = 8, perPhase = 1, order = [1, 0]}>",
                                  "#ttg.nvmma_shared<{swizzlingByteWidth = 96, transposed = false}>",
                                  "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 4], warpsPerCTA = [4, 1], order = [1, 0]}>",  # noqa: E501
                                  "nothing here"])
def test_bad_encodings_are_refused(text):
    with pytest.raises(BankismError):
        parse_encoding(text)


def test_blocked_stores_follow_the_register_layout():
    """sizePerThread [8,1], order [0,1]: lane l holds rows 8*(l%8)..+7 of column l//8 (+4 per warp);
    not contiguous in an order-[1,0] tile, so each register is its own 2-byte store."""
    access = blocked_accesses((64, 64), parse_encoding(COLUMN_STRIPS), swizzled(8, 1, 8), 2)
    rows, cols = access.coords
    assert access.width_elements == 1 and access.instructions == 4 * 8 * 4  # repeats x registers x warps
    lane = np.arange(32)
    assert rows[0].tolist() == (8 * (lane % 8)).tolist() and cols[0].tolist() == (lane // 8).tolist()
    vectors = blocked_accesses((64, 64), parse_encoding(ROW_RUNS), swizzled(8, 1, 8), 2)
    assert vectors.width_elements == 8 and vectors.instructions == 16


def test_dot_operand_reads_cover_every_block_once():
    access = dot_operand_reads((64, 64), swizzled(8, 1, 8), 2)
    rows, cols = access.coords
    starts = {(int(r), int(c)) for r, c in zip(rows[:, 0], cols[:, 0], strict=True)}
    assert starts == set(itertools.product(range(0, 64, 16), range(0, 64, 16)))


# --- the worked answers ---------------------------------------------------------------------


def costs(encoding, blocked=COLUMN_STRIPS):
    result = check_encoding((64, 64), "half", encoding, blocked=parse_encoding(blocked))
    return [(s.wavefronts, s.ideal) for s in result.report.sites], result


def test_the_dot_operand_swizzle_conflicts_on_column_stores():
    """vec=8, perPhase=1, maxPhase=8 (what Triton picks for a K-contiguous fp16 operand): a thread's 8
    registers run down a column, rows 8 apart share r % 8, hence the phase: 8-way store conflicts,
    while the ldmatrix reads are conflict-free."""
    (store, read), _ = costs(swizzled(8, 1, 8))
    assert store == (1024, 128) and read == (64, 64)


def test_a_phase_from_the_high_row_bits_fixes_the_stores_and_breaks_the_reads():
    (store, read), _ = costs(swizzled(8, 8, 8))
    assert store == (128, 128) and read == (512, 64)


def test_no_single_swizzle_serves_both_and_the_advisor_says_what_is_best():
    _, result = costs(swizzled(8, 1, 8))
    fixes = result.fixes(3)
    assert fixes and fixes[0].excess == min(f.excess for f in fixes) < result.report.conflicts
    assert all(f.excess > 0 for f in fixes)  # no vec/perPhase/maxPhase reaches the ideal on both


def test_row_runs_need_the_swizzle_and_get_it_for_free():
    """sizePerThread [1,8] rows stored as 16-byte vectors: an unswizzled tile is 8-way on ldmatrix;
    vec=8, perPhase=1, maxPhase=8 brings stores and reads to their ideal."""
    (store, read), result = costs(swizzled(1, 1, 1), ROW_RUNS)
    assert store == (64, 64) and read == (512, 64)
    best = result.fixes(1)[0]
    assert (best.encoding.vec, best.encoding.per_phase, best.encoding.max_phase, best.excess) == (8, 1, 8, 0)


def test_a_blocked_layout_of_the_wrong_rank_is_refused():
    with pytest.raises(BankismError):
        blocked_accesses((64, 64, 2), parse_encoding(ROW_RUNS), swizzled(8, 1, 8), 2)


def test_a_shape_ldmatrix_cannot_cover_is_refused():
    with pytest.raises(BankismError):
        dot_operand_reads((24, 64), swizzled(8, 1, 8), 2)


def test_blocked_rank_checks():
    with pytest.raises(BankismError):
        Blocked((1, 8), (4, 8), (4, 1), (0,))
