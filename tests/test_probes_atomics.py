"""Golden tests for the shared-atomic probes of traces/probes/sm_90_atomics.json (H100, hw/atomics/).

Native forms (one ATOMS instruction) are matched exactly by tests/test_probes_golden.py; here: the SASS
each probe ran decodes (bankism.isa) to the atomic_op it was measured as, the probes separate the
hypotheses, and the compiler's retry loops are modelled instruction by instruction.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

import bankism
from bankism.isa import atomic_op_of_sass, op_of_sass

DOCUMENT = json.loads((Path(__file__).parent.parent / "traces" / "probes" / "sm_90_atomics.json").read_text())
BY_KERNEL: dict[str, list[dict]] = defaultdict(list)
for _probe in DOCUMENT["probes"]:
    BY_KERNEL[_probe["kernel"]].append(_probe)

NATIVE = sorted(k for k, ps in BY_KERNEL.items() if len(ps[0]["sass_body"]) == 1)
#: Loops of LDS(.64) + ATOMS.CAST.SPIN(.64) or LDS + ATOMS.CAS whose counters are consistent across ncu's
#: replay passes. probe_atom_max_u64 is not: its loop skips the CAS when memory already holds a larger value,
#: so each replay pass ran a different number of iterations (docs/rules.md).
SHARED_LOOPS = ["probe_atom_add_f32", "probe_atom_add_f64", "probe_atom_and_b64", "probe_atom_add_f16x2",
                "probe_atom_add_f16", "probe_atom_cas_b16"]


def _arrays(probes):
    return (np.asarray([p["addresses"] for p in probes], np.int64),
            np.asarray([p["active"] for p in probes], np.int64))


def test_environment_and_size():
    environment = DOCUMENT["environment"]
    assert environment["gpu"].startswith("NVIDIA H100") and environment["driver"] and environment["ncu"]
    assert len(DOCUMENT["probes"]) >= 1300
    assert {"probe_red_add1_u32", "probe_atom_inc_u32", "probe_atom_dec_u32", "probe_atom_min_s32",
            "probe_atom_max_u32", "probe_atom_and_b32", "probe_atom_or_b32",
            "probe_atom_xor_b32"} <= set(NATIVE)


@pytest.mark.parametrize("kernel", NATIVE)
def test_native_sass_decodes_to_the_measured_atomic_op(kernel):
    probes = BY_KERNEL[kernel]
    (opcode,) = probes[0]["sass_body"]
    assert op_of_sass(opcode) == "atomic"
    assert atomic_op_of_sass(opcode) == probes[0]["atomic_kind"]
    assert all(p["counters"]["atom"]["instructions"] == 1 for p in probes)


def test_popc_inc_probes_separate_merging_from_serialising():
    """ATOMS.POPC.INC.32 merges lanes on one word: the serialised (ATOMS.ADD) rule would miss most probes."""
    probes = BY_KERNEL["probe_red_add1_u32"]
    addresses, active = _arrays(probes)
    measured = np.asarray([p["counters"]["atom"]["wavefronts"] for p in probes])
    merged = bankism.simulate(addresses, width=4, op="atomic", atomic_op="popc_inc", active=active)
    serialised = bankism.simulate(addresses, width=4, op="atomic", atomic_op="add", active=active)
    assert np.array_equal(merged.wavefronts, measured)
    assert np.count_nonzero(serialised.wavefronts != measured) >= 100
    one_address = next(p for p in probes if p["name"].endswith("stride 0"))
    assert one_address["counters"]["atom"]["wavefronts"] == 1


@pytest.mark.parametrize("kernel", SHARED_LOOPS)
def test_loop_iterations_are_modelled_one_by_one(kernel):
    """Where the loop ran once, its load and its atomic match the engine exactly (on the enclosing word)."""
    probes = BY_KERNEL[kernel]
    load_sass, atom_sass = probes[0]["sass_body"]
    width = 8 if load_sass.endswith(".64") else 4
    atomic_op = atomic_op_of_sass(atom_sass)
    addresses, active = _arrays(probes)
    words = addresses // width * width
    once = [i for i, p in enumerate(probes)
            if p["counters"]["ld"]["instructions"] == 1 and p["counters"]["atom"]["instructions"] == 1]
    assert len(once) >= 5
    if kernel != "probe_atom_cas_b16":  # a failed 16-bit compare exits its loop: it always ran once
        assert max(p["counters"]["atom"]["instructions"] for p in probes) > 1
    load = bankism.simulate(words[once], width=width, op="load", active=active[once])
    atom = bankism.simulate(words[once], width=width, op="atomic", atomic_op=atomic_op, active=active[once])
    for k, i in enumerate(once):
        counters = probes[i]["counters"]
        assert (int(load.wavefronts[k]), int(load.conflicts[k])) == (
            counters["ld"]["wavefronts"], counters["ld"]["conflicts"]), probes[i]["name"]
        assert (int(atom.wavefronts[k]), int(atom.conflicts[k])) == (
            counters["atom"]["wavefronts"], counters["atom"]["conflicts"]), probes[i]["name"]


def test_four_byte_cas_spin_costs_two_wavefronts_per_execution_and_never_conflicts():
    for kernel in ("probe_atom_add_f32", "probe_atom_add_f16x2"):
        for probe in BY_KERNEL[kernel]:
            atom = probe["counters"]["atom"]
            assert (atom["wavefronts"], atom["conflicts"]) == (2 * atom["instructions"], 0), probe["name"]


def test_generic_half_atomics_on_shared_cost_what_the_shared_forms_cost():
    """cuda_fp16.h's atomicAdd(__half*) is a generic LD.E + ATOM.E.CAS loop; on a shared address ncu counts
    it exactly like the LDS + ATOMS.CAS loop of atom.shared.add.noftz.f16 (same patterns, same counters)."""
    shared = {(tuple(p["addresses"]), p["active"]): p for p in BY_KERNEL["probe_atom_add_f16"]}
    for generic in ("probe_src_half_add", "probe_src_bf16_add"):
        same = [(p, shared[(tuple(p["addresses"]), p["active"])]) for p in BY_KERNEL[generic]
                if (tuple(p["addresses"]), p["active"]) in shared]
        assert len(same) >= 25
        for ours, theirs in same:
            assert ours["counters"]["atom"] == theirs["counters"]["atom"], ours["name"]


def test_generic_half2_atomic_adds_one_wavefront_and_no_instruction():
    """ATOM.E.ADD.F16x2 on a shared address: one atom wavefront that no shared instruction counter counts,
    before the LDS + ATOMS.CAST.SPIN loop."""
    for probe in BY_KERNEL["probe_src_half2_add"]:
        atom = probe["counters"]["atom"]
        assert atom["wavefronts"] == 2 * atom["instructions"] + 1, probe["name"]
        assert atom["instructions"] == probe["counters"]["ld"]["instructions"]
