"""The shared quiz (dgemm_tile_quiz.cu): both questions answered from the source, checked
against the quiz's own index formulas and against the engine on independently computed
addresses."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import numpy as np
import pytest

from tests.test_explain_support import BASE, check_site, quiz_path, run, site

BLOCK, DIM, DOUBLE = 16, 256, 8


#: SHA-256 of ../shared/quiz/dgemm_tile_quiz.cu as handed out: the copy must be that file.
QUIZ_SHA256 = "b83f241b07cc18a4e1447bf0ff6b901fb2d9ee0f931c300c8c100e2280cc7c56"


def test_copy_in_tests_data_is_the_shared_quiz_unchanged():
    assert hashlib.sha256(quiz_path().read_bytes()).hexdigest() == QUIZ_SHA256


def test_launch_comes_from_the_file_scope_statement():
    report = run(quiz_path(), block_indices=[(1, 1, 0)])
    launch = report["launch"]
    assert launch["grid"] == [DIM // BLOCK, DIM // BLOCK, 1]
    assert launch["block"] == [BLOCK, BLOCK, 1]
    assert launch["from"] == "line 9"
    assert launch["blocks"] == [[1, 1, 0]]
    assert [(a["name"], a["base_offset"]) for a in report["shared_arrays"]] == [
        ("A_shared", BASE), ("B_shared", BASE + BLOCK * BLOCK * DOUBLE)]


@pytest.mark.parametrize(("block", "tile"), [((1, 1), 1), ((0, 0), 0), ((3, 2), 5), ((15, 15), 15)])
def test_question_1_snapshot_holds_the_elements_the_quiz_formula_names(block, tile):
    bx, by = block
    report = run(quiz_path(), snapshot=(34, {"tileNUM": tile}), block_indices=[(bx, by, 0)])
    arrays = report["snapshot"]["arrays"]
    assert report["snapshot"]["block"] == [bx, by, 0]
    for name, matrix, formula in (
        ("A_shared", "A_mat", lambda r, c: (by * BLOCK + r) * DIM + tile * BLOCK + c),  # row*DIM + j
        ("B_shared", "B_mat", lambda r, c: (tile * BLOCK + r) * DIM + bx * BLOCK + c),  # i*DIM + col
    ):
        array = arrays[name]
        base = array["base_offset"]
        assert array["shape"] == [BLOCK, BLOCK] and array["dtype"] == "double"
        assert len(array["cells"]) == BLOCK * BLOCK
        for cell in array["cells"]:
            r, c = cell["index"]
            assert cell["source"] == f"{matrix}[{formula(r, c)}]"
            offset = base + (r * BLOCK + c) * DOUBLE
            assert cell["byte_offset"] == offset
            assert cell["banks"] == sorted({(offset // 4) % 32, (offset // 4 + 1) % 32})


def test_question_1_block_1_1_tile_1_text_names_the_formula_and_offsets():
    from bankism.explain import render

    text = render(run(quiz_path(), snapshot=(34, {"tileNUM": 1}), block_indices=[(1, 1, 0)]))
    assert "A_shared[i][j] holds A_mat[4112 + 256*i + j]" in text
    assert "B_shared[i][j] holds B_mat[4112 + 256*i + j]" in text
    assert f"A_shared[i][j] is at byte {BASE} + 128*i + 8*j" in text


def _quiz_line_40(array: str) -> dict[int, np.ndarray]:
    """Addresses of line 40's reads, per warp, one row per (tile, k), from the quiz's indexing."""
    lanes = np.arange(32)
    expected = {}
    for warp in range(BLOCK * BLOCK // 32):
        thread = warp * 32 + lanes
        tx, ty = thread % BLOCK, thread // BLOCK
        rows = []
        for _tile in range(DIM // BLOCK):
            for k in range(BLOCK):
                if array == "A_shared":
                    rows.append(BASE + (ty * BLOCK + k) * DOUBLE)
                else:
                    rows.append(BASE + BLOCK * BLOCK * DOUBLE + (k * BLOCK + tx) * DOUBLE)
        expected[warp] = np.array(rows)
    return expected


@pytest.mark.parametrize("array", ["A_shared", "B_shared"])
def test_question_2_line_40_counts_equal_the_engine_on_the_quiz_addresses(array):
    report = run(quiz_path(), block_indices=[(1, 1, 0)])
    found = site(report, 40, array, "load")
    assert found["instructions"] == (BLOCK * BLOCK // 32) * (DIM // BLOCK) * BLOCK  # warps x tiles x k
    check_site(found, _quiz_line_40(array), DOUBLE, "load")
    assert found["verdict"]
    assert found["split"]["explanations"]


def test_question_2_lane_pattern_half_warps_read_one_row_each():
    report = run(quiz_path(), block_indices=[(1, 1, 0)])
    warp0 = site(report, 40, "A_shared", "load")["warps"][0]
    assert warp0["lane_elements"][:16] == ["A_shared[0][0]"] * 16
    assert warp0["lane_elements"][16:] == ["A_shared[1][0]"] * 16
    warp0 = site(report, 40, "B_shared", "load")["warps"][0]
    assert warp0["lane_elements"] == [f"B_shared[0][{c}]" for c in range(16)] * 2


def test_loads_and_stores_of_lines_33_34():
    report = run(quiz_path(), block_indices=[(1, 1, 0)])
    lanes = np.arange(32)
    for line, array, base in ((33, "A_shared", BASE), (34, "B_shared", BASE + 2048)):
        expected = {w: np.tile(base + (w * 32 + lanes) * DOUBLE, (DIM // BLOCK, 1)) for w in range(8)}
        check_site(site(report, line, array, "store"), expected, DOUBLE, "store")


def test_line_40_is_the_same_in_every_block():
    blocks = [(0, 0, 0), (7, 3, 0), (15, 15, 0)]
    report = run(quiz_path(), block_indices=blocks)
    one = run(quiz_path(), block_indices=[(1, 1, 0)])
    for array in ("A_shared", "B_shared"):
        both = site(report, 40, array, "load")
        single = site(one, 40, array, "load")
        for key in ("instructions", "wavefronts", "ideal", "conflicts"):
            assert both[key] == len(blocks) * single[key]


def test_cli_answers_both_questions():
    result = subprocess.run(
        [sys.executable, "-m", "bankism", "explain", str(quiz_path()), "--block-index", "1,1",
         "--snapshot", "34", "--when", "tileNUM=1"],
        capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "line 40: load A_shared[threadIdx.y][k]" in result.stdout
    assert "line 40: load B_shared[k][threadIdx.x]" in result.stdout
    assert "verdict:" in result.stdout
    assert "A_shared[i][j] holds A_mat[4112 + 256*i + j]" in result.stdout
