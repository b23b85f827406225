"""Golden test: the engine reproduces every single-instruction probe measured on the H100.

Each probe in traces/probes/*.json is one warp executing one shared-memory instruction
under Nsight Compute; its wavefront and bank-conflict counters must match exactly.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

import bankism
from bankism.arch import NCU_COUNTER_OF_OP

PROBE_FILES = sorted((Path(__file__).parent.parent / "traces" / "probes").glob("*.json"))


def _load_probes() -> dict[tuple, list[dict]]:
    by_kind: dict[tuple, list[dict]] = defaultdict(list)
    for path in PROBE_FILES:
        document = json.loads(path.read_text())
        assert document["format"] == "bankism-probes"
        for probe in document["probes"]:
            if len(probe.get("sass_body") or ()) > 1:
                continue  # a compiler-emitted loop, not one instruction: tests/test_probes_atomics.py
            kind = (probe["op"], probe["width"], probe.get("matrices"), probe.get("atomic_kind") or "")
            by_kind[kind].append(probe)
    return by_kind


PROBES = _load_probes()

#: Kinds sm_90 has no single instruction for: ptxas emits a loop (see traces/probes/sass.txt).
EMULATED = {("atomic", 8, "add")}


def _check_emulated(probes, addresses, active, kwargs):
    """The engine refuses the loop as one instruction, and models the loop's instructions one by one.

    The probes show the loop: contention adds LDS.64 + ATOMS.CAST.SPIN.64 iterations. Where the
    loop ran once (one LDS.64 and one ATOMS.CAST.SPIN.64 with the probe's lanes), both
    instructions' counters must match the engine exactly.
    """
    with pytest.raises(bankism.BankismError):
        bankism.simulate(addresses, active=active, **kwargs)
    counts = [p["counters"]["ld"]["instructions"] + p["counters"]["atom"]["instructions"] for p in probes]
    assert max(counts) > 2, "the retry loop should execute more than one LDS + ATOMS under contention"
    once = [i for i, p in enumerate(probes)
            if p["counters"]["ld"]["instructions"] == 1 and p["counters"]["atom"]["instructions"] == 1]
    assert len(once) >= 40
    load = bankism.simulate(addresses[once], width=8, active=active[once])
    spin = bankism.simulate(addresses[once], width=8, op="atomic", atomic_op="cas_spin", active=active[once])
    for k, i in enumerate(once):
        measured = probes[i]["counters"]
        assert (int(load.wavefronts[k]), int(load.conflicts[k])) == (
            measured["ld"]["wavefronts"], measured["ld"]["conflicts"]), probes[i]["name"]
        assert (int(spin.wavefronts[k]), int(spin.conflicts[k])) == (
            measured["atom"]["wavefronts"], measured["atom"]["conflicts"]), probes[i]["name"]


def test_probe_corpus_is_large_and_recorded_with_versions():
    assert sum(len(p) for p in PROBES.values()) >= 600
    for path in PROBE_FILES:
        environment = json.loads(path.read_text())["environment"]
        for key in ("gpu", "driver", "ncu", "cuda"):
            assert environment.get(key), f"{path.name} lacks environment.{key}"


@pytest.mark.parametrize("kind", sorted(PROBES, key=str), ids=lambda k: "-".join(str(p) for p in k if p))
def test_engine_matches_probes(kind):
    op, width, matrices, atomic_op = kind
    probes = PROBES[kind]
    counter = NCU_COUNTER_OF_OP[op]
    addresses = np.asarray([p["addresses"] for p in probes], dtype=np.int64)
    active = np.asarray([p["active"] for p in probes], dtype=np.int64)
    kwargs = {"width": width, "op": op, "matrices": matrices, "atomic_op": atomic_op or "add"}
    if (op, width, atomic_op) in EMULATED:
        _check_emulated(probes, addresses, active, kwargs)
        return
    result = bankism.simulate(addresses, active=active, **kwargs)
    mismatches = []
    for i, probe in enumerate(probes):
        measured = probe["counters"][counter]
        predicted = (int(result.wavefronts[i]), int(result.conflicts[i]))
        if predicted != (measured["wavefronts"], measured["conflicts"]):
            mismatches.append(
                f"{probe['name']}: predicted wavefronts/conflicts {predicted}, "
                f"measured ({measured['wavefronts']}, {measured['conflicts']})"
            )
    assert not mismatches, f"{len(mismatches)}/{len(probes)} probes differ:\n" + "\n".join(mismatches[:20])
