"""Conversion of the tracer's cp.async records and bulk-copy / wgmma events (bankism.capture.async_events)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bankism.capture import async_events as tracing_async
from bankism.capture import convert as tracing
from bankism.capture.disasm import SassInstruction
from bankism.capture.raw import FLAG_WRITE, KIND_SHARED, RECORD_DTYPE
from bankism.isa import is_bypass_ldgsts
from bankism.trace import load, validate

START = 0x7000_0000
FULL = 0xFFFFFFFF


def _record(pc: int, kind: int, addresses, active: int = FULL, width: int = 16, warp: int = 0) -> np.ndarray:
    record = np.zeros(1, RECORD_DTYPE)
    record["pc"] = START + pc
    record["kind"] = kind
    record["active"] = active
    record["width"] = width
    record["warp"] = warp
    record["flags"] = FLAG_WRITE
    row = np.zeros(32, np.uint32)
    row[: len(addresses)] = addresses
    record["addresses"] = row
    return record


def _launch() -> dict:
    return {"index": 3, "kernel": "k()", "mangled": "_Z1kv", "grid": [1, 1, 1], "block": [128, 1, 1],
            "static_shared": 0, "function_pc": START, "function_size": 0x1000, "dynamic_shared": 65536}


SASS = {"_Z1kv": {
    0x230: SassInstruction("LDGSTS.E.BYPASS.128", "/src/k.cu", 10),
    0x240: SassInstruction("LDGSTS.E", "/src/k.cu", 11),
    0x200: SassInstruction("UBLKCP.S.G", "/src/k.cu", 12),
    0x1B0: SassInstruction("HGMMA.64x64x16.F32", "/src/k.cu", 13),
    0x2A0: SassInstruction("UTMALDG.2D", "/src/k.cu", 14),
    0x2B0: SassInstruction("LDS.128", "/src/k.cu", 15),
}}


def test_ldgsts_records_become_sites_and_duplicates_are_dropped():
    lanes = 1024 + np.arange(32) * 16
    records = np.concatenate([
        _record(0x230, tracing_async.KIND_ASYNC_COPY, lanes),
        _record(0x230, KIND_SHARED, lanes),  # the same instruction seen as a shared access
        _record(0x240, tracing_async.KIND_ASYNC_COPY, 1024 + np.arange(32) * 4, active=0xFFFF, width=4),
    ])
    launch = tracing.convert_launch(_launch(), records, SASS, "all")
    assert [(s["pc"], s["op"], s["width"], s["sass"]) for s in launch["sites"]] == [
        (0x230, "ldgsts", 16, "LDGSTS.E.BYPASS.128"), (0x240, "ldgsts", 4, "LDGSTS.E")]
    assert len(launch["records"]["site"]) == 2
    assert launch["records"]["active"].tolist() == [FULL, 0xFFFF]
    # the inactive lanes' addresses are zeroed, the active ones kept
    assert launch["records"]["addresses"][1][:16].tolist() == (1024 + np.arange(16) * 4).tolist()
    assert launch["records"]["addresses"][1][16:].tolist() == [0] * 16


@pytest.mark.parametrize(("opcode", "width"), [
    ("LDGSTS.E", 4), ("LDGSTS.E.64", 8), ("LDGSTS.E.128", 16), ("LDGSTS.E.BYPASS.128", 16),
    ("LDGSTS.E.BYPASS.LTC128B.128", 16),
])
def test_ldgsts_opcodes_decode_to_op_and_width(opcode, width):
    """isa.py: the op from the family, the width from the opcode when the record has none."""
    assert tracing.classify_site(opcode, KIND_SHARED, FLAG_WRITE, 0, 0)["width"] == width
    assert tracing.classify_site(opcode, KIND_SHARED, FLAG_WRITE, 0, 0)["op"] == "ldgsts"
    assert is_bypass_ldgsts(opcode) == ("BYPASS" in opcode)


def test_classify_site_without_sass_uses_the_record_kind():
    shape = tracing.classify_site(None, tracing_async.KIND_ASYNC_COPY, FLAG_WRITE, 8, 0)
    assert shape == {"op": "ldgsts", "width": 8, "matrices": None, "trans": False}


def test_events_become_the_async_block_and_unrecorded_tma_is_listed():
    records = np.concatenate([
        _record(0x200, tracing_async.KIND_BULK_COPY, [2048, 4096, 1032, 0], active=1, width=0),
        _record(0x200, tracing_async.KIND_BULK_COPY, [6144, 1024, 1032, 0], active=1, width=0),
        _record(0x1B0, tracing_async.KIND_WGMMA, [1024, 2048, 9216, 2048]),
        _record(0x1B0, tracing_async.KIND_WGMMA, [1024, 0, 9216, 2048], active=0),
    ])
    launch = tracing.convert_launch(_launch(), records, SASS, "all")
    assert launch["sites"] == []
    block = launch["async"]
    assert block["bulk_copies"] == [{
        "pc": 0x200, "sass": "UBLKCP.S.G", "file": "/src/k.cu", "line": 12, "executions": 2, "bytes": 5120,
        "shared_start": 2048, "shared_end": 7168, "multicast": 0}]
    assert block["wgmma"] == [{
        "pc": 0x1B0, "sass": "HGMMA.64x64x16.F32", "file": "/src/k.cu", "line": 13, "executions": 2,
        "a_bytes": 2048, "b_bytes": 4096, "a_from_registers": 1, "partial_warp_mask": 1}]
    # UTMALDG has no record (TMA: no Sanitizer callback); UBLKCP and HGMMA were recorded as events, and a
    # recorded cp.async is no longer "unrecorded": none of them is listed
    assert [(u["sass"], u["instructions"]) for u in launch["unrecorded_shared"]] == [("UTMALDG.2D", 1)]
    doc = {"format": "bankism-trace", "version": 1, "environment": {"arch": "sm_90"}, "launches": [launch]}
    validate(doc)


def test_a_launch_without_async_traffic_has_no_async_block():
    records = _record(0x2B0, KIND_SHARED, 1024 + np.arange(32) * 16)
    sass = {"_Z1kv": {0x2B0: SassInstruction("LDS.128", None, None)}}
    launch = tracing.convert_launch(_launch(), records, sass, "all")
    assert "async" not in launch
    assert launch["sites"][0]["op"] == "load"


def _with_source(shared, source_bytes):
    """Shared offsets with the 14 source bits the tracer stores above them (bits 2..15 of the source)."""
    shared = np.asarray(shared, np.int64)
    source = (np.asarray(source_bytes, np.int64) >> 2) & 0x3FFF
    return (shared | (source << tracing_async.SOURCE_SHIFT)).astype(np.uint32)


def test_sources_are_split_from_the_shared_offsets_and_grouped():
    lanes = np.arange(32)
    coalesced = _record(0x230, tracing_async.KIND_ASYNC_COPY, _with_source(1024 + lanes * 16, lanes * 16))
    # 64-byte global rows 1 KiB apart: each quarter-warp reads 2 lines
    rows = _record(0x240, tracing_async.KIND_ASYNC_COPY,
                   _with_source(1024 + lanes * 4, (lanes // 4) * 1024 + (lanes % 4) * 16), width=4)
    launch = tracing.convert_launch(_launch(), np.concatenate([coalesced, rows]), SASS, "all")
    first, second = launch["sites"]
    assert launch["records"]["addresses"][0].tolist() == (1024 + lanes * 16).tolist()
    assert (first["source_lines"], first["source_repeats"]) == (1, 0)
    # 4-byte copies are grouped by the whole warp: 8 rows = 8 lines
    assert (second["source_lines"], second["source_repeats"]) == (8, 0)


def test_repeated_sources_are_counted():
    lanes = np.arange(32)
    broadcast = _record(0x230, tracing_async.KIND_ASYNC_COPY, _with_source(1024 + lanes * 16, np.zeros(32)))
    launch = tracing.convert_launch(_launch(), broadcast, SASS, "all")
    assert (launch["sites"][0]["source_lines"], launch["sites"][0]["source_repeats"]) == (1, 1)


# --- what the tracer wrote on the H100 (hw/async/run.sh, tests/data/capture/async/) ---

DATA = Path(__file__).resolve().parent / "data" / "capture" / "async"


def test_h100_trace_of_the_cp_async_probes_records_every_lane():
    """bankism trace of hw/async/ldgsts_probe on tests/data/capture/async/ldgsts_smoke.txt (12 probes)."""
    doc = load(DATA / "smoke_ldgsts.json")
    patterns = [line.split() for line in (DATA / "ldgsts_smoke.txt").read_text().splitlines()]
    launches = doc["launches"][1:]  # the first launch is the program's base probe of pattern 0
    assert len(launches) == len(patterns) == 12
    widths = {"probe_cpasync_ca_4": 4, "probe_cpasync_ca_8": 8, "probe_cpasync_ca_16": 16,
              "probe_cpasync_cg_16": 16}
    for launch, pattern in zip(launches, patterns, strict=True):
        kernel, mask = pattern[1], int(pattern[2])
        shared = np.asarray(pattern[3:35], np.int64)
        (site,) = launch["sites"]
        assert (site["op"], site["width"]) == ("ldgsts", widths[kernel])
        assert ("BYPASS" in site["sass"]) == kernel.endswith("cg_16")
        records = launch["records"]
        assert int(records["active"][0]) == mask
        lanes = ((mask >> np.arange(32)) & 1).astype(bool)
        assert (records["addresses"][0][lanes] == shared[lanes] + 1024).all()


def test_h100_trace_of_bulk_copies_and_wgmma_becomes_events():
    doc = load(DATA / "smoke_tma_wgmma.json")
    by_kernel: dict[str, list[dict]] = {}
    for launch in doc["launches"]:
        by_kernel.setdefault(launch["kernel"], []).append(launch)
    bulk = [launch.get("async", {}).get("bulk_copies", []) for launch in by_kernel["bulk_copy"]]
    assert bulk[0] == []  # the 0-byte baseline issues no copy
    assert [copies[0]["bytes"] for copies in bulk[1:]] == [16, 128, 1024, 4096, 16384, 4096]
    assert bulk[-1][0]["shared_start"] % 128 == 16  # the copy to a destination 16 bytes past a line
    tma = by_kernel["tma_2d"]
    assert all("async" not in launch for launch in tma)
    assert all({u["sass"] for u in launch["unrecorded_shared"]} == {"UTMALDG.2D"} for launch in tma)
    # the 0-byte bulk-copy launch never ran its UBLKCP: it stays in unrecorded_shared, the others do not
    assert [len(launch["unrecorded_shared"]) for launch in by_kernel["bulk_copy"]] == [1, 0, 0, 0, 0, 0, 0]
    wgmma = [launch["async"]["wgmma"][0] for launch in by_kernel["wgmma_probe"]]
    assert [(w["executions"], w["a_bytes"], w["b_bytes"]) for w in wgmma] == [(1, 2048, 2048)] * 6


def test_analyze_prints_what_it_did_not_simulate():
    from tests.helpers import run_cli

    ran = run_cli("analyze", DATA / "smoke_tma_wgmma.json", "--launch", "15")
    assert ran.returncode == 0, ran.stderr
    assert "Not simulated: wgmma at pc" in ran.stdout and "4,096 operand bytes" in ran.stdout


def test_wgmma_opcodes_keep_their_shape_modifier():
    """nvdisasm writes HGMMA.64x64x16.F32: the lower-case x belongs to the opcode."""
    from bankism.capture.disasm import parse_nvdisasm

    text = "\t.text.k:\n        /*01b0*/     HGMMA.64x64x16.F32 R24, gdesc[UR4], RZ, !UPT, gsb0 ;\n"
    assert parse_nvdisasm(text)["k"][0x1B0].opcode == "HGMMA.64x64x16.F32"
    doc = load(DATA / "smoke_tma_wgmma.json")
    wgmma = [launch for launch in doc["launches"] if launch["kernel"] == "wgmma_probe"]
    assert {launch["async"]["wgmma"][0]["sass"] for launch in wgmma} == {"HGMMA.64x64x16.F32"}
