"""Kernels like the quiz but different: element types, tile sizes, paddings, block indices,
iterations, a 32x32 transpose, a register-tiled float4 SGEMM with a transposed store of A,
a reduction with divergent lanes and dynamic shared memory. Every count is checked against
the engine on addresses computed here from the kernel's indexing."""

from __future__ import annotations

import numpy as np
import pytest

from tests.test_explain_support import BASE, align, check_site, run, site

# Site expressions are shown as the compiler sees them: macros expanded (TILE -> 32).

LANES = np.arange(32)
SIZES = {"float": 4, "double": 8, "half": 2}


def _tiled_expected(tile: int, pad: int, size: int, n: int, which: str) -> dict[int, np.ndarray]:
    row_bytes = (tile + pad) * size
    a_base = BASE
    b_base = align(BASE + tile * row_bytes, size)
    expected = {}
    for warp in range(tile * tile // 32):
        thread = warp * 32 + LANES
        tx, ty = thread % tile, thread // tile
        rows = []
        for _t in range(n // tile):
            if which == "As_store":
                rows.append(a_base + ty * row_bytes + tx * size)
            elif which == "Bs_store":
                rows.append(b_base + ty * row_bytes + tx * size)
            else:
                for k in range(tile):
                    if which == "As_load":
                        rows.append(a_base + ty * row_bytes + k * size)
                    else:
                        rows.append(b_base + k * row_bytes + tx * size)
        expected[warp] = np.array(rows)
    return expected


@pytest.mark.parametrize("real", ["float", "double", "half"])
@pytest.mark.parametrize(("tile", "pad"), [(16, 0), (16, 1), (32, 0), (32, 1)])
def test_tiled_matmul_variants(real, tile, pad):
    n = 128
    report = run("tiled_matmul.cu", defines={"REAL": real, "TILE": str(tile), "PAD": str(pad), "N": str(n)})
    size = SIZES[real]
    assert report["launch"]["block"] == [tile, tile, 1]
    assert [a["shape"] for a in report["shared_arrays"]] == [[tile, tile + pad]] * 2
    for line, array, op, which in ((22, "As", "store", "As_store"), (23, "Bs", "store", "Bs_store"),
                                   (26, "As", "load", "As_load"), (26, "Bs", "load", "Bs_load")):
        found = site(report, line, array, op)
        assert found["dtype"] == {"half": "__half"}.get(real, real)
        check_site(found, _tiled_expected(tile, pad, size, n, which), size, op)


def test_other_block_and_iteration_snapshot_of_the_float_variant():
    tile, n = 32, 128
    report = run("tiled_matmul.cu", snapshot=(23, {"t": 2}), block_indices=[(3, 1, 0)],
                 defines={"REAL": "float", "TILE": str(tile), "PAD": "1", "N": str(n)})
    cells = report["snapshot"]["arrays"]["Bs"]["cells"]
    base = report["snapshot"]["arrays"]["Bs"]["base_offset"]
    assert base == BASE + tile * (tile + 1) * 4
    for cell in cells:
        r, c = cell["index"]
        if c == tile:
            assert cell["source"] is None  # the padding column is never written
            continue
        assert cell["source"] == f"B[{(2 * tile + r) * n + 3 * tile + c}]"
        assert cell["byte_offset"] == base + (r * (tile + 1) + c) * 4
        assert cell["banks"] == [(cell["byte_offset"] // 4) % 32]


@pytest.mark.parametrize("pad", [0, 1])
def test_transpose_with_and_without_padding(pad):
    report = run("transpose.cu", defines={"PAD": str(pad)})
    assert report["launch"]["grid"] == [32, 32, 1] and report["launch"]["block"] == [32, 8, 1]
    assert report["launch"]["parameters"] == {"width": 1024, "height": 1024}
    row = 32 + pad
    store = {w: np.array([BASE + ((w + j) * row + LANES) * 4 for j in range(0, 32, 8)]) for w in range(8)}
    load = {w: np.array([BASE + (LANES * row + w + j) * 4 for j in range(0, 32, 8)]) for w in range(8)}
    check_site(site(report, 15, "tile", "store"), store, 4, "store")
    found = site(report, 23, "tile", "load")
    check_site(found, load, 4, "load")
    assert (found["conflicts"] == 0) == (pad == 1)


def test_register_tiled_sgemm_transposed_store_and_float4_loads():
    bm = bn = 128
    bk, tm, tn, k = 8, 8, 8, 32
    report = run("sgemm_vectorized.cu", defines={"M": "256", "N": "256", "K": str(k)})
    assert report["launch"]["template"] == {"BM": bm, "BN": bn, "BK": bk, "TM": tm, "TN": tn}
    assert report["launch"]["block"] == [256, 1, 1] and report["launch"]["grid"] == [2, 2, 1]
    as_base, bs_base = BASE, BASE + bm * bk * 4
    steps = k // bk
    for c, line in enumerate(range(37, 41)):
        expected = {}
        for warp in range(8):
            tid = warp * 32 + LANES
            expected[warp] = np.tile(as_base + (((tid % 2) * 4 + c) * bm + tid // 2) * 4, (steps, 1))
        check_site(site(report, line, "As", "store"), expected, 4, "store")
    expected = {w: np.tile(bs_base + (((w * 32 + LANES) // 32) * bn + ((w * 32 + LANES) % 32) * 4) * 4,
                           (steps, 1)) for w in range(8)}
    check_site(site(report, 42, "Bs", "store"), expected, 16, "store")
    for line, array, base, index in ((51, "As", as_base, lambda tid: (tid // (bn // tn)) * tm),
                                     (54, "Bs", bs_base, lambda tid: (tid % (bn // tn)) * tn)):
        expected = {}
        for warp in range(8):
            tid = warp * 32 + LANES
            expected[warp] = np.array([base + (dot * bm + index(tid) + i) * 4
                                       for _ in range(steps) for dot in range(bk) for i in range(tm)])
        check_site(site(report, line, array, "load"), expected, 4, "load")


def test_reduction_only_running_lanes_issue():
    report = run("reduction.cu")
    tid = np.arange(256)
    strides = [128, 64]
    loads = {}
    for s in strides:
        for warp in range(s // 32):
            loads.setdefault(warp, []).append(BASE + (tid[warp * 32:(warp + 1) * 32] + s) * 4)
    expected = {w: np.array(rows) for w, rows in loads.items()}
    check_site(_by_expression(report, "partial[tid + s]"), expected, 4, "load")
    assert _by_expression(report, "partial[tid]", "store", 21)["instructions"] == 6  # 4 warps + 2 warps
    assert _by_expression(report, "partial[tid + 32]")["instructions"] == 1


def _by_expression(report: dict, expression: str, op: str = "load", line: int | None = None) -> dict:
    found = [s for s in report["sites"] if s["expression"] == expression and s["op"] == op
             and (line is None or s["line"] == line)]
    assert len(found) == 1
    return found[0]


def test_dynamic_shared_memory_carved_through_pointers():
    report = run("dynamic_smem.cu")
    tile = 32
    assert report["launch"]["dynamic_shared_bytes"] == (tile * tile + 2 * tile) * 4
    (array,) = report["shared_arrays"]
    assert array["extern"] and array["base_offset"] == BASE
    second = BASE + tile * tile * 4
    first_store = {0: np.array([BASE + (r * tile + LANES) * 4 for r in range(tile)])}
    check_site(_by_expression(report, "first[r * 32 + t]", "store"), first_store, 4, "store")
    check_site(_by_expression(report, "second[t]", "store"), {0: (second + LANES * 8)[None]}, 8, "store")
    check_site(_by_expression(report, "second[(t * 2) % 32]"),
               {0: (second + ((LANES * 2) % tile) * 8)[None]}, 8, "load")
    check_site(_by_expression(report, "first[t * 32]"), {0: (BASE + LANES * tile * 4)[None]}, 4, "load")


def test_several_blocks_are_all_counted():
    report = run("tiled_matmul.cu", block_indices=[(0, 0, 0), (2, 1, 0)], defines={"N": "64"})
    found = site(report, 26, "As", "load")
    assert found["instructions"] == 2 * 8 * (64 // 16) * 16
    assert {tuple(w["block"]) for w in found["warps"]} == {(0, 0, 0), (2, 1, 0)}
