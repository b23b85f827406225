"""The cycle model reproduces the H100 throughput measurements in traces/cycles/.

Each row there is one instruction kind and lane pattern, timed with clock64 over 32 warps
per SM and counted with Nsight Compute. The engine must give the measured wavefronts for
the row's lane addresses, and its modelled cycles must be within 1% of the measured ones.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import bankism

CYCLES = sorted((Path(__file__).parent.parent / "traces" / "cycles").glob("*.json"))
ROWS = [row for path in CYCLES for row in json.loads(path.read_text())["rows"]]
MODEL_TOLERANCE = 0.01


def _kwargs(row: dict) -> dict:
    return {"width": row["width"], "op": row["op"], "matrices": row.get("matrices"),
            "atomic_op": row.get("atomic_kind") or "add", "active": row["active"]}


def _supported(row: dict) -> bool:
    try:
        bankism.get_arch("sm_90").rule(row["op"], row["width"], row.get("atomic_kind") or "add")
    except bankism.BankismError:
        return False
    return True


SUPPORTED = [row for row in ROWS if _supported(row)]


def test_rows_cover_every_modelled_kind():
    kinds = {(r["op"], r["width"], r.get("matrices"), r.get("atomic_kind")) for r in SUPPORTED}
    assert len(kinds) >= 21 and len(SUPPORTED) >= 370


@pytest.mark.parametrize("row", SUPPORTED, ids=lambda r: f"{r['op']}{r['width']}-{r['pattern']}")
def test_wavefronts_and_cycles_match_measurement(row):
    result = bankism.simulate(row["addresses"], **_kwargs(row))
    assert result.wavefronts[0] == row["wavefronts_per_instruction"]
    cycles = float(result.cycles[0])
    assert not math.isnan(cycles)
    assert abs(cycles - row["cycles_per_instruction"]) <= MODEL_TOLERANCE * row["cycles_per_instruction"]
