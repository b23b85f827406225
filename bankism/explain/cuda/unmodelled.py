"""Shared-memory accesses explain sees but cannot count: the shared side of ``cp.async.bulk`` and other
ops the engine has no measured model for (reported with their lane addresses and "wavefronts not
modelled yet"), and accesses whose addresses, or whether they run, depend on something not known, such
as input data or a kernel parameter (their warp-instructions listed, their addresses and wavefronts not,
with what would make them known). Never with a wavefront count, and never sinking the rest of the
report."""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from bankism.arch import LANES, OPS
from bankism.explain.model import Analysis
from bankism.explain.simt.recording import SourceSite

#: What each op is, for the report.
INSTRUCTIONS = {"ldgsts": "cp.async (SASS LDGSTS): the shared-memory write of an asynchronous copy",
                "bulk": "cp.async.bulk (TMA): a bulk copy between global and shared memory"}
NOTE = "wavefronts not modelled yet"
#: What would make unknown addresses known, by what they depend on.
_GIVE_DATA = re.compile(r"values (read from global memory|in shared memory|computed from unknown inputs)")
DATA_ADVICE = "give --data (e.g. --data random) to run it on stated input"


def modelled(site: SourceSite) -> bool:
    """Whether the engine has a model for the site's op (arch.OPS) and explain can count it."""
    return site.op in OPS and site.unknown is None


def unknown_note(site: SourceSite) -> str:
    """The note of a site explain cannot count (``site.unknown`` says why)."""
    why = site.unknown or ""
    advice = f"; {DATA_ADVICE}" if _GIVE_DATA.search(why) else ""
    retries = ("; the CAS retry loop runs once per warp here, and again for lanes whose words share a bank "
               "(so at least this many)" if "retry loop" in (site.sass or "") else "")
    how_often = ("; the warp-instructions are those of the lanes that may run, as simulated"
                 if why.startswith("whether it runs") else "")
    return f"{why}, which bankism does not know: wavefronts not counted{how_often}{retries}{advice}"


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
            "lane_addresses": [int(a) if on and site.unknown is None else None
                               for a, on in zip(addresses[first], active[first], strict=True)],
            "active_lanes": int(active[first].sum()),
        })
    lines = analysis.source_lines
    source = lines[site.line - 1].strip() if 1 <= site.line <= len(lines) else ""
    return {
        "line": site.line, "column": site.column + 1, "source": source,
        "expression": " ".join(site.expression.split()), "shared_array": site.region.name, "op": site.op,
        "instruction": INSTRUCTIONS.get(site.op, _instruction(site)), "bytes_per_lane": site.width,
        "instructions": int(len(warps)), "warps": per_warp,
        "note": NOTE if site.unknown is None else unknown_note(site),
        "addresses_known": site.unknown is None,
        "file": site.file or analysis.filename,
        "call_stack": [{"function": name, "line": line, "file": file or analysis.filename}
                       for name, line, file in site.stack],
    }


def _instruction(site: SourceSite) -> str:
    """What a site of a modelled op is: its op and width, and its SASS where known."""
    what = f"{site.width * 8}-bit shared {site.op}" + (f" ({site.atomic_op})" if site.atomic_op else "")
    return what + (f", SASS {site.sass}" if site.sass else "")


def render_unmodelled(entries: list[dict], where: Callable[[dict], str]) -> list[str]:
    """The text form: one paragraph per site (``where`` names its place), the first warps'
    lane addresses."""
    lines = []
    for entry in entries:
        lines.append("")
        lines.append(f"{where(entry)}: {entry['expression']} ({entry['bytes_per_lane']} bytes per lane "
                     f"into {entry['shared_array']})")
        lines.append(f"  source:      {entry['source']}")
        lines.append(f"  {entry['instruction']}; {entry['instructions']} warp-instructions: {entry['note']}")
        if not entry.get("addresses_known", True):
            continue
        for warp in entry["warps"][:2]:
            shown = ", ".join("-" if a is None else str(a) for a in warp["lane_addresses"])
            lines.append(f"  block {tuple(warp['block'])} warp {warp['warp']} lane addresses: {shown}")
    return lines
