"""The worked answers of docs/layouts.md against the H100: hw/layouts/layouts.cu writes and reads CuTe-style
and Triton-style tiles as the copies below describe them. Nsight Compute measured every launch
(traces/layouts/layouts_report.csv, exported from layouts_report.ncu-rep by hw/layouts/run.sh), and
`bankism record` traced each (traces/layouts/KERNEL.json). Each kernel is one block: the predicted
totals must equal the measured counters, and the predicted warp-instructions the recorded ones,
address for address."""

from __future__ import annotations

import numpy as np
import pytest

from bankism.capture.ncu import read_csv
from bankism.review.cute_check import check_layout
from bankism.review.cute_copy import make_tiled_copy, tiled_copy
from bankism.review.evaluate import addresses_of, evaluate_access
from bankism.review.triton_shared import SharedEncoding, check_encoding, parse_encoding
from bankism.trace import load
from tests.helpers import ROOT

REPORT_CSV = ROOT / "traces" / "layouts" / "layouts_report.csv"
MEASURED = {launch.kernel: launch.counters() for launch in read_csv(REPORT_CSV)}

A_READ = ("ldmatrix.x4", "((4,8),(2,2,2)):((32,1),(16,8,128))")
B_READ = ("ldmatrix.x4.trans", "((4,8),(2,2,2)):((32,1),(16,128,8))")
COLUMN_STRIPS = parse_encoding("#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], "
                               "warpsPerCTA = [1, 4], order = [0, 1]}>")
ROW_RUNS = parse_encoding("#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], "
                          "warpsPerCTA = [4, 1], order = [1, 0]}>")

#: kernel -> (layout, cp.async fill's thr and val layouts, the ldmatrix read)
CUTE = {
    "cute_a64_plain": ("(64,64):(64,1)", "(16,8):(8,1)", "(1,8)", A_READ),
    "cute_a64_sw333": ("Sw<3,3,3> o _0 o (64,64):(64,1)", "(16,8):(8,1)", "(1,8)", A_READ),
    "cute_b128_sw333_trans": ("Sw<3,3,3> o _0 o (128,32):(1,128)", "(16,8):(1,16)", "(8,1)", B_READ),
    "cute_b128_sw334_trans": ("Sw<3,3,4> o _0 o (128,32):(1,128)", "(16,8):(1,16)", "(8,1)", B_READ),
    "cute_b64_sw334_trans": ("Sw<3,3,4> o _0 o (64,32):(1,64)", "(8,16):(1,8)", "(8,1)", B_READ),
    "cute_b64_sw333_trans": ("Sw<3,3,3> o _0 o (64,32):(1,64)", "(8,16):(1,8)", "(8,1)", B_READ),
}

#: kernel -> (vec, perPhase, maxPhase, the blocked layout the tile is stored from)
TRITON = {"triton_v8_p1_m8": (8, 1, 8, COLUMN_STRIPS), "triton_v8_p8_m8": (8, 8, 8, COLUMN_STRIPS),
          "triton_v8_p2_m4": (8, 2, 4, COLUMN_STRIPS), "triton_v1_p1_m1": (1, 1, 1, COLUMN_STRIPS),
          "triton_v8_p4_m8": (8, 4, 8, COLUMN_STRIPS), "triton_rows_v1_p1_m1": (1, 1, 1, ROW_RUNS),
          "triton_rows_v8_p1_m8": (8, 1, 8, ROW_RUNS)}


def cute_check(kernel):
    layout, thr, val, (atom, tv) = CUTE[kernel]
    fill = make_tiled_copy("cp.async.16", thr, val)
    return check_layout(layout, "half", [fill, tiled_copy(atom, tv, (16, 16))])


def triton_check(kernel):
    vec, per_phase, max_phase, blocked = TRITON[kernel]
    encoding = SharedEncoding(vec, per_phase, max_phase, (1, 0))
    return check_encoding((64, 64), "half", encoding, blocked=blocked)


@pytest.mark.parametrize("kernel", list(CUTE))
def test_cute_tiles_as_measured(kernel):
    written, read = cute_check(kernel).report.sites
    measured = MEASURED[kernel]
    assert (written.instructions, written.wavefronts, written.conflicts) == tuple(
        measured["ldgsts"][k] for k in ("instructions", "wavefronts", "conflicts"))
    # ldmatrix: ncu counts its wavefronts and conflicts under op_ld (its instructions only under op_ldsm)
    assert (read.wavefronts, read.conflicts) == (measured["ld"]["wavefronts"], measured["ld"]["conflicts"])


@pytest.mark.parametrize("kernel", list(TRITON))
def test_triton_tiles_as_measured(kernel):
    stored, read = triton_check(kernel).report.sites
    measured = MEASURED[kernel]
    assert (stored.instructions, stored.wavefronts, stored.conflicts) == tuple(
        measured["st"][k] for k in ("instructions", "wavefronts", "conflicts"))
    assert (read.wavefronts, read.conflicts) == (measured["ld"]["wavefronts"], measured["ld"]["conflicts"])


def test_every_measured_launch_is_checked():
    assert set(MEASURED) == set(CUTE) | set(TRITON)


def warp_instructions(addresses, active) -> list[tuple]:
    """Each warp-instruction as the tuple of its active lanes' addresses, sorted (a multiset)."""
    return sorted(tuple(int(a) if on else -1 for a, on in zip(row, mask, strict=True))
                  for row, mask in zip(addresses, active, strict=True))


def recorded(kernel: str) -> dict[str, list[tuple]]:
    """The traced warp-instructions of one kernel by op, as offsets from its shared array's first byte."""
    launch = load(ROOT / "traces" / "layouts" / f"{kernel}.json")["launches"][0]
    records = launch["records"]
    addresses, sites = np.asarray(records["addresses"]), np.asarray(records["site"])
    active = (np.asarray(records["active"], np.int64)[:, None] >> np.arange(32)) & 1
    base = addresses[active.astype(bool)].min()
    ops = {site["id"]: site["op"] for site in launch["sites"]}
    found: dict[str, list] = {}
    for op in set(ops.values()):
        rows = np.isin(sites, [i for i, o in ops.items() if o == op])
        found[op] = warp_instructions(addresses[rows] - base, active[rows].astype(bool))
    return found


@pytest.mark.parametrize("kernel", list(CUTE) + list(TRITON))
def test_the_kernels_make_exactly_the_modelled_accesses(kernel):
    """The copies (and Triton accesses) of the model against the tracer's records, address for address:
    the same warp-instructions of each op, the same lanes, the same byte offsets."""
    if kernel in CUTE:
        result = cute_check(kernel)
        uses = [(u.access, u.block, u.loops) for u in result.uses]
    else:
        result = triton_check(kernel)
        uses = [(site.access, (32,), {"i": range(site.instructions)}) for site in result.report.sites]
    traced = recorded(kernel)
    for access, block, loops in uses:
        ev = evaluate_access(access, block, loops)
        modelled = warp_instructions(addresses_of(access.array, ev), ev.active)
        assert traced[access.op] == modelled, (kernel, access.label)
