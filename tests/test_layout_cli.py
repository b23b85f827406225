"""`bankism layout` in-process: CuTe layouts with tiled copies, Triton encodings (numbers and TTGIR),
JSON, HTML, and bad input as one error line."""

from __future__ import annotations

import json

import pytest

from tests.helpers import one_line_error, run_cli

LDSM_T = "ldmatrix.x4.trans tv=((4,8),(2,2,2)):((32,1),(16,128,8)) tile=16,16"
FILL_B = "cp.async.16 thr=(16,8):(1,16) val=(8,1)"
SHARED = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"
COLUMNS = ("#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], "
           "order = [0, 1]}>")


def test_cute_layout_text_names_the_conflict_and_the_fix():
    ran = run_cli("layout", "Sw<3,3,3> o _0 o (128,32):(1,128)", "--copy", LDSM_T, "--copy", FILL_B,
                  "--name", "sB")
    assert ran.returncode == 0, ran.stderr
    assert "64 excess wavefront(s) (192 where 128 would do)" in ran.stdout
    fix = "Sw<3,3,4> o _0 o (128,32):(1,128)  (swizzle, no extra memory): every copy at its ideal"
    assert fix in ran.stdout
    assert "(128,32):(1,136)  (pad, +496 B of shared memory)" in ran.stdout


def test_cute_layout_json():
    ran = run_cli("layout", "Sw<3,3,4> o _0 o (128,32):(1,128)", "--copy", LDSM_T, "--json")
    data = json.loads(ran.stdout)
    check = data["checks"][0]
    assert data["format"] == "bankism-layout" and check["kind"] == "cute"
    assert (check["wavefronts"], check["ideal"], check["conflicts"]) == (64, 64, 0)
    assert check["cosize_bytes"] == 8192 and check["fixes"] == []  # nothing cheaper than free


def test_triton_encoding_with_blocked_stores():
    ran = run_cli("layout", "--triton", SHARED, "--shape", "64,64", "--blocked", COLUMNS, "--json")
    check = json.loads(ran.stdout)["checks"][0]
    assert [(s["op"], s["wavefronts"], s["ideal"]) for s in check["sites"]] == [
        ("store", 1024, 128), ("ldmatrix", 64, 64)]
    assert check["fixes"][0]["excess"] < check["conflicts"]


def test_ttgir_file(tmp_path):
    source = tmp_path / "kernel.ttgir"
    source.write_text("\n".join([
        f"#blocked = {COLUMNS}", f"#shared = {SHARED}",
        "%a = ttg.local_alloc %x : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared, #smem>",
        "%b = ttg.local_load %a : !ttg.memdesc<64x64xf16, #shared, #smem> -> tensor<64x64xf16, #linear>",
    ]))
    ran = run_cli("layout", "--ttgir", source, "--json")
    check = json.loads(ran.stdout)["checks"][0]
    assert [s["op"] for s in check["sites"]] == ["store"]
    assert check["not_modelled"] == ["line 4: local_load with tensor encoding #linear (not modelled)"]


def test_html_is_written(tmp_path):
    page = tmp_path / "layout.html"
    ran = run_cli("layout", "--triton", SHARED, "--shape", "64,64", "--html", page)
    assert ran.returncode == 0 and page.read_text().startswith("<!DOCTYPE html>")
    text = page.read_text().replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "<svg" in text and "http" not in text  # self-contained: nothing to fetch


@pytest.mark.parametrize("args, message", [
    ((), "give one of"),
    (("(64,64):(64,1)",), "at least one --copy"),
    (("(64,64):(64,1)", "--copy", "ldmatrix.x4"), "tv=... tile=..."),
    (("(64,64):(64,1)", "--copy", "ldmatrix.x5 tv=(32,8):(8,1) tile=16,16"), "unknown copy atom"),
    (("(64,64:(64,1)", "--copy", LDSM_T), "layout"),
    (("--triton", SHARED), "--shape"),
    (("--triton", COLUMNS, "--shape", "64,64"), "not a blocked one"),
    (("--triton", SHARED, "--shape", "64,x"), "--shape"),
    (("--ttgir", "/nonexistent.ttgir"), "cannot read"),
    (("(64,64):(64,1)", "--copy", LDSM_T, "--fixes", "-1"), "--fixes"),
])
def test_bad_input_is_one_error_line(args, message):
    assert message in one_line_error(run_cli("layout", *args))
