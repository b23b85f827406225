"""Golden tests: the cp.async (LDGSTS) rule against every H100 probe, and the TMA / wgmma measurements.

traces/probes/async/sm_90_ldgsts_probes.json holds 1,020 single-instruction cp.async probes
(hw/async/); traces/probes/async/sm_90_tma_wgmma_probes.json the bulk-copy, TMA and wgmma probes.
docs/rules.md ("cp.async", "TMA and wgmma") states the findings these tests pin down.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bankism import simulate
from bankism.capture.async_events import source_grouping

PROBES = Path(__file__).resolve().parent.parent / "traces" / "probes" / "async"
LDGSTS = json.loads((PROBES / "sm_90_ldgsts_probes.json").read_text())["probes"]
TMA_WGMMA = json.loads((PROBES / "sm_90_tma_wgmma_probes.json").read_text())["probes"]
BASE = 1024  # the shared window address of the probes' dynamic array


def _in_rule_domain(probe: dict) -> bool:
    """Each store group reads one global 128-byte line, each lane its own bytes (site fields)."""
    source = np.asarray(probe["global"], np.int64)[None, :] >> 2
    active = np.asarray([probe["active"]], np.uint32)
    grouping = source_grouping(probe["width"], active, source)
    return grouping["source_lines"] <= 1 and grouping["source_repeats"] == 0


def _predict(probes: list[dict]) -> dict[int, tuple[int, int]]:
    """(wavefronts, conflicts) the engine gives each probe, by probe id: one engine call per width."""
    out = {}
    for width in sorted({p["width"] for p in probes}):
        mine = [p for p in probes if p["width"] == width]
        result = simulate(np.asarray([p["addresses"] for p in mine]) + BASE, width=width, op="ldgsts",
                          active=np.asarray([p["active"] for p in mine], np.int64))
        for i, probe in enumerate(mine):
            out[probe["id"]] = (int(result.wavefronts[i]), int(result.conflicts[i]))
    return out


CA = [p for p in LDGSTS if p["cache"] == "ca"]
CA_EXACT = [p for p in CA if _in_rule_domain(p)]
CA_OTHER = [p for p in CA if not _in_rule_domain(p)]
CG = [p for p in LDGSTS if p["cache"] == "cg"]


def test_the_probe_set_covers_every_form():
    assert len(LDGSTS) == 1020
    assert {(p["width"], p["cache"]) for p in CA_EXACT} == {(4, "ca"), (8, "ca"), (16, "ca")}
    assert len(CA_EXACT) == 629 and len(CA_OTHER) == 240 and len(CG) == 151


def test_ca_rule_matches_every_probe_in_its_domain_exactly():
    predicted = _predict(CA_EXACT)
    measured = {p["id"]: (p["measured"]["sass_wavefronts"], p["measured"]["conflicts"]) for p in CA_EXACT}
    wrong = [(p["id"], p["name"], predicted[p["id"]], measured[p["id"]])
             for p in CA_EXACT if predicted[p["id"]] != measured[p["id"]]]
    assert not wrong, wrong[:10]


def test_ca_rule_is_a_lower_bound_outside_its_domain():
    predicted = _predict(CA_OTHER)
    assert all(predicted[p["id"]][0] <= p["measured"]["sass_wavefronts"] for p in CA_OTHER)
    # and the domain matters: e.g. a broadcast global source serialises every lane
    broadcast = next(p for p in CA_OTHER if p["name"] == "cp.async.ca w16 contiguous, global broadcast")
    assert (predicted[broadcast["id"]][0], broadcast["measured"]["sass_wavefronts"]) == (4, 32)


def test_ncu_sass_figures_for_ca_are_the_hardware_counters():
    """In the rule's domain the smsp__sass_ conflict figure is the hardware's; wavefronts always are."""
    for probe in CA_EXACT:
        assert probe["measured"]["sass_conflicts"] == probe["measured"]["conflicts"], probe["name"]
    second = [p for p in CA if p["campaign"] == 2]
    assert second
    for probe in second:
        m = probe["measured"]
        assert m["shared_wavefronts"] == m["sass_wavefronts"] + m["misc_wavefronts"], probe["name"]


@pytest.mark.parametrize("width", [4, 8, 16])
def test_no_broadcast_on_shared_writes(width):
    """All 32 lanes on one shared address, each reading its own global bytes: one pass per lane."""
    probe = next(p for p in CA_EXACT if p["width"] == width and p["family"] == "stride"
                 and len(set(p["addresses"])) == 1 and p["active"] == 0xFFFFFFFF)
    assert probe["measured"]["sass_wavefronts"] == 32
    assert _predict([probe])[probe["id"]][0] == 32


def test_cg_writes_never_show_in_the_hardware_shared_counters():
    assert all(p["measured"]["conflicts"] == 0 and p["measured"]["shared_conflicts"] == 0 for p in CG)
    # whatever the banks: a 32-way pattern costs the LSU pipe what a conflict-free one does
    totals = {p["measured"]["shared_wavefronts"] for p in CG}
    assert totals == {5}
    assert {p["measured"]["bypass_instructions"] for p in CG} == {1}


def _tma(name_start: str) -> list[dict]:
    return [p for p in TMA_WGMMA if p["name"].startswith(name_start)]


def test_bulk_and_tma_copies_add_nothing_to_the_shared_counters():
    baseline = _tma("bulk_copy bytes=0")[0]["measured"]
    copies = _tma("bulk_copy") + _tma("tma_2d")
    assert len(copies) == 15
    swizzles = {p["name"].split("swizzle=")[1].split()[0] for p in _tma("tma_2d")}
    assert swizzles == {"none", "32B", "64B", "128B"}
    for probe in copies:
        m = probe["measured"]
        for metric in ("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
                       "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
                       "l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum"):
            assert m[metric] == baseline[metric], (probe["name"], metric)


def test_wgmma_operand_reads_are_one_wavefront_per_128_bytes_and_never_conflict():
    wgmma = _tma("wgmma")
    assert len(wgmma) == 6
    for probe in wgmma:
        m = probe["measured"]
        assert m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_gmma.sum"] == 0, probe["name"]
        # m64n64k16 f16: A and B are 64 x 16 halves each, 4096 bytes in all
        assert m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum"] == 4096 // 128, probe["name"]


def test_each_probe_is_one_ldgsts_and_no_lds_or_sts():
    """ptxas's never-executed '@!PT LDS RZ, [RZ]' beside an LDGSTS are not counted by ncu."""
    for probe in LDGSTS:
        m = probe["measured"]
        assert (m["instructions"], m["ld_instructions"], m["st_instructions"]) == (1, 0, 0), probe["name"]
        assert m["bypass_instructions"] == (probe["cache"] == "cg"), probe["name"]
