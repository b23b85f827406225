"""The explain report as typed records: ``to_dict()`` is the JSON report, ``from_dict`` reads it
back to the same records, ``render`` prints the same text from either, and a site's verdict is
computed from the typed site (over-ideal executions counted from its per-warp entries)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from bankism.explain import ExplainOptions, ExplainReport, SnapshotRequest, explain, explain_report, render
from bankism.explain.output.report import site_verdict, verdict
from tests.test_explain_support import DATA, quiz_path

OPTIONS = ExplainOptions(block_indices=[(1, 1, 0)], snapshot=SnapshotRequest(34, (("tileNUM", 1),)))


@pytest.fixture(scope="module")
def quiz() -> ExplainReport:
    return explain_report(quiz_path().read_text(), str(quiz_path()), OPTIONS)


def test_to_dict_is_what_explain_returns(quiz):
    assert quiz.to_dict() == explain(quiz_path().read_text(), str(quiz_path()), OPTIONS)


def test_from_dict_gives_back_the_same_records(quiz):
    data = quiz.to_dict()
    assert ExplainReport.from_dict(data) == quiz
    assert ExplainReport.from_dict(json.loads(json.dumps(data))).to_dict() == data  # the --json document


def test_render_prints_the_same_from_a_dict_and_from_records(quiz):
    for flags in ({}, {"all_warps": True}, {"bank_maps": True}):
        assert render(quiz.to_dict(), **flags) == render(quiz, **flags)


def test_records_are_frozen(quiz):
    with pytest.raises(dataclasses.FrozenInstanceError):
        quiz.sites[0].line = 1  # type: ignore[misc]


def test_verdict_is_computed_from_the_typed_site():
    report = explain_report((DATA / "transpose.cu").read_text(), str(DATA / "transpose.cu"))
    conflicted = [s for s in report.sites if s.conflicts]
    assert conflicted, "transpose.cu has a conflicting site"
    for site in conflicted:
        over = sum(1 for w in site.warps for f, i in zip(w.wavefronts, w.ideal, strict=True) if f > i)
        assert over > 0
        counts = (site.instructions, site.wavefronts, site.ideal, site.conflicts)
        assert site.verdict == site_verdict(*counts, over)
        assert verdict(site) == verdict(site.to_dict()) == site.to_dict()["verdict"]
