"""Capture side of the asynchronous copies into shared memory (cp.async.bulk, TMA) and of wgmma.

The tracer records cp.async (LDGSTS) per lane like any shared access (record kind 3, a site with op
``ldgsts``). Bulk copies (kind 4) and wgmma operand reads (kind 5) are warp- or warpgroup-level events
with no per-lane addresses: they become the launch's ``async`` summary, one entry per instruction
(program counter), with executions and bytes. What the tracer cannot record at all (TMA tensor copies:
the Sanitizer API has no callback for them) is in the launch's ``unrecorded_shared`` (convert.py), less
the instructions the events did record.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bankism.arch import DEFAULT_ARCH, LANES, get_arch

KIND_ASYNC_COPY, KIND_BULK_COPY, KIND_WGMMA = 3, 4, 5
EVENT_KINDS = (KIND_BULK_COPY, KIND_WGMMA)

#: cp.async records carry, above the 18 bits of the shared offset, bits 2..15 of the global source address
#: (tracer_records.h: BANKISM_ASYNC_SOURCE_SHIFT/MASK): enough to tell which lanes read the same 128-byte
#: line (aliasing only for sources a multiple of 64 KiB apart).
SOURCE_SHIFT, SHARED_MASK = 18, (1 << 18) - 1


def split_sources(records: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(records with plain shared offsets, per-lane global source units of 4 bytes, 0 outside cp.async)."""
    records = records.copy()
    is_async = records["kind"] == KIND_ASYNC_COPY
    raw = records["addresses"][is_async]
    sources = np.zeros(records["addresses"].shape, np.int64)
    sources[is_async] = raw >> SOURCE_SHIFT
    records["addresses"][is_async] = raw & SHARED_MASK
    return records, sources


def source_grouping(width: int, active: np.ndarray, sources: np.ndarray) -> dict[str, int]:
    """How the global sources of a cp.async site's executions line up with the store groups.

    ``source_lines``: the most distinct 128-byte global lines the active lanes of one group (warp,
    half- or quarter-warp for 4, 8, 16 bytes) read in any execution; ``source_repeats``: executions in
    which two active lanes of a group read the same bytes. The rule is exact when both are at most 1 and 0.
    """
    group = get_arch(DEFAULT_ARCH).group_lanes("ldgsts", int(width))  # the rule's store groups
    lanes = ((active[:, None].astype(np.int64) >> np.arange(LANES)) & 1).astype(bool)
    most = 0
    repeated = np.zeros(len(sources), bool)
    for start in range(0, LANES, group):
        used = lanes[:, start:start + group]
        part = sources[:, start:start + group]
        most = max(most, int(_distinct(part >> 5, used).max(initial=0)))
        units = part // max(1, int(width) // 4)
        repeated |= _distinct(units, used) < used.sum(axis=1)
    return {"source_lines": most, "source_repeats": int(repeated.sum())}


def _distinct(values: np.ndarray, used: np.ndarray) -> np.ndarray:
    """Per row, the number of distinct values among the used entries (values are >= 0)."""
    ordered = np.sort(np.where(used, values, -1), axis=1)
    fresh = ordered >= 0
    fresh[:, 1:] &= ordered[:, 1:] != ordered[:, :-1]
    return fresh.sum(axis=1)


def split_events(records: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(per-lane records, event records): events are the bulk-copy and wgmma records."""
    is_event = np.isin(records["kind"], EVENT_KINDS)
    return records[~is_event], records[is_event]


def without_duplicate_async_records(records: np.ndarray) -> np.ndarray:
    """Drop ordinary-access records at program counters the cp.async callback also reported."""
    async_pcs = np.unique(records["pc"][records["kind"] == KIND_ASYNC_COPY])
    if async_pcs.size == 0:
        return records
    duplicate = (records["kind"] != KIND_ASYNC_COPY) & np.isin(records["pc"], async_pcs)
    return records[~duplicate]


def _site_fields(offset: int, sass: dict[int, Any]) -> dict[str, Any]:
    instruction = sass.get(offset)
    return {
        "pc": int(offset),
        "sass": instruction.opcode if instruction else None,
        "file": instruction.file if instruction else None,
        "line": instruction.line if instruction else None,
    }


def async_summary(
    events: np.ndarray, offsets: np.ndarray, sass: dict[int, Any], display_path: Any = None,
) -> dict[str, Any]:
    """The launch's ``async`` block from its event records (``offsets``: their offsets in the function)."""
    bulk: list[dict[str, Any]] = []
    wgmma: list[dict[str, Any]] = []
    for offset in np.unique(offsets).tolist():
        mine = events[offsets == offset]
        fields = _site_fields(offset, sass)
        if display_path is not None:
            fields["file"] = display_path(fields["file"])
        address = mine["addresses"].astype(np.int64)
        bulk_rows = mine["kind"] == KIND_BULK_COPY
        if bulk_rows.any():
            start, size = address[bulk_rows, 0], address[bulk_rows, 1]
            bulk.append({
                **fields, "executions": int(bulk_rows.sum()), "bytes": int(size.sum()),
                "shared_start": int(start.min()), "shared_end": int((start + size).max()),
                "multicast": int((mine["width"][bulk_rows] != 0).sum()),
            })
        wg_rows = mine["kind"] == KIND_WGMMA
        if wg_rows.any():
            a_bytes, b_bytes = address[wg_rows, 1], address[wg_rows, 3]
            full = mine["active"][wg_rows].astype(np.int64) == 0xFFFFFFFF
            wgmma.append({
                **fields, "executions": int(wg_rows.sum()), "a_bytes": int(a_bytes.sum()),
                "b_bytes": int(b_bytes.sum()), "a_from_registers": int((a_bytes == 0).sum()),
                "partial_warp_mask": int((~full).sum()),
            })
    return {"bulk_copies": bulk, "wgmma": wgmma}


def without_recorded_events(unrecorded: list[dict[str, Any]], block: dict[str, Any]) -> list[dict[str, Any]]:
    """``unrecorded_shared`` less the instructions the launch's events did record (by SASS opcode)."""
    recorded = {entry.get("sass") for kind in ("bulk_copies", "wgmma") for entry in block.get(kind, [])}
    return [entry for entry in unrecorded if entry["sass"] not in recorded]
