"""Golden test: every random atomic warp measured on the H100 (traces/probes/random/) is reproduced exactly.

One warp per probe, one ATOMS instruction (or one compiler CAS loop), random pools of 1-64 words over the
banks, random lanes and masks (hw/atomics/gen_random.py). Native forms: the engine's wavefronts and
conflicts equal ncu's. Loop forms: the iterations of ``cas_loop_masks`` give ncu's LDS and ATOMS
wavefronts (and its instruction count where it was measured). Probes measured two to a launch (one per
SM, "pairs") are checked as pairs: the engine's two values of each counter are ncu's larger and smaller.
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
PAIR_COLUMN = {name: k for k, name in enumerate(DOCUMENT["pair_columns"])}
PAIRS = DOCUMENT["pairs"]


def _check(rows: list[list], predicted: dict[str, np.ndarray]) -> list[str]:
    """Names of the probes whose counters differ from ``predicted`` (counter -> value per row): singly
    measured probes value by value, paired ones as (larger, smaller) of their pair."""
    where = {r[COLUMN["id"]]: k for k, r in enumerate(rows)}
    wrong = []
    for name, values in predicted.items():
        single = [k for k, r in enumerate(rows) if r[COLUMN[name]] is not None]
        measured = np.asarray([rows[k][COLUMN[name]] for k in single])
        wrong += [rows[single[i]][COLUMN["name"]] for i in np.flatnonzero(values[single] != measured)]
        for pair in PAIRS:
            first, second = pair[PAIR_COLUMN["first"]], pair[PAIR_COLUMN["second"]]
            if first not in where:
                continue
            high, low = pair[PAIR_COLUMN[f"{name}_high"]], pair[PAIR_COLUMN[f"{name}_low"]]
            got = sorted((int(values[where[first]]), int(values[where[second]])) if second >= 0
                         else (int(values[where[first]]),), reverse=True)
            if got != [v for v in (high, low) if v is not None]:
                wrong.append(f"pair {first}, {second} ({name}): predicted {got}, measured {high}, {low}")
    return wrong


def _arrays(rows: list[list]) -> tuple[np.ndarray, np.ndarray]:
    addresses = np.asarray([r[COLUMN["addresses"]] for r in rows], dtype=np.int64)
    active = np.asarray([r[COLUMN["active"]] for r in rows], dtype=np.int64)
    return addresses, active


def _measured(rows: list[list], name: str) -> np.ndarray:
    return np.asarray([r[COLUMN[name]] for r in rows])


def test_campaign_covers_every_atoms_form_with_ten_thousand_warps():
    assert len(DOCUMENT["probes"]) >= 10_000
    paired = {k for pair in PAIRS for k in pair[:2] if k >= 0}
    single = {r[COLUMN["id"]] for r in DOCUMENT["probes"] if r[COLUMN["atom_wavefronts"]] is not None}
    assert not paired & single and len(paired | single) == len(DOCUMENT["probes"])
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
    wrong = _check(rows, {"atom_wavefronts": result.wavefronts, "atom_conflicts": result.conflicts})
    assert not wrong, wrong[:5]


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
    wrong = _check(rows, {"ld_wavefronts": load, "atom_wavefronts": spin})
    assert not wrong, wrong[:5]
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
    single = np.asarray([r[COLUMN["atom_wavefronts"]] is not None for r in rows])
    differ = (merged.wavefronts != serialised.wavefronts) & single
    several_words = np.asarray([_words_sharing_a_bank_with_several_lanes(a, m)
                                for a, m in zip(addresses, active, strict=True)])
    assert (differ & several_words).sum() >= 500
    assert np.array_equal(merged.wavefronts[differ], _measured([rows[i] for i in np.flatnonzero(differ)],
                                                                   "atom_wavefronts"))


def _words_sharing_a_bank_with_several_lanes(addresses: np.ndarray, mask: int) -> bool:
    """Some bank holds two or more words that are each hit by two or more active lanes."""
    lanes = [lane for lane in range(32) if (int(mask) >> lane) & 1]
    words, counts = np.unique(addresses[lanes] // 4, return_counts=True)
    crowded = words[counts >= 2]
    return bool(crowded.size) and np.unique(crowded % 32, return_counts=True)[1].max() >= 2


@given(st.sampled_from([4, 8]).flatmap(lambda w: st.tuples(st.just(w), lane_addresses(w), masks())))
def test_cas_loop_engine_equals_reference(case):
    width, addresses, mask = case
    engine = [int(m) for m in cas_loop_masks(addresses, mask, width)[0] if m]
    assert engine == reference_cas_loop(addresses, width, mask)
