"""Every report validates against the JSON Schema documented in docs/explain.md, so the
document and the output cannot drift apart."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest

from tests.test_explain_support import quiz_path, run

DOC = Path(__file__).resolve().parents[1] / "docs" / "explain.md"


def _schema() -> dict:
    blocks = re.findall(r"```json\n(.*?)```", DOC.read_text(), re.S)
    (schema,) = [json.loads(b) for b in blocks if '"$schema"' in b]
    return schema


@pytest.mark.parametrize(("kernel", "options"), [
    (None, {"snapshot": (34, {"tileNUM": 1}), "block_indices": [(1, 1, 0)]}),
    ("transpose.cu", {}),
    ("reduction.cu", {}),
    ("semantics.cu", {"snapshot": (35, {})}),
    ("dynamic_smem.cu", {"snapshot": (19, {})}),
    ("sgemm_vectorized.cu", {"defines": {"M": "128", "N": "128", "K": "8"}}),
    ("styles/helpers.cu", {}),
    ("styles/cg_reduce.cu", {"kernel": "tileSums"}),
    ("styles/sgemm_tiles.cu", {"defines": {"CEIL_DIV(a,b)": "(((a)+(b)-1)/(b))", "M": "128", "N": "128",
                                           "K": "16"}}),
    ("styles/loops.cu", {}),
    ("hgemm_ldmatrix.cu", {"defines": {"PERMUTED": "true"}}),
    ("wmma_tiles.cu", {}),
    ("cp_async_pipeline.cu", {"snapshot": (44, {})}),
    ("unknown/gather.cu", {}),
    ("unknown/float_bins.cu", {}),
])
def test_reports_validate_against_the_documented_schema(kernel, options):
    report = run(kernel or quiz_path(), **options)
    jsonschema.validate(json.loads(json.dumps(report)), _schema())


def test_schema_names_the_version_the_reports_carry():
    from bankism.explain import SCHEMA

    assert _schema()["properties"]["schema"]["const"] == SCHEMA
