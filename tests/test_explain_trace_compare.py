"""`bankism explain --trace`: source-level sites next to a trace's SASS sites. A synthetic
trace of the quiz kernel stands in for a capture here: stores as written, line 40's B read
as written, and its A read vectorized (one 16-byte load for two values of k), as a
compiler may issue it. Measured traces in traces/ are compared in test_explain_traces.py."""

from __future__ import annotations

import numpy as np
import pytest

import bankism
from bankism.explain import ExplainOptions, explain, render
from bankism.explain.output.against_trace import kernel_base_name, template_arguments
from bankism.trace import save
from tests.test_explain_support import BASE, quiz_path

BLOCKS = [(0, 0, 0), (1, 1, 0)]
LANES = np.arange(32)


def _rows(kind: str) -> list[np.ndarray]:
    rows = []
    for _block in BLOCKS:
        for warp in range(8):
            thread = warp * 32 + LANES
            tx, ty = thread % 16, thread // 16
            for _tile in range(16):
                if kind == "sts_a":
                    rows.append(BASE + (ty * 16 + tx) * 8)
                elif kind == "sts_b":
                    rows.append(BASE + 2048 + (ty * 16 + tx) * 8)
                elif kind == "lds128_a":
                    rows.extend(BASE + (ty * 16 + k) * 8 for k in range(0, 16, 2))
                else:
                    rows.extend(BASE + 2048 + (k * 16 + tx) * 8 for k in range(16))
    return rows


def _blocks_warps(per_warp: int) -> tuple[list, list]:
    blocks, warps = [], []
    for block in BLOCKS:
        for warp in range(8):
            blocks.extend([list(block)] * per_warp)
            warps.extend([warp] * per_warp)
    return blocks, warps


@pytest.fixture(scope="module")
def synthetic_trace(tmp_path_factory) -> str:
    sites = [("STS.64", "store", 8, 33, "sts_a", 16), ("STS.64", "store", 8, 34, "sts_b", 16),
             ("LDS.128", "load", 16, 40, "lds128_a", 16 * 8), ("LDS.64", "load", 8, 40, "lds64_b", 16 * 16)]
    records = {"block": [], "warp": [], "site": [], "active": [], "addresses": []}
    site_docs = []
    for number, (sass, op, width, line, kind, per_warp) in enumerate(sites):
        site_docs.append({"id": number, "pc": 16 * number, "sass": sass, "op": op, "width": width,
                          "matrices": None, "trans": False, "file": "dgemm_tile_quiz.cu", "line": line})
        rows = _rows(kind)
        blocks, warps = _blocks_warps(per_warp)
        records["block"].extend(blocks)
        records["warp"].extend(warps)
        records["site"].extend([number] * len(rows))
        records["active"].extend([0xFFFFFFFF] * len(rows))
        records["addresses"].extend(np.asarray(r).tolist() for r in rows)
    doc = {
        "format": "bankism-trace", "version": 1, "description": "synthetic, for tests",
        "environment": {"arch": "sm_90", "gpu": None, "compute_capability": None, "driver": None,
                        "cuda": None, "ncu": None, "captured": None, "tracer": "test"},
        "launches": [{
            "index": 0, "kernel": "multiply(const double *, const double *, double *)", "grid": [16, 16, 1],
            "block": [16, 16, 1], "shared_bytes": {"static": 4096, "dynamic": 0}, "blocks_total": 256,
            "blocks_recorded": [list(b) for b in BLOCKS], "sites": site_docs,
            "records": {k: np.asarray(v) for k, v in records.items()},
            "counters": {"ld": {"instructions": 393216, "wavefronts": 1, "conflicts": 2},
                         "st": {"instructions": 32768, "wavefronts": 65536, "conflicts": 0},
                         "atom": {"instructions": 0, "wavefronts": 0, "conflicts": 0}},
            "counters_scope": "launch",
        }],
    }
    path = tmp_path_factory.mktemp("trace") / "dgemm_synthetic.json"
    save(doc, path)
    return str(path)


def test_demangled_names():
    assert kernel_base_name("multiply(const double *, const double *, double *)") == "multiply"
    assert kernel_base_name("void matmul32<1>(const float *, const float *, float *, int)") == "matmul32"
    assert template_arguments("void matmul32<1>(const float *, float *, int)") == ["1"]
    assert template_arguments("void sgemm<128, 64, float>(float *)") == ["128", "64", "float"]
    assert template_arguments("multiply(double *)") == []


def test_comparison_with_a_vectorizing_compiler(synthetic_trace):
    """Counted as written, line 40's A_shared reads are the same bytes in other instructions than the
    SASS's LDS.128; counted as nvcc compiles them (the default), they are the same instructions."""
    compiled = explain(quiz_path().read_text(), str(quiz_path()), ExplainOptions(trace=synthetic_trace))
    line = next(entry for entry in compiled["trace"]["lines"] if entry["line"] == 40)
    assert line["same_instructions"] and [g["verdict"] for g in line["groups"]] == ["as written"] * 2
    report = explain(quiz_path().read_text(), str(quiz_path()),
                     ExplainOptions(trace=synthetic_trace, as_written=True))
    assert report["launch"]["blocks"] == [list(b) for b in BLOCKS]  # the blocks the trace recorded
    trace = report["trace"]
    lines = {entry["line"]: entry for entry in trace["lines"]}
    assert lines[33]["same_instructions"] and lines[33]["same_addresses"]
    assert lines[34]["same_instructions"] and lines[34]["same_addresses"]
    line40 = lines[40]
    assert not line40["same_instructions"] and line40["same_addresses"] is None
    assert line40["note"] == ("A_shared loads same bytes, other instructions: source 4096 x 8 B, "
                              "SASS 2048 x 16 B (LDS.128 at 1 site); B_shared loads as written: "
                              "source 4096 x 8 B, SASS 4096 x 8 B (LDS.64 at 1 site)")
    assert [g["verdict"] for g in line40["groups"]] == ["same bytes, other instructions", "as written"]
    (a_read,) = [s for s in line40["sass"] if s["sass"] == "LDS.128"]
    expected = bankism.simulate(np.array(_rows("lds128_a")), width=16, op="load")
    assert a_read["instructions"] == len(expected)
    assert a_read["wavefronts"] == expected.total_wavefronts
    totals = trace["totals"]
    assert totals["scale"] == 128
    assert totals["source"]["ld"]["instructions"] == 8192 * 128
    assert totals["sass"]["ld"]["instructions"] == (2048 + 4096) * 128
    assert totals["measured"]["ld"]["instructions"] == 393216
    text = render(report)
    assert "compared with" in text and "same bytes, other instructions" in text


def test_address_mismatch_is_reported(synthetic_trace, tmp_path):
    from bankism.trace import load

    doc = load(synthetic_trace)
    launch = doc["launches"][0]
    records = launch["records"]
    first_store = np.flatnonzero(records["site"] == 0)[0]
    records["addresses"][first_store, 0] += 8
    path = tmp_path / "tampered.json"
    save(doc, path)
    report = explain(quiz_path().read_text(), str(quiz_path()), ExplainOptions(trace=str(path)))
    line33 = next(e for e in report["trace"]["lines"] if e["line"] == 33)
    assert line33["same_instructions"] and line33["same_addresses"] is False


def test_trace_report_validates_against_the_schema(synthetic_trace):
    import json

    import jsonschema

    from tests.test_explain_schema import _schema

    report = explain(quiz_path().read_text(), str(quiz_path()), ExplainOptions(trace=synthetic_trace))
    jsonschema.validate(json.loads(json.dumps(report)), _schema())
