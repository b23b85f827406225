"""bankism.testing: assertions pass quietly and fail with a message a reviewer can act on."""

import pytest

from bankism.review import Access, Report, SharedArray, check
from bankism.testing import assert_conflict_free, assert_max_wavefronts

TILE = SharedArray("float32", (32, 32), name="tile")
PADDED = TILE.with_layout(pad=1)


def test_passing_assertions_return_the_report():
    read = Access(PADDED, lambda t: (t.x, t.y))
    report = assert_conflict_free(read, block=(32, 32))
    assert isinstance(report, Report) and report.conflicts == 0
    dot = Access(PADDED, lambda t, k: (t.y, k))
    assert assert_max_wavefronts(dot, 1, block=(32, 32), loops={"k": range(32)}).wavefronts == 1024


def test_conflict_message_names_access_warp_loops_banks_and_lanes():
    read = Access(TILE, lambda t, j: (t.x, t.y + j))
    with pytest.raises(AssertionError) as caught:
        assert_conflict_free([Access(TILE, lambda t, j: (t.y + j, t.x), op="store"), read],
                             block=(32, 8), loops={"j": range(0, 32, 8)})
    message = str(caught.value)
    lines = message.splitlines()
    assert lines[0] == ("load tile[t.x][t.y + j] is not conflict-free: 992 excess wavefront(s) in 32 of 32 "
                        "warp-instruction(s) (1024 wavefronts where 32 would do).")
    assert lines[1] == ("worst: warp 0 (threads 0-31: threadIdx.x 0-31, threadIdx.y 0), j=0: 32 wavefronts, "
                        "ideal 1 (32 of 32 warp-instructions cost the same)")
    site = check(read, block=(32, 8), loops={"j": range(0, 32, 8)}).sites[0]
    assert lines[2] == f"engine: {site.worst.describe()}"
    assert "  transaction 0, bank 0: 32 distinct words (0, 32, 64, 96, 128, 160, ...) <- lanes 0-31" in lines
    assert lines[-1].startswith("fix: bankism.review.advise(tile, [accesses], block=(32, 8), loops=...)")
    assert "store tile" not in message


def test_two_way_conflict_lists_each_colliding_bank_and_summarizes_the_rest():
    As = SharedArray("float", (8, 128), name="As")
    store = Access(As, lambda t, c: ((t.x % 2) * 4 + c, t.x // 2), op="store")
    with pytest.raises(AssertionError) as caught:
        assert_conflict_free(store, block=256, loops={"c": range(4)})
    lines = str(caught.value).splitlines()
    assert "c=0" in lines[1]
    banks = [line for line in lines if line.startswith("  transaction 0, bank")]
    assert banks[0] == "  transaction 0, bank 0: 2 distinct words (0, 512) <- lanes 0-1"
    assert len(banks) == 8
    assert "  ... and 8 more bank(s) with 2-2 words" in lines


def test_wavefront_budget_message_for_a_conflict():
    read = Access(TILE, lambda t, k: (t.x, k))
    with pytest.raises(AssertionError) as caught:
        assert_max_wavefronts(read, 4, block=32, loops={"k": range(2)})
    lines = str(caught.value).splitlines()
    assert lines[0] == ("load tile[t.x][k] costs up to 32 wavefronts per warp-instruction, more than the 4 "
                        "allowed, in 2 of 2 warp-instruction(s).")
    assert lines[1].startswith("worst: warp 0 (threads 0-31: threadIdx.x 0-31), k=0: 32 wavefronts, ideal 1")
    assert lines[-1].startswith("fix: bankism.review.advise(tile")


def test_wavefront_budget_below_the_floor_says_so():
    wide = SharedArray("float", (32, 4), name="v")
    read = Access(wide, lambda t: (t.x, 0), vector=4)
    site = check(read, block=32).sites[0]
    floor = site.peak.ideal
    # sm_90 serves a 16-byte read in quarter-warps (docs/rules.md): several transactions, no conflict
    assert not site.peak.conflicts and floor > 1, (site.peak.conflicts, floor)
    with pytest.raises(AssertionError, match=f"splits this access into {floor} transaction"):
        assert_max_wavefronts(read, floor - 1, block=32)
    report = assert_max_wavefronts(read, site.max_wavefronts, block=32)
    assert report.sites[0].max_wavefronts == site.max_wavefronts


def test_every_failing_access_is_reported():
    with pytest.raises(AssertionError) as caught:
        assert_conflict_free([Access(TILE, lambda t: (t.x, t.y)), Access(TILE, lambda t: (t.x, 0))], block=32)
    message = str(caught.value)
    assert "load tile[t.x][t.y] is not conflict-free" in message
    assert "load tile[t.x][0] is not conflict-free" in message
