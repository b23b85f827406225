"""From an ``Analysis`` to the report of `bankism explain`: one engine call per (site, op,
width), per-warp facts, the engine's own explanations, a verdict per site, and the
shared-memory snapshot; as a JSON-ready dict (schema in docs/explain.md) and as text."""

from __future__ import annotations

import numpy as np

from bankism.arch import LANES, get_arch
from bankism.engine import BankMap, SimulationResult, simulate
from bankism.engine.pipe import PipeCycles
from bankism.errors import BankismError
from bankism.explain.cuda.unmodelled import modelled, unmodelled_report
from bankism.explain.model import Analysis, Snapshot
from bankism.explain.simt.ctype import array_shape
from bankism.explain.simt.memory import SharedVariable
from bankism.explain.simt.recording import SourceSite

SCHEMA = "bankism.explain/1"


def build_report(analysis: Analysis) -> dict:
    """The whole report as plain data (what ``--json`` prints)."""
    threads = analysis.block[0] * analysis.block[1] * analysis.block[2]
    geometry = get_arch(analysis.arch)
    report = {
        "schema": SCHEMA,
        "file": analysis.filename,
        "kernel": analysis.kernel,
        "arch": analysis.arch,
        "bank_geometry": {"banks": geometry.banks, "bank_bytes": geometry.bank_bytes},
        "launch": {
            "grid": list(analysis.grid),
            "block": list(analysis.block),
            "from": analysis.launch_origin,
            "threads_per_block": threads,
            "warps_per_block": -(-threads // LANES),
            "dynamic_shared_bytes": analysis.dynamic_shared,
            "blocks": [list(b) for b in analysis.blocks],
            "launches_in_file": analysis.launches,
            "template": analysis.template,
            "parameters": analysis.parameters,
        },
        "shared_arrays": [_array_info(a) for a in analysis.shared_arrays],
        "matrices": [{"name": m.name, "dtype": m.pointee.name} for m in analysis.matrices],
        "assumptions": list(analysis.assumptions),
        "sites": [_site_report(analysis, site) for site in analysis.sites if modelled(site)],
        "snapshot": _snapshot_report(analysis.snapshot) if analysis.snapshot is not None else None,
    }
    report["shared_pipe"] = shared_pipe(analysis, report["sites"]).to_json()
    unmodelled = [unmodelled_report(analysis, site) for site in analysis.sites if not modelled(site)]
    if unmodelled:
        report["unmodelled"] = unmodelled
    if analysis.trace_launch is not None:
        from bankism.explain.output.against_trace import compare  # lazy: needs bankism.analyze

        report["trace"] = compare(analysis, report, analysis.trace_launch)
    return report


def _array_info(array: SharedVariable) -> dict:
    dims, element = array_shape(array.type)
    return {
        "name": array.name, "dtype": element.name, "shape": dims, "base_offset": array.base,
        "size_bytes": array.size, "line": array.line, "extern": array.extern,
    }


def _simulate(analysis: Analysis, site: SourceSite) -> tuple[SimulationResult, np.ndarray, np.ndarray]:
    addresses = np.concatenate(site.addresses) if site.addresses else np.zeros((0, LANES), np.int64)
    active = np.concatenate(site.active) if site.active else np.zeros((0, LANES), bool)
    try:
        extra = {"atomic_op": site.atomic_op} if site.op == "atomic" else {}
        if site.matrices is not None:
            extra["matrices"] = site.matrices
        result = simulate(addresses, width=site.width, op=site.op, active=active, arch=analysis.arch,
                                  **extra)
    except BankismError as error:
        raise BankismError(f"{analysis.filename}:{site.line}: {site.expression}: {error}") from None
    return result, addresses, active


def _site_report(analysis: Analysis, site: SourceSite) -> dict:
    """One access site: totals, how the engine grouped the lanes, per-warp facts, verdict."""
    result, addresses, active = _simulate(analysis, site)
    warps = np.concatenate(site.warps) if site.warps else np.zeros(0, np.int64)
    blocks = site.blocks
    n = len(result)
    explanations = _explanations(result, blocks, warps)
    per_warp = _per_warp(analysis, site, result, addresses, active, blocks, warps)
    report = {
        "line": site.line,
        "column": site.column + 1,
        "file": site.file or analysis.filename,
        "call_stack": [{"function": name, "line": line, "file": file or analysis.filename}
                       for name, line, file in site.stack],
        "source": _source_line(analysis, site.file, site.line),
        "expression": " ".join(site.expression.split()),
        "array": site.array,
        "shared_array": site.region.name,
        "op": site.op,
        "atomic_op": site.atomic_op,
        "matrices": site.matrices,
        "sass": site.sass,
        "width": site.width,
        "dtype": site.type.name,
        "instructions": n,
        "wavefronts": result.total_wavefronts,
        "ideal": result.total_ideal,
        "conflicts": result.total_conflicts,
        "cycles": _cycles(result.cycles),
        "ideal_cycles": _cycles(result.ideal_cycles),
        "split": {
            "unit": result.split,
            "merged_instructions": int(result.merged.sum()),
            "explanations": explanations,
        },
        "warps": per_warp,
    }
    report["verdict"] = verdict(report)
    if site.op == "ldgsts":
        report["verdict"] += (" cp.async: exact when each group of lanes copies from one global 128-byte "
                              "line, each lane its own bytes, else a lower bound; ncu counts no shared "
                              "wavefronts for cp.async.cg (docs/rules.md, cp.async).")
    return report


def _cycles(cycles: np.ndarray) -> float | None:
    """Total modelled cycles, or None where the engine has no measured cycle model."""
    if len(cycles) and np.isnan(cycles).any():
        return None
    return float(cycles.sum())


def shared_pipe(analysis: Analysis, sites: list[dict]) -> PipeCycles:
    """Shared-pipe cycles per simulated block (the average of the blocks run) and of the whole launch,
    every block of the grid costing what they do."""
    runs = max(1, len(analysis.blocks))
    totals = [sum(float("nan") if site[key] is None else site[key] for site in sites) / runs
              for key in ("cycles", "ideal_cycles")]
    return PipeCycles(totals[0], totals[1], int(np.prod(analysis.grid)), analysis.arch)


def _source_line(analysis: Analysis, file: str, line: int) -> str:
    """Line ``line`` of ``file`` as written (an included header's own text for its lines)."""
    lines = analysis.source_lines
    if file and file != analysis.filename:
        lines = _file_lines(file)
    if 1 <= line <= len(lines):
        return lines[line - 1].strip()
    return ""


def _file_lines(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read().splitlines()
    except OSError:
        return []


def _explanations(result: SimulationResult, blocks: list, warps: np.ndarray) -> list[dict]:
    """The engine's sentence for each distinct (wavefronts, ideal, merged) class of instructions."""
    if len(result) == 0:
        return []
    keys = np.stack([result.wavefronts, result.ideal, result.merged.astype(np.int64)], axis=1)
    classes, first, counts = np.unique(keys, axis=0, return_index=True, return_counts=True)
    out = []
    for (wavefronts, ideal, merged), index, count in zip(classes, first, counts, strict=True):
        out.append({
            "wavefronts": int(wavefronts), "ideal": int(ideal), "merged": bool(merged),
            "instructions": int(count),
            "example": {"block": list(blocks[index]), "warp": int(warps[index])},
            "text": result.describe(int(index)),
            "bank_map": _bank_map(result.bank_map(int(index))),
        })
    out.sort(key=lambda e: -e["instructions"])
    return out


def _bank_map(bank_map: BankMap) -> dict:
    """The engine's bank map of one instruction as data: per lane group, the words each
    bank serves and the lanes asking for them."""
    groups = []
    for t, (lanes, per_bank) in enumerate(zip(bank_map.groups, bank_map.banks, strict=True)):
        banks = []
        for bank, hits in enumerate(per_bank):
            if not hits:
                continue
            cells = [{"word": w, "byte": w * bank_map.bank_bytes, "lanes": lane_list}
                     for w, lane_list in bank_map.words(t, bank)]
            banks.append({"bank": bank, "words": cells})
        groups.append({"lanes": [int(lanes[0]), int(lanes[-1])], "banks": banks})
    return {"groups": groups, "wavefronts_per_group": [int(w) for w in bank_map.wavefronts_per_transaction],
            "text": str(bank_map)}


def _per_warp(analysis: Analysis, site: SourceSite, result: SimulationResult, addresses: np.ndarray,
              active: np.ndarray, blocks: list, warps: np.ndarray) -> list[dict]:
    """Per (block, warp): wavefronts of each execution and the lane addresses of the first."""
    order: dict[tuple, list[int]] = {}
    for i, (block, warp) in enumerate(zip(blocks, warps.tolist(), strict=True)):
        order.setdefault((block, warp), []).append(i)
    out = []
    for (block, warp), indices in sorted(order.items()):
        first = indices[0]
        lanes = [int(a) if on else None for a, on in zip(addresses[first], active[first], strict=True)]
        out.append({
            "block": list(block),
            "warp": warp,
            "executions": len(indices),
            "wavefronts": result.wavefronts[indices].tolist(),
            "ideal": result.ideal[indices].tolist(),
            "conflicts": int(result.conflicts[indices].sum()),
            "lane_addresses": lanes,
            "lane_elements": [None if a is None else element_name(site.region, a) for a in lanes],
            "explanation": result.describe(first),
        })
    return out


def element_name(region: SharedVariable, address: int) -> str:
    """``A_shared[1][3]`` for a byte address inside ``region`` (a byte offset when the access
    does not line up with the array's elements)."""
    dims, element = array_shape(region.type)
    offset = address - region.base
    size = element.size
    if offset % size or not dims:
        return f"{region.name}+{offset}B" if dims else region.name
    flat = offset // size
    index = []
    for extent in reversed(dims):
        index.append(flat % extent)
        flat //= extent
    return region.name + "".join(f"[{i}]" for i in reversed(index))


def verdict(site: dict) -> str:
    """One sentence on the site: conflict-free or not, and what the conflicts cost."""
    n, wavefronts = site["instructions"], site["wavefronts"]
    ideal, conflicts = site["ideal"], site["conflicts"]
    if n == 0:
        return "Never executed in the simulated blocks."
    per = wavefronts / n
    per_text = f"{per:g} wavefront{'s' if per != 1 else ''} per warp-instruction"
    if conflicts == 0:
        return f"No bank conflicts: all {n} warp-instructions take their ideal count ({per_text})."
    hit = sum(1 for w in site["warps"] for wf, i in zip(w["wavefronts"], w["ideal"], strict=True) if wf > i)
    return (f"Bank conflicts: {hit} of {n} warp-instructions need more wavefronts than ideal; "
            f"{wavefronts} wavefronts instead of {ideal} ({conflicts} counted as conflicts, "
            f"{wavefronts / ideal:.2f}x the conflict-free cost).")


def _snapshot_report(snapshot: Snapshot) -> dict:
    return {
        "line": snapshot.line,
        "when": snapshot.when,
        "block": list(snapshot.block),
        "arrays": {
            a.name: {"dtype": a.dtype, "shape": a.shape, "base_offset": a.base_offset,
                     "element_size": a.element_size, "cells": a.cells}
            for a in snapshot.arrays
        },
    }
