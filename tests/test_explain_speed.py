"""The interpreter's speed-ups change no answer: the register-tiled SGEMM's per-site counts and
per-warp facts equal those recorded before them (tests/data/explain/sgemm_vectorized_sites.json,
written at commit a3337e6)."""

from __future__ import annotations

import hashlib
import json

import pytest

from tests.test_explain_support import DATA, run

EXPECTED = json.loads((DATA / "sgemm_vectorized_sites.json").read_text())
FIELDS = ("line", "column", "shared_array", "op", "width", "instructions", "wavefronts", "ideal", "conflicts",
          "cycles")
WARP = ("block", "warp", "executions", "wavefronts", "ideal", "lane_addresses")


@pytest.mark.parametrize("k", sorted(EXPECTED["cases"]))
def test_sgemm_answers_equal_those_before_the_speed_ups(k):
    report = run("sgemm_vectorized.cu", defines={"M": "128", "N": "128", "K": k})
    expected = EXPECTED["cases"][k]
    assert [{f: s[f] for f in FIELDS} for s in report["sites"]] == expected["sites"]
    per_warp = [[[w[f] for f in WARP] for w in s["warps"]] for s in report["sites"]]
    assert hashlib.sha256(json.dumps(per_warp).encode()).hexdigest() == expected["per_warp_sha256"]
