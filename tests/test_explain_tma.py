"""TMA copies in explain: a CUtensorMap kernel parameter (its address passed on, its bytes never read),
libcu++'s cp_async_bulk_tensor_*d copies with barrier_arrive_tx and arrival tokens, and the same copy in
inline PTX. The copies are listed as bulk accesses (no wavefront rule measured) and the rest is counted;
scout 9 refused every TMA kernel ("unknown type 'CUtensorMap'"). On the H100, the public TMA demo of hunt 7
(Ratbuyer/h100_features tma_1d) records 1 LDS and 1 STS besides its TMA copy: explain gives the same."""

from __future__ import annotations

from tests.test_explain_support import DATA, run, site

KERNEL = DATA / "tc" / "tma_copies.cu"


def _bulk(report: dict, line: int) -> dict:
    """The listed (not counted) bulk copy on ``line``."""
    return next(s for s in report["unmodelled"] if s["line"] == line and s["op"] == "bulk")


def test_libcu_tensor_copies_are_listed_and_the_reads_after_them_counted():
    report = run(KERNEL, kernel="tma_tile")
    assert report["launch"]["grid"] == [4, 1, 1]
    assert site(report, 25, "tile", "load")["wavefronts"] == 32  # a column of the landed tile: 32-way
    assert site(report, 26, "tile", "store")["conflicts"] == 0
    load, store = _bulk(report, 19), _bulk(report, 30)
    assert load["instructions"] == 1 and store["instructions"] == 1  # thread 0 issues each copy
    assert load["note"] == "wavefronts not modelled yet" and load["warps"][0]["active_lanes"] == 1
    assert load["warps"][0]["lane_addresses"][0] == store["warps"][0]["lane_addresses"][0]  # the tile


def test_the_same_copy_in_inline_ptx_with_the_descriptors_address():
    report = run(KERNEL, kernel="tma_ptx")
    assert site(report, 51, "tile", "load")["conflicts"] == 0  # padded
    assert _bulk(report, 46)["instructions"] == 1
