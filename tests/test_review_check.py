"""check(): warps and loops evaluated vectorized, counted by the engine, reported per access."""

import itertools
import json
from types import SimpleNamespace

import numpy as np
import pytest

import bankism
from bankism.errors import BankismError
from bankism.review import Access, SharedArray, Swizzle, check, lane_ranges, threads


def reference_addresses(access, block, loops):
    """Lane addresses and active lanes built thread by thread with plain Python (no vectorization)."""
    bx, by, bz = (tuple(block) + (1, 1))[:3] if not isinstance(block, int) else (block, 1, 1)
    count = bx * by * bz
    warps = -(-count // 32)
    names = [n for n in loops if n in access.index.__code__.co_varnames[1:access.index.__code__.co_argcount]
             or (access.mask and n in access.mask.__code__.co_varnames[1:access.mask.__code__.co_argcount])]
    rows, active = [], []
    for values in itertools.product(*(loops[n] for n in names)):
        env = dict(zip(names, values, strict=True))
        for w in range(warps):
            row, on = [], []
            for lane in range(32):
                linear = w * 32 + lane
                if linear >= count:
                    row.append(0)
                    on.append(False)
                    continue
                t = SimpleNamespace(x=linear % bx, y=(linear // bx) % by, z=linear // (bx * by),
                                    linear=linear, lane=lane, warp=w)
                index_env = {k: v for k, v in env.items() if k in access.index.__code__.co_varnames}
                idx = access.index(t, **index_env)
                idx = idx if isinstance(idx, tuple) else (idx,)
                live = True
                if access.mask is not None:
                    live = bool(access.mask(t, **{k: v for k, v in env.items()
                                                  if k in access.mask.__code__.co_varnames}))
                if access.op in ("ldmatrix", "stmatrix") and lane >= 8 * access.matrices:
                    live = False
                offset = sum(int(i) * s for i, s in zip(idx, access.array.strides, strict=True))
                if isinstance(access.array.swizzle, Swizzle):
                    offset = access.array.swizzle(offset)
                row.append(access.array.base + offset * access.array.itemsize if live else 0)
                on.append(live)
            rows.append(row)
            active.append(on)
    return np.asarray(rows, np.int64), np.asarray(active, bool)


TILE = SharedArray("float32", (32, 32), name="tile")
PADDED = SharedArray("float32", (32, 32), pad=1, name="tile")
DOUBLES = SharedArray("double", (16, 16), name="A")
HALVES = SharedArray("half", (64, 64), swizzle=Swizzle(3, 3, 3), name="sA")
RED = SharedArray("float", (256,), name="sdata")

CASES = [
    (Access(TILE, lambda t: (t.x, t.y)), (32, 32), {}),
    (Access(PADDED, lambda t: (t.x, t.y), op="store"), (32, 32), {}),
    (Access(TILE, lambda t, k: (t.y, k)), (32, 32), {"k": range(4)}),
    (Access(TILE, lambda t, j: (t.y + j, t.x)), (32, 8), {"j": range(0, 32, 8)}),
    (Access(DOUBLES, lambda t, k: (k, t.x)), (16, 16), {"k": range(16)}),
    (Access(DOUBLES, lambda t: (t.y, t.x // 2 * 2), vector=2), (16, 16), {}),
    (Access(TILE, lambda t, h: (t.x // 8, t.x % 8 * 4), vector=4), 64, {"h": range(2)}),
    (Access(HALVES, lambda t, kk: (t.warp * 16 + t.lane % 16, kk * 16 + t.lane // 16 * 8), op="ldmatrix",
            matrices=4), 128, {"kk": range(4)}),
    (Access(HALVES, lambda t: (t.lane % 8, t.lane // 8 * 8), op="ldmatrix", matrices=2), 64, {}),
    (Access(RED, lambda t, s: t.x + s, mask=lambda t, s: t.x < s), 256, {"s": [128, 16, 1]}),
    (Access(RED, lambda t: t.x * 5 % 256, op="atomic"), 48, {}),
    (Access(SharedArray("float", (4, 8, 9)), lambda t: (t.z, t.y, t.x)), (9, 8, 4), {}),
]


@pytest.mark.parametrize("access,block,loops", CASES, ids=lambda v: getattr(v, "label", None))
def test_counts_equal_the_engine_on_addresses_built_thread_by_thread(access, block, loops):
    report = check(access, block=block, loops=loops)
    rows, active = reference_addresses(access, block, loops)
    expected = bankism.simulate(rows, width=access.width, op=access.op, active=active,
                                matrices=access.matrices)
    site = report.sites[0]
    assert site.instructions == rows.shape[0]
    assert np.array_equal(site.result.addresses[active], rows[active])
    for name in ("wavefronts", "ideal", "conflicts", "cycles"):
        assert np.array_equal(getattr(site.result, name), getattr(expected, name)), name
    assert report.wavefronts == expected.total_wavefronts
    assert report.ideal == expected.total_ideal
    assert report.conflicts == expected.total_conflicts


def test_textbook_column_read_is_32_way_and_padding_removes_it():
    read = Access(TILE, lambda t: (t.x, t.y))
    site = check(read, block=(32, 32)).sites[0]
    assert (site.instructions, site.wavefronts, site.ideal, site.conflicts) == (32, 1024, 32, 992)
    assert site.worst.wavefronts == 32 and site.worst.ideal == 1
    assert [c.bank for c in site.worst.collisions] == [0]
    assert site.worst.collisions[0].lanes == tuple(range(32))
    padded = check(read.on(PADDED), block=(32, 32))
    assert (padded.wavefronts, padded.ideal, padded.conflicts) == (32, 32, 0)
    assert padded.conflict_free


def test_warps_are_formed_x_fastest():
    t = threads((16, 16, 1))
    assert t.warps == 8
    assert t.x[0].tolist() == list(range(16)) * 2
    assert t.y[0].tolist() == [0] * 16 + [1] * 16
    site = check(Access(TILE, lambda t: (t.x, t.y)), block=(16, 16)).sites[0]
    assert site.worst.where == "warp 0 (threads 0-31: threadIdx.x 0-15, threadIdx.y 0-1)"


def test_partial_last_warp_is_masked():
    site = check(Access(RED, lambda t: t.x), block=40).sites[0]
    assert site.instructions == 2
    assert site.result.masks.tolist() == [0xFFFFFFFF, 0xFF]


def test_accesses_run_once_per_combination_of_the_loops_they_use():
    loops = {"k": range(4), "j": range(3)}
    report = check([Access(TILE, lambda t: (t.y, t.x)), Access(TILE, lambda t, k: (t.y, k)),
                    Access(TILE, lambda t, k, j: (j, k)), Access(TILE, lambda t, **kw: (kw["j"], t.x))],
                   block=(32, 2), loops=loops)
    assert [s.instructions for s in report.sites] == [2, 8, 24, 24]
    assert report.sites[2].instruction(23).loops == {"k": 3, "j": 2}
    assert report.sites[2].instruction(23).where.endswith("k=3, j=2")


def test_loop_branching_falls_back_to_one_call_per_value():
    def index(t, s):
        return (t.y, t.x) if s == 0 else (t.x, t.y)

    site = check(Access(TILE, index), block=(32, 32), loops={"s": range(2)}).sites[0]
    assert site.instructions == 64
    assert site.result.wavefronts[:32].tolist() == [1] * 32
    assert site.result.wavefronts[32:].tolist() == [32] * 32


def test_labels_come_from_the_lambda_source():
    assert Access(TILE, lambda t: (t.x, t.y)).label == "load tile[t.x][t.y]"
    masked = Access(RED, lambda t, s: t.x + s, op="store", mask=lambda t, s: t.x < s)
    assert masked.label == "store sdata[t.x + s] if t.x < s"
    assert Access(TILE, lambda t: (t.x, 0), vector=4).label == "load tile[t.x][0] (4-wide)"
    assert Access(TILE, lambda t: (t.x, t.y), name="column read").label == "column read"

    def named(t):
        return t.y, t.x

    assert Access(TILE, named).label == "load tile[named(t)]"


def test_report_renders_as_text_html_and_json():
    report = check([Access(TILE, lambda t: (t.y, t.x), op="store"), Access(TILE, lambda t: (t.x, t.y))],
                   block=(32, 32))
    text = str(report)
    assert "store tile[t.y][t.x]" in text and "load tile[t.x][t.y]" in text
    assert report.verdict in text and "bank conflicts: 992 excess" in report.verdict
    assert "worst warp-instruction: load tile[t.x][t.y], warp 0" in text
    assert str(report.sites[1].worst.bank_map) in text
    page = report._repr_html_()
    assert page.count("<table") == 2 and "tile[t.x][t.y]" in page and "background:#f99" in page
    data = json.loads(json.dumps(report.to_dict()))
    assert data["conflicts"] == 992 and data["sites"][1]["access"] == "load tile[t.x][t.y]"
    assert repr(report) == "Report(2 access(es): 1056 wavefronts, ideal 64, 992 conflicts)"
    clean = check(Access(PADDED, lambda t: (t.x, t.y)), block=(32, 32))
    assert clean.verdict.startswith("conflict-free") and "worst warp-instruction:" not in str(clean)


def test_from_addresses_round_trips_through_the_layout():
    access = Access(PADDED, lambda t, j: (t.x, t.y + j))
    first = check(access, block=(32, 8), loops={"j": range(0, 32, 8)}).sites[0]
    recorded = Access.from_addresses(PADDED, first.result.addresses, width=4, name="LDS line 12")
    again = check(recorded).sites[0]
    assert np.array_equal(again.result.addresses, first.result.addresses)
    assert again.wavefronts == first.wavefronts and again.worst.where.startswith("record ")
    moved = check(recorded.on(PADDED.with_layout(pad=0))).sites[0]
    assert moved.conflicts == 992


def test_from_addresses_rejects_padding_and_partial_elements():
    rows = np.tile(np.arange(32) * 4, (2, 1))
    rows[1, 5] = 32 * 4
    with pytest.raises(BankismError, match=r"record 1, lane 5: address 128 is not the start of an element"):
        Access.from_addresses(PADDED, rows, width=4)
    with pytest.raises(BankismError, match="do not cover whole"):
        Access.from_addresses(DOUBLES, rows, width=4)


@pytest.mark.parametrize("access,block,loops,match", [
    (Access(TILE, lambda t: (t.x + 1, t.y)), (32, 32), {},
     r"load tile\[t.x \+ 1\]\[t.y\]: warp 0 \(threads 0-31: threadIdx.x 0-31, threadIdx.y 0\), lane 31: "
     r"index \[32\]\[0\] is outside float tile\[32\]\[32\]"),
    (Access(TILE, lambda t, k: (k, t.x)), 32, {}, "takes loop variable 'k'; pass loops="),
    (Access(TILE, lambda t: (t.x / 2, t.y)), 32, {}, "not an integer"),
    (Access(TILE, lambda t: t.x), 32, {}, "returns 1 index"),
    (Access(TILE, lambda t: (t.y, t.x * 2), vector=4), 16, {},
     "lane 1: element .* not aligned to the 16-byte"),
    (Access(TILE, lambda t: (t.y, t.x)), 2048, {}, "CUDA allows 1024"),
    (Access(TILE, lambda t: (t.y, t.x)), None, {}, "give block="),
    (Access(TILE, lambda t: (t.y, t.q)), 32, {}, "the index function failed"),
])
def test_mapping_bugs_are_one_line_errors(access, block, loops, match):
    with pytest.raises(BankismError, match=match) as caught:
        check(access, block=block, loops=loops)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("kwargs,match", [
    (dict(op="ldmatrix"), "matrices=1, 2 or 4"),
    (dict(op="load", matrices=2), "ldmatrix/stmatrix only"),
    (dict(vector=3), "vector=3"),
    (dict(op="gather"), "unknown op"),
    (dict(mask=5), "mask must be a function"),
])
def test_bad_accesses_are_rejected(kwargs, match):
    with pytest.raises(BankismError, match=match):
        Access(TILE, lambda t: (t.y, t.x), **kwargs)


def test_array_must_fit_in_shared_memory():
    huge = SharedArray("float", (64, 1024))
    with pytest.raises(BankismError, match="do not fit"):
        check(Access(huge, lambda t: (t.y, t.x)), block=32)


def test_lane_ranges():
    assert lane_ranges([0, 1, 2, 3, 7, 9, 10]) == "0-3,7,9-10"
    assert lane_ranges(range(0, 32, 2)) == "0,2,...,30"
    assert lane_ranges([5]) == "5"
