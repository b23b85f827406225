"""Shared-pipe cycles per block and per launch, the layout as given beside its ideal (issue 22): the
lower bound on time that explain, check and advise state without a GPU."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from bankism.arch import get_arch
from bankism.engine import simulate
from bankism.engine.pipe import PipeCycles
from bankism.errors import BankismError
from bankism.explain import ExplainOptions, explain
from bankism.review import Access, SharedArray, check
from tests.helpers import run_cli
from tests.test_explain_support import DATA

SM90 = get_arch("sm_90")


def test_ideal_cycles_follow_the_rule_floor() -> None:
    # a 16-byte load of 32 consecutive vectors: 4 wavefronts = its ideal; cycles max(2.11, 4) = 4
    result = simulate(np.arange(32) * 16, width=16, op="load")
    assert result.cycles.tolist() == [4.0] and result.ideal_cycles.tolist() == [4.0]
    # a 32-way column read: 32 wavefronts (ideal 1), cycles 32, ideal cycles 1
    column = simulate(np.arange(32) * 128, width=4, op="load")
    assert column.total_cycles == 32.0 and column.total_ideal_cycles == 1.0


def test_the_launch_is_the_busiest_sms_blocks() -> None:
    pipe = PipeCycles(1056.0, 64.0, 65536, "sm_90")
    assert pipe.blocks_per_sm == math.ceil(65536 / SM90.sm_count) == 497
    assert pipe.launch_cycles == 497 * 1056 and pipe.ideal_launch_cycles == 497 * 64
    assert pipe.launch_ns(pipe.launch_cycles) == pytest.approx(497 * 1056 / 1.98)
    assert pipe.removable_block_cycles == 992
    assert "a lower bound on time" in pipe.describe()
    assert PipeCycles(float("nan"), 1.0, 4, "sm_90").to_json() is None


def test_check_states_block_and_launch_cycles_now_and_ideal() -> None:
    tile = SharedArray("float32", (32, 32), name="tile")
    accesses = [Access(tile, lambda t: (t.y, t.x), op="store"), Access(tile, lambda t: (t.x, t.y))]
    report = check(accesses, block=(32, 32), grid=(256, 256))
    # 32 warps: one store wavefront each, 32 load wavefronts each (ideal 1)
    assert (report.cycles, report.ideal_cycles) == (32 + 32 * 32, 64)
    pipe = report.to_dict()["shared_pipe"]
    assert pipe["blocks"] == 65536 and pipe["launch_cycles"] == 497 * 1056
    assert pipe["ideal_launch_cycles"] == 497 * 64
    padded_tile = SharedArray("float32", (32, 32), pad=1, name="tile")
    padded = check([Access(padded_tile, lambda t: (t.y, t.x), op="store"),
                    Access(padded_tile, lambda t: (t.x, t.y))], block=(32, 32), grid=(256, 256))
    assert padded.cycles == padded.ideal_cycles == 64
    assert "shared pipe: 1,056 cycles per block (ideal 64)" in str(report)
    assert check(accesses, block=(32, 32)).to_dict()["shared_pipe"]["launch_cycles"] is None


@pytest.mark.parametrize("grid", [0, (1, 2, 3, 4), (2.0,), True, "8"])
def test_check_refuses_a_bad_grid(grid: object) -> None:
    tile = SharedArray("float32", (32, 32), name="tile")
    with pytest.raises(BankismError, match="grid: expected a positive block count"):
        check([Access(tile, lambda t: (t.x, t.y))], block=(32, 32), grid=grid)


def test_explain_reports_the_blocks_and_the_launchs_pipe_cycles() -> None:
    report = explain((DATA / "transpose.cu").read_text(), "transpose.cu", ExplainOptions())
    pipe = report["shared_pipe"]
    sites = report["sites"]
    assert pipe["block_cycles"] == sum(s["cycles"] for s in sites)
    assert pipe["ideal_block_cycles"] == sum(s["ideal_cycles"] for s in sites)
    blocks = int(np.prod(report["launch"]["grid"]))
    assert pipe["blocks"] == blocks
    assert pipe["launch_cycles"] == math.ceil(blocks / 132) * pipe["block_cycles"]
    assert pipe["ideal_block_cycles"] < pipe["block_cycles"]


def test_advise_states_the_cycles_each_fix_removes(tmp_path) -> None:
    report = explain((DATA / "transpose.cu").read_text(), "transpose.cu", ExplainOptions())
    source = tmp_path / "transpose.json"
    source.write_text(json.dumps(report))
    result = run_cli("advise", source, "--json")
    assert result.returncode == 0, result.stderr
    array = json.loads(result.stdout)["arrays"][0]
    given = array["given"]["cycles"]
    for fix in array["fixes"]:
        assert fix["cycles_removed"] == given - fix["cycles"]
        assert fix["excess"] > 0 or fix["cycles"] == array["given"]["shared_pipe"]["ideal_block_cycles"]
    text = run_cli("advise", source).stdout
    assert "shared-pipe cycles of the accesses as given (a lower bound on the time it saves)" in text
