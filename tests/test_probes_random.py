"""Golden test: every random atomic warp measured on the H100 (traces/probes/random/) is reproduced exactly.

One warp per probe, one ATOMS instruction (or one compiler CAS loop), random pools of 1-64 words over the
banks, random lanes and masks (hw/atomics/gen_random.py). Native forms: the engine's wavefronts and
conflicts equal ncu's. Loop forms: the iterations of ``cas_loop_masks`` give ncu's LDS and ATOMS
wavefronts (and its instruction count where it was measured).
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import bankism
from bankism.engine.loops import cas_loop_masks
from tests.reference import reference_cas_loop
from tests.strategies import lane_addresses, masks

PATH = Path(__file__).parent.parent / "traces" / "probes" / "random" / "sm_90_atomics_random.json"
DOCUMENT = json.loads(PATH.read_text())
COLUMN = {name: k for k, name in enumerate(DOCUMENT["columns"])}
LOOPS = {"add_f32": 4, "add_u64": 8}


def _by_kind() -> dict[str, list[list]]:
    rows: dict[str, list[list]] = defaultdict(list)
    for row in DOCUMENT["probes"]:
        rows[row[COLUMN["kind"]]].append(row)
    return rows


BY_KIND = _by_kind()


def _arrays(rows: list[list]) -> tuple[np.ndarray, np.ndarray]:
    addresses = np.asarray([r[COLUMN["addresses"]] for r in rows], dtype=np.int64)
    active = np.asarray([r[COLUMN["active"]] for r in rows], dtype=np.int64)
    return addresses, active


def _measured(rows: list[list], name: str) -> np.ndarray:
    return np.asarray([r[COLUMN[name]] for r in rows])


def test_campaign_covers_every_atoms_form_with_ten_thousand_warps():
    assert len(DOCUMENT["probes"]) >= 10_000
    assert set(BY_KIND) == set(DOCUMENT["kinds"])
    assert len(BY_KIND["popc"]) >= 4_000
    for key in ("gpu", "driver", "ncu", "cuda"):
        assert DOCUMENT["environment"].get(key)


NATIVE = sorted(k for k, v in DOCUMENT["kinds"].items() if v["atomic_kind"] not in LOOPS)


@pytest.mark.parametrize("kind", NATIVE)
def test_native_atomics_match_every_random_warp(kind):
    info = DOCUMENT["kinds"][kind]
    rows = BY_KIND[kind]
    addresses, active = _arrays(rows)
    result = bankism.simulate(addresses, width=info["width"], op="atomic", atomic_op=info["atomic_kind"],
                              active=active)
    wrong = np.flatnonzero((result.wavefronts != _measured(rows, "atom_wavefronts"))
                           | (result.conflicts != _measured(rows, "atom_conflicts")))
    assert not wrong.size, [rows[i][COLUMN["name"]] for i in wrong[:5]]


@pytest.mark.parametrize("form", sorted(LOOPS))
def test_cas_loops_match_every_random_warp(form):
    width = LOOPS[form]
    kind = next(k for k, v in DOCUMENT["kinds"].items() if v["atomic_kind"] == form)
    rows = BY_KIND[kind]
    addresses, active = _arrays(rows)
    iterations = cas_loop_masks(addresses, active, width)
    steps = iterations.shape[1]
    flat = np.repeat(addresses, steps, axis=0)
    flat_masks = iterations.reshape(-1).astype(np.int64)
    load = bankism.simulate(flat, width=width, active=flat_masks).wavefronts.reshape(-1, steps).sum(axis=1)
    spin = bankism.simulate(flat, width=width, op="atomic", atomic_op="cas_spin",
                            active=flat_masks).wavefronts.reshape(-1, steps).sum(axis=1)
    assert np.array_equal(load, _measured(rows, "ld_wavefronts"))
    assert np.array_equal(spin, _measured(rows, "atom_wavefronts"))
    counted = [i for i, r in enumerate(rows) if r[COLUMN["atom_instructions"]] is not None]
    assert np.array_equal((iterations[counted] != 0).sum(axis=1), _measured([rows[i] for i in counted],
                                                                           "atom_instructions"))


def test_popc_inc_merges_lanes_where_atoms_add_serialises():
    """Random warps where several words of one bank are each hit by several lanes: POPC.INC costs one pass
    per distinct word in the busiest bank, ATOMS.ADD one per lane."""
    rows = BY_KIND["popc"]
    addresses, active = _arrays(rows)
    merged = bankism.simulate(addresses, width=4, op="atomic", atomic_op="popc_inc", active=active)
    serialised = bankism.simulate(addresses, width=4, op="atomic", atomic_op="add", active=active)
    differ = merged.wavefronts != serialised.wavefronts
    assert differ.sum() >= 500
    assert np.array_equal(merged.wavefronts[differ], _measured(rows, "atom_wavefronts")[differ])


@given(st.sampled_from([4, 8]).flatmap(lambda w: st.tuples(st.just(w), lane_addresses(w), masks())))
def test_cas_loop_engine_equals_reference(case):
    width, addresses, mask = case
    engine = [int(m) for m in cas_loop_masks(addresses, mask, width)[0] if m]
    assert engine == reference_cas_loop(addresses, width, mask)
