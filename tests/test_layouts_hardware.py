"""The worked answers of docs/layouts.md against the H100: hw/layouts/layouts.cu writes and reads CuTe-style
and Triton-style tiles exactly as the copies below describe them, and Nsight Compute measured every
launch (traces/layouts/layouts_report.csv, exported from layouts_report.ncu-rep by hw/layouts/run.sh).
Each kernel is one block; the predicted totals must equal the measured counters."""

from __future__ import annotations

import pytest

from bankism.capture.ncu import read_csv
from bankism.review.cute_check import check_layout
from bankism.review.cute_copy import make_tiled_copy, tiled_copy
from bankism.review.triton_shared import SharedEncoding, check_encoding, parse_encoding
from tests.helpers import ROOT

REPORT_CSV = ROOT / "traces" / "layouts" / "layouts_report.csv"
MEASURED = {launch.kernel: launch.counters() for launch in read_csv(REPORT_CSV)}

A_READ = ("ldmatrix.x4", "((4,8),(2,2,2)):((32,1),(16,8,128))")
B_READ = ("ldmatrix.x4.trans", "((4,8),(2,2,2)):((32,1),(16,128,8))")
COLUMN_STRIPS = parse_encoding("#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], "
                               "warpsPerCTA = [1, 4], order = [0, 1]}>")

#: kernel -> (layout, cp.async fill's thr and val layouts, the ldmatrix read)
CUTE = {
    "cute_a64_plain": ("(64,64):(64,1)", "(16,8):(8,1)", "(1,8)", A_READ),
    "cute_a64_sw333": ("Sw<3,3,3> o _0 o (64,64):(64,1)", "(16,8):(8,1)", "(1,8)", A_READ),
    "cute_b128_sw333_trans": ("Sw<3,3,3> o _0 o (128,32):(1,128)", "(16,8):(1,16)", "(8,1)", B_READ),
    "cute_b128_sw334_trans": ("Sw<3,3,4> o _0 o (128,32):(1,128)", "(16,8):(1,16)", "(8,1)", B_READ),
    "cute_b64_sw334_trans": ("Sw<3,3,4> o _0 o (64,32):(1,64)", "(8,16):(1,8)", "(8,1)", B_READ),
    "cute_b64_sw333_trans": ("Sw<3,3,3> o _0 o (64,32):(1,64)", "(8,16):(1,8)", "(8,1)", B_READ),
}

TRITON = {"triton_v8_p1_m8": (8, 1, 8), "triton_v8_p8_m8": (8, 8, 8), "triton_v8_p2_m4": (8, 2, 4),
          "triton_v1_p1_m1": (1, 1, 1)}


@pytest.mark.parametrize("kernel", list(CUTE))
def test_cute_tiles_as_measured(kernel):
    layout, thr, val, (atom, tv) = CUTE[kernel]
    fill = make_tiled_copy("cp.async.16", thr, val)
    result = check_layout(layout, "half", [fill, tiled_copy(atom, tv, (16, 16))])
    written, read = result.report.sites
    measured = MEASURED[kernel]
    assert (written.instructions, written.wavefronts, written.conflicts) == tuple(
        measured["ldgsts"][k] for k in ("instructions", "wavefronts", "conflicts"))
    # ldmatrix: ncu counts its wavefronts and conflicts under op_ld (its instructions only under op_ldsm)
    assert (read.wavefronts, read.conflicts) == (measured["ld"]["wavefronts"], measured["ld"]["conflicts"])


@pytest.mark.parametrize("kernel", list(TRITON))
def test_triton_tiles_as_measured(kernel):
    vec, per_phase, max_phase = TRITON[kernel]
    result = check_encoding((64, 64), "half", SharedEncoding(vec, per_phase, max_phase, (1, 0)),
                            blocked=COLUMN_STRIPS)
    stored, read = result.report.sites
    measured = MEASURED[kernel]
    assert (stored.instructions, stored.wavefronts, stored.conflicts) == tuple(
        measured["st"][k] for k in ("instructions", "wavefronts", "conflicts"))
    assert (read.wavefronts, read.conflicts) == (measured["ld"]["wavefronts"], measured["ld"]["conflicts"])


def test_every_measured_launch_is_checked():
    assert set(MEASURED) == set(CUTE) | set(TRITON)
