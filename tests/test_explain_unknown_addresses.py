"""Accesses at addresses explain does not know (input data, a kernel parameter not given): listed with
their warp-instruction counts and what would make them known, never sinking the rest of the report."""

from __future__ import annotations

import json

import jsonschema
import pytest
from typer.testing import CliRunner

from bankism.cli import app
from bankism.errors import BankismError
from bankism.explain import ExplainOptions, explain
from bankism.explain.simt.global_data import parse_data
from tests.test_explain_support import DATA, not_counted, run, site
from tests.test_explain_traces import ROOT, _traces

UNKNOWN = DATA / "unknown"
UNSUPPORTED = DATA / "unsupported"


def test_the_known_accesses_are_counted_and_the_data_addressed_ones_listed():
    report = run(UNKNOWN / "gather.cu")
    assert {(s["line"], s["shared_array"], s["op"]) for s in report["sites"]} == {
        (9, "table", "store"), (10, "slots", "store"), (15, "copy", "store"), (16, "slots", "load"),
        (17, "copy", "load")}
    assert site(report, 17, "copy", "load")["conflicts"] == 8  # a 2-way stride: the rest is exact
    for line, op, why in ((12, "load", "values read from global memory (index)"),
                          (13, "store", "values read from global memory (index)"),
                          (17, "load", "values in shared memory")):  # slots[t], after a store at line 13
        entry = not_counted(report, line)
        assert entry["op"] == op and entry["instructions"] == 8 and entry["bytes_per_lane"] == 4
        assert f"the addresses depend on {why}" in entry["note"] and "--data" in entry["note"]
        assert [w["active_lanes"] for w in entry["warps"]] == [32] * 8


def test_with_data_every_access_is_counted():
    report = run(UNKNOWN / "gather.cu", data=parse_data(["random:0:255"]))
    assert "unmodelled" not in report
    assert {(s["line"], s["op"]) for s in report["sites"]} >= {(12, "load"), (13, "store"), (17, "load")}


def test_a_kernel_parameter_not_given_names_the_define_that_would_make_it_known():
    entry = not_counted(run(UNSUPPORTED / "unknown_param.cu"), 4)
    assert "kernel parameter stride (give -D stride=VALUE)" in entry["note"] and "--data" not in entry["note"]


def test_a_float_atomic_lists_its_retry_loop_as_at_least_one_pass():
    report = run(UNKNOWN / "float_bins.cu")
    entries = [u for u in report["unmodelled"] if u["line"] == 9]
    assert sorted(u["op"] for u in entries) == ["atomic", "load"]
    assert all(u["instructions"] == 4 and "at least this many" in u["note"] for u in entries)
    assert {(s["line"], s["op"]) for s in report["sites"]} == {(7, "store"), (11, "load")}


def test_the_cli_answers_with_the_listed_accesses_and_exit_0():
    result = CliRunner().invoke(app, ["explain", str(UNSUPPORTED / "data_dependent.cu")])
    assert result.exit_code == 0, result.output
    assert "line 6: atomicAdd(&hist[data[blockIdx.x * blockDim.x + threadIdx.x]], 1u)" in result.output
    assert "SASS ATOMS.POPC.INC.32; 8 warp-instructions: the addresses depend on values read from global " \
           "memory (data)" in result.output
    assert "(not counting the 8 warp-instructions of the 1 access(es) above" in result.output
    as_json = json.loads(CliRunner().invoke(app, ["explain", str(UNSUPPORTED / "data_dependent.cu"),
                                                  "--json"]).output)
    (entry,) = as_json["unmodelled"]
    assert entry["addresses_known"] is False and entry["line"] == 6


def test_a_probe_of_a_repeating_loop_still_sees_what_its_accesses_depend_on():
    """The repeating-loop shortcut learns from a refused access that the loop's accesses change from one
    iteration to the next; those accesses must not be listed as unknown (they are counted per iteration)."""
    report = run("tiled_matmul.cu", defines={"REAL": "float", "TILE": "16", "PAD": "0", "N": "64"})
    assert "unmodelled" not in report
    assert site(report, 26, "Bs", "load")["instructions"] == 4 * 8 * 16


@pytest.mark.parametrize("name", ["hist64.json", "histogram256.json"])
def test_on_a_measured_histogram_the_listed_atomics_are_the_instructions_the_h100_ran(name):
    trace, source = next((t, s) for t, s in _traces() if t.name == name)
    report = explain(source.read_text(), str(source), ExplainOptions(trace=str(trace), trace_launch=0))
    lines = [e for e in report["trace"]["lines"] if "not_counted" in e]
    assert len(lines) == 1
    (group,) = lines[0]["groups"]
    assert group["op"] == "atomic" and group["verdict"] == "as written, not counted"
    (ours,) = lines[0]["not_counted"]
    assert ours["instructions"] == sum(g["instructions"] for g in lines[0]["sass"]) > 0
    assert all(e["same_addresses"] for e in report["trace"]["lines"] if e["same_instructions"])
    from tests.test_explain_schema import _schema  # the comparison's new fields are documented
    jsonschema.validate(json.loads(json.dumps(report)), _schema())


def test_a_float_atomic_that_warps_share_says_its_retries_are_a_lower_bound():
    shared = run(UNKNOWN / "float_bins.cu", data=parse_data(["random"]))
    assert any(":9: several warps of a block update the same words of sums" in a
               for a in shared["assumptions"])
    own = run(ROOT / "traces" / "kernels" / "histogram_float.cu", kernel="histogram_float",
              data=parse_data(["bins=random:0:63", "weights=random"]))  # s_sum[warp][bin]: warps' own words
    assert not any("several warps" in a for a in own["assumptions"])


def test_accesses_a_parameter_decides_are_listed_with_the_instructions_the_h100_ran():
    """transpose_f64's loads and stores sit under `if (x < n)` with n a kernel argument explain is not
    given: each is listed ("whether it runs depends on kernel parameter n"), with the trace's count."""
    trace, source = next((t, s) for t, s in _traces() if t.name == "transpose_f64.json")
    report = explain(source.read_text(), str(source), ExplainOptions(trace=str(trace), trace_launch=0))
    assert not report["sites"] and {u["op"] for u in report["unmodelled"]} == {"load", "store"}
    assert all("whether it runs depends on kernel parameter n (give -D n=VALUE)" in u["note"]
               for u in report["unmodelled"])
    verdicts = [g["verdict"] for e in report["trace"]["lines"] for g in e["groups"]]
    assert verdicts == ["as written, not counted"] * 2


def test_wmma_fragments_under_a_bounds_check_on_a_parameter_are_listed():
    trace, source = next((t, s) for t, s in _traces() if t.name == "wmma_hgemm.json")
    report = explain(source.read_text(), str(source), ExplainOptions(trace=str(trace), trace_launch=0))
    listed = {(u["line"], u["op"]) for u in report["unmodelled"]}
    assert {(41, "ldmatrix"), (42, "ldmatrix")} <= listed
    assert all("kernel parameter n (give -D n=VALUE)" in u["note"] for u in report["unmodelled"])


def test_listing_stops_at_the_uncounted_limit_and_says_what_is_missing():
    from bankism import inputs

    inputs.set_limits(["uncounted=10"])
    try:
        with pytest.raises(BankismError, match=r"over the uncounted limit of 10 warp-instructions.*"
                                               r"kernel parameter n \(give -D n=VALUE\)"):
            run(UNKNOWN / "endless_guess.cu")
    finally:
        inputs.reset_limits()
    given = run(UNKNOWN / "endless_guess.cu", defines={"n": "1024"})
    assert "unmodelled" not in given and site(given, 8, "s", "store")["instructions"] == 32
