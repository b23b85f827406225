"""Shared-memory accesses explain sees but the engine has no measured model for yet (the
shared side of ``cp.async`` while the LDGSTS model is not in ``bankism/arch.py``, and of
``cp.async.bulk``): reported with their lane addresses and "wavefronts not modelled yet",
never with a count, and never sinking the rest of the report."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from bankism.arch import LANES, OPS
from bankism.explain.model import Analysis
from bankism.explain.simt.recording import SourceSite

#: What each op is, for the report.
INSTRUCTIONS = {"ldgsts": "cp.async (SASS LDGSTS): the shared-memory write of an asynchronous copy",
                "bulk": "cp.async.bulk (TMA): a bulk copy between global and shared memory"}
NOTE = "wavefronts not modelled yet"


def modelled(site: SourceSite) -> bool:
    """Whether the engine has a model for the site's op (arch.OPS)."""
    return site.op in OPS


def unmodelled_report(analysis: Analysis, site: SourceSite) -> dict:
    """One unmodelled site: where it is, what it is, per (block, warp) the lane addresses."""
    addresses = np.concatenate(site.addresses) if site.addresses else np.zeros((0, LANES), np.int64)
    active = np.concatenate(site.active) if site.active else np.zeros((0, LANES), bool)
    warps = np.concatenate(site.warps) if site.warps else np.zeros(0, np.int64)
    order: dict[tuple, list[int]] = {}
    for i, (block, warp) in enumerate(zip(site.blocks, warps.tolist(), strict=True)):
        order.setdefault((block, warp), []).append(i)
    per_warp = []
    for (block, warp), indices in sorted(order.items()):
        first = indices[0]
        per_warp.append({
            "block": list(block), "warp": warp, "executions": len(indices),
            "lane_addresses": [int(a) if on else None for a, on in zip(addresses[first], active[first],
                                                                       strict=True)],
        })
    lines = analysis.source_lines
    source = lines[site.line - 1].strip() if 1 <= site.line <= len(lines) else ""
    return {
        "line": site.line, "column": site.column + 1, "source": source,
        "expression": " ".join(site.expression.split()), "shared_array": site.region.name, "op": site.op,
        "instruction": INSTRUCTIONS.get(site.op, site.op), "bytes_per_lane": site.width,
        "instructions": int(len(warps)), "warps": per_warp, "note": NOTE,
        "file": site.file or analysis.filename,
        "call_stack": [{"function": name, "line": line, "file": file or analysis.filename}
                       for name, line, file in site.stack],
    }


def render_unmodelled(entries: list[dict], where: Callable[[dict], str]) -> list[str]:
    """The text form: one paragraph per site (``where`` names its place), the first warps'
    lane addresses."""
    lines = []
    for entry in entries:
        lines.append("")
        lines.append(f"{where(entry)}: {entry['expression']} ({entry['bytes_per_lane']} bytes per lane "
                     f"into {entry['shared_array']})")
        lines.append(f"  source:      {entry['source']}")
        lines.append(f"  {entry['instruction']}; {entry['instructions']} warp-instructions: {NOTE}")
        for warp in entry["warps"][:2]:
            shown = ", ".join("-" if a is None else str(a) for a in warp["lane_addresses"])
            lines.append(f"  block {tuple(warp['block'])} warp {warp['warp']} lane addresses: {shown}")
    return lines
