"""`bankism layout` and the layout/Triton helpers on bad input: one `error:` line (exit code 2) or one
BankismError, refused before any large table is built (the monkeypatched builders below fail the test
if the work starts)."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest

from bankism.arch import LANES, MAX_THREADS_PER_BLOCK
from bankism.errors import BankismError
from bankism.review import cute_copy, triton_shared
from bankism.review.cute import CuteLayout, parse_layout
from bankism.review.cute_copy import make_tiled_copy, tiled_copy
from bankism.review.layout import Swizzle
from bankism.review.triton_shared import Blocked, SharedEncoding, check_encoding, parse_encoding
from bankism.review.ttgir import shared_tiles
from tests.helpers import one_line_error, run_cli

SHARED = "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>"


def _blocked(size="[8, 1]", threads="[8, 4]", warps="[1, 4]", order="[0, 1]") -> str:
    return (f"#ttg.blocked<{{sizePerThread = {size}, threadsPerWarp = {threads}, warpsPerCTA = {warps}, "
            f"order = {order}}}>")


def _nvmma(width="128", bits="16") -> str:
    return (f"#ttg.nvmma_shared<{{swizzlingByteWidth = {width}, transposed = false, "
            f"elementBitWidth = {bits}}}>")


def _no_work(*_args, **_kwargs):
    raise AssertionError("the bad input reached the work it should have been refused before")


# ---------------------------------------------------------------------------------------------
# 1. Numeric attributes that must be positive
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("args", "attribute"), [
    (("--triton", _nvmma(bits="0"), "--shape", "64,64"), "elementBitWidth"),
    (("--triton", _nvmma(bits="-16"), "--shape", "64,64"), "elementBitWidth"),
    (("--triton", _nvmma(bits="3"), "--shape", "64,64"), "elementBitWidth"),
    (("--triton", _nvmma(width="-128"), "--shape", "64,64"), "swizzlingByteWidth"),
    (("--triton", _nvmma(width="x"), "--shape", "64,64"), "swizzlingByteWidth"),
    (("--triton", SHARED.replace("vec = 8", "vec = 0"), "--shape", "64,64"), "vec"),
    (("--triton", SHARED.replace("vec = 8", "vec = x"), "--shape", "64,64"), "vec"),
    (("--triton", SHARED.replace("perPhase = 1", "perPhase = -1"), "--shape", "64,64"), "perPhase"),
    (("--triton", SHARED.replace("maxPhase = 8", "maxPhase = 0"), "--shape", "64,64"), "maxPhase"),
    (("--triton", SHARED, "--shape", "64,64", "--blocked", _blocked(size="[0, 1]")), "sizePerThread"),
    (("--triton", SHARED, "--shape", "64,64", "--blocked", _blocked(threads="[-8, -4]")), "threadsPerWarp"),
    (("--triton", SHARED, "--shape", "64,64", "--blocked", _blocked(warps="[0, 4]")), "warpsPerCTA"),
    (("--triton", SHARED, "--shape", "0,64"), "--shape"),
    (("--triton", SHARED, "--shape", "64"), "tile shape [64]"),
])
def test_impossible_attribute_is_one_line_naming_it(args, attribute):
    assert attribute in one_line_error(run_cli("layout", *args))


def test_huge_size_per_thread_is_refused_before_the_loops(monkeypatch):
    monkeypatch.setattr(triton_shared, "_unravel", _no_work)
    line = one_line_error(run_cli("layout", "--triton", SHARED, "--shape", "64,64", "--blocked",
                                  _blocked(size="[100000, 100000]")))
    assert "elements" in line


def test_api_refuses_impossible_encodings():
    with pytest.raises(BankismError, match="elementBitWidth"):
        SharedEncoding.nvmma(128, 0)
    with pytest.raises(BankismError, match="sizePerThread"):
        Blocked((0, 1), (8, 4), (1, 4), (0, 1))
    with pytest.raises(BankismError, match="maxPhase"):
        SharedEncoding(8, 1, 1 << 40, (1, 0))
    with pytest.raises(BankismError, match="tile shape"):
        check_encoding((64,), "half", parse_encoding(SHARED))


# ---------------------------------------------------------------------------------------------
# 2. --ttgir reads through bankism.inputs
# ---------------------------------------------------------------------------------------------


def test_ttgir_fifo_is_refused_without_waiting(tmp_path):
    fifo = tmp_path / "kernel.ttgir"
    os.mkfifo(fifo)

    def writer() -> None:  # lets the old blocking read finish (empty) instead of hanging the test
        with open(fifo, "w"):
            pass

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    try:
        line = one_line_error(run_cli("layout", "--ttgir", fifo))
    finally:
        release = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a writer still waiting opens now
        thread.join(5)
        os.close(release)
    assert "FIFO" in line


def test_ttgir_over_the_size_cap_is_refused(tmp_path):
    source = tmp_path / "kernel.ttgir"
    source.write_text("// padding\n" * 200)
    line = one_line_error(run_cli("layout", "--ttgir", source, env={"BANKISM_LIMITS": "source=1K"}))
    assert "over the source limit" in line


def test_ttgir_impossible_tile_names_the_line():
    text = "\n".join([f"#blocked = {_blocked()}", f"#shared = {SHARED}",
                      "%a = ttg.local_alloc %x : (tensor<0x64xf16, #blocked>) -> "
                      "!ttg.memdesc<0x64xf16, #shared, #smem>"])
    with pytest.raises(BankismError, match="TTGIR line 3: tile shape"):
        shared_tiles(text)
    with pytest.raises(BankismError, match="TTGIR line 3: .*elements"):
        shared_tiles(text.replace("0x64", "99999999x99999"))


# ---------------------------------------------------------------------------------------------
# 3. Copies: threads and tile checked before anything is built
# ---------------------------------------------------------------------------------------------


def test_copy_with_too_many_threads_is_refused_before_building(monkeypatch):
    monkeypatch.setattr(cute_copy, "complement", _no_work)
    monkeypatch.setattr(cute_copy, "_table", _no_work)
    line = one_line_error(run_cli("layout", "(64,64):(64,1)", "--copy",
                                  "u128 thr=(4096,4096):(4096,1) val=(1,8)"))
    assert "16,777,216 threads" in line and str(MAX_THREADS_PER_BLOCK) in line
    line = one_line_error(run_cli("layout", "(64,64):(64,1)", "--copy",
                                  "u128 tv=(1048576,8):(8,1) tile=64,64"))
    assert "1,048,576 threads" in line


def test_copy_tile_against_the_layout_is_checked_before_building(monkeypatch):
    monkeypatch.setattr(cute_copy, "complement", _no_work)
    line = one_line_error(run_cli("layout", "(64,64):(64,1)", "--copy", "u128 thr=(32,4):(4,1) val=(3,8)"))
    assert "not multiples of the tile (96,32)" in line


def test_copy_api_refuses_before_building(monkeypatch):
    monkeypatch.setattr(cute_copy, "complement", _no_work)
    monkeypatch.setattr(cute_copy, "_table", _no_work)
    with pytest.raises(BankismError, match="threads"):
        make_tiled_copy("u128", f"({MAX_THREADS_PER_BLOCK},2):(2,1)", "(1,8)")
    with pytest.raises(BankismError, match="tile"):
        tiled_copy("u128", f"({LANES},8):(8,1)", (0, 64))
    with pytest.raises(BankismError, match="elements"):
        tiled_copy("u128", f"({LANES},8):(8,1)", (1 << 20, 1 << 20))


def test_layout_size_and_nesting_are_bounded():
    with pytest.raises(BankismError, match="past 2"):
        parse_layout(f"(64,64):({1 << 62},1)")
    with pytest.raises(BankismError, match="nested"):
        parse_layout("(" * 5000 + "1" + ")" * 5000)
    with pytest.raises(BankismError, match="not an integer"):
        CuteLayout(("a", 2), (1, 1))
    assert CuteLayout((1 << 40,), (0,)).cosize() == 1  # no table of 2^40 coordinates


# ---------------------------------------------------------------------------------------------
# 4. A blocked layout's CTA must be a block
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("threads", "warps", "message"), [
    ("[8, 4]", "[1, 100000]", "3,200,000 threads"),
    ("[8, 8]", "[1, 4]", f"multiply to the {LANES} lanes"),
])
def test_impossible_cta_is_refused_before_any_work(monkeypatch, threads, warps, message):
    monkeypatch.setattr(triton_shared, "_unravel", _no_work)
    line = one_line_error(run_cli("layout", "--triton", SHARED, "--shape", "64,64", "--blocked",
                                  _blocked(threads=threads, warps=warps)))
    assert message in line


def test_blocked_api_refuses_a_cta_past_a_block():
    warps = MAX_THREADS_PER_BLOCK // LANES * 2
    with pytest.raises(BankismError, match=f"at most {MAX_THREADS_PER_BLOCK}"):
        Blocked((8, 1), (8, 4), (1, warps), (0, 1))


# ---------------------------------------------------------------------------------------------
# 5. Swizzle offsets
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("offset", ["abc", -5, 3.0, None, True, np.array([0, -1]), np.array([1.5]),
                                    [[1], [1, 2]]])
def test_swizzle_refuses_a_negative_or_non_integer_offset(offset):
    with pytest.raises(BankismError, match="Swizzle<3,3,3>: offset"):
        Swizzle(3, 3, 3)(offset)


def test_swizzle_still_swizzles():
    assert Swizzle(3, 3, 3)(8 * 8 + 1) == 8 * 8 + 1 ^ 8
    assert Swizzle(3, 3, 3)(np.array([0, 72])).tolist() == [0, 72 ^ 8]
