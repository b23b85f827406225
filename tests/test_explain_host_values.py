"""Launch shapes evaluated from host code as scout 9's public programs write them: constants inside a
namespace, a size assigned after its declaration, a dim3 set member by member; a value assigned under a
condition the source does not decide stays unknown (tests/data/explain/heldout/host_assignments.cu)."""

from __future__ import annotations

import pytest

from bankism.errors import BankismError
from tests.test_explain_support import DATA, run, site

KERNEL = DATA / "heldout" / "host_assignments.cu"


def test_a_constant_inside_a_namespace_sets_the_block():
    report = run(KERNEL, kernel="in_namespace")
    assert report["launch"]["block"] == [256, 1, 1] and report["launch"]["grid"] == [8, 1, 1]
    assert site(report, 13, "s", "load")["conflicts"] == 8  # 8 warps, 2-way


def test_a_size_assigned_after_its_declaration_is_its_value_from_there_on():
    report = run(KERNEL, kernel="assigned_later", defines={"n": "1024"})
    assert report["launch"]["block"] == [128, 1, 1] and report["launch"]["grid"] == [8, 1, 1]
    assert site(report, 19, "s", "store")["wavefronts"] == 4 * 4  # 4 warps, 4-way


def test_a_dim3_set_member_by_member():
    report = run(KERNEL, kernel="member_by_member")
    assert report["launch"]["block"] == [32, 8, 1] and report["launch"]["grid"] == [4, 4, 1]
    assert site(report, 29, "s", "load")["conflicts"] == 0


def test_a_value_assigned_under_an_undecided_condition_stays_unknown():
    with pytest.raises(BankismError, match=r":71: cannot evaluate the launch's block `threads`"):
        run(KERNEL, kernel="assigned_if")
    assert run(KERNEL, kernel="assigned_if", defines={"threads": "64"})["launch"]["block"] == [64, 1, 1]
