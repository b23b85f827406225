"""Typed views of launches and sites name every field of the format, with its type."""

from pathlib import Path

import pytest

from bankism import BankismError
from bankism.trace import load, open_trace
from bankism.trace.views import Launch, TraceSite

TRACES = Path(__file__).resolve().parent.parent / "traces"


@pytest.mark.parametrize("name", ["dgemm_tile.json", "ldmatrix_tile.json", "transpose32.json"])
def test_views_of_shipped_traces_agree_with_the_document(name):
    doc = load(TRACES / name)
    for raw in doc["launches"]:
        launch = Launch.of(raw)
        header = (launch.index, launch.kernel, launch.blocks_total)
        assert header == (raw["index"], raw["kernel"], raw["blocks_total"])
        assert list(launch.grid) == raw["grid"] and list(launch.block) == raw["block"]
        assert launch.shared_bytes == raw["shared_bytes"]["static"] + raw["shared_bytes"]["dynamic"]
        assert [s.id for s in launch.sites] == [s["id"] for s in raw["sites"]]
        for site, raw_site in zip(launch.sites, raw["sites"], strict=True):
            assert (site.op, site.width, site.sass, site.line) == (
                raw_site["op"], raw_site["width"], raw_site.get("sass"), raw_site.get("line"))
            assert launch.site(site.id) is site
        with pytest.raises(KeyError, match="has no site"):
            launch.site(10**6)


def test_site_decodes_its_class_and_atomic_op():
    cas = TraceSite.of({"id": 3, "op": "atomic", "width": 8, "sass": "ATOMS.CAST.SPIN.64"})
    assert (cas.ncu_class, cas.atomic_op, cas.matrices) == ("atom", "cas_spin", None)
    ldsm = TraceSite.of({"id": 1, "op": "ldmatrix", "width": 16, "matrices": 4, "trans": True})
    assert (ldsm.ncu_class, ldsm.atomic_op, ldsm.matrices, ldsm.trans) == ("ld", None, 4, True)


def test_an_opened_trace_gives_typed_launches_made_once():
    trace = open_trace(TRACES / "ldmatrix_tile.json")
    first = trace.launch(trace.launches[0].index)
    assert isinstance(first, Launch) and first is trace.launches[0]
    assert first.kernel == trace.doc["launches"][0]["kernel"]
    assert first["kernel"] == first.kernel  # the JSON field, for scripts written when launch() gave JSON
    assert trace.record_count(first) == trace.record_count(trace.doc["launches"][0]) > 0
    with pytest.raises(BankismError, match="no launch 999"):
        trace.launch(999)
