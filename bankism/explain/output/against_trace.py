"""Explain's source-level accesses next to a measured trace of the same kernel: per source
line, the accesses as written against the SASS instructions the compiler issued (with
the engine's counts on the recorded addresses), whether the interpreted addresses equal
the recorded ones, and the launch totals against Nsight Compute's counters."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from bankism.analyze import (
    CLASSES,
    COUNTED_AS_INSTRUCTIONS,
    METRICS,
    OPTIONAL_CLASSES,
    LaunchReport,
    analyze_launch,
    block_keys,
    ldgsts_caveat,
    records_in_blocks,
)
from bankism.arch import LANES, NCU_COUNTER_OF_OP
from bankism.errors import BankismError
from bankism.explain.model import Analysis, ExplainOptions
from bankism.explain.output.records import SiteRecord
from bankism.inputs import limit
from bankism.trace import Trace, blocks_recorded_count, open_trace
from bankism.trace.views import Launch

_HASH_SEED = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)


@dataclass
class TraceLaunch:
    """The trace launch explain is compared with, and what it fixes in the options."""

    trace: Trace
    launch: Launch
    template: list[str]


def kernel_base_name(demangled: str) -> str:
    """``matmul32`` from ``void matmul32<1>(float const*, ...)``."""
    head = demangled.split("(")[0].strip()
    depth, cut = 0, len(head)
    for i, ch in enumerate(head):
        if ch == "<":
            if depth == 0:
                cut = min(cut, i)
            depth += 1
        elif ch == ">":
            depth -= 1
    return head[:cut].split()[-1].split("::")[-1] if head[:cut].split() else head[:cut]


def template_arguments(demangled: str) -> list[str]:
    """The template arguments of a demangled kernel name (``["1"]`` for ``matmul32<1>(...)``)."""
    head = demangled.split("(")[0]
    match = re.search(r"<(.*)>\s*$", head)
    if not match:
        return []
    parts, depth, current = [], 0, ""
    for ch in match.group(1):
        if ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
            continue
        depth += (ch == "<") - (ch == ">")
        current += ch
    parts.append(current.strip())
    return [re.sub(r"^\((?:unsigned |signed )?\w+\)", "", p).rstrip("uUlL") or p for p in parts]


def open_launch(path: str, kernels: list[str], wanted: str | None, index: int | None) -> TraceLaunch:
    """The launch of ``path`` to compare with: ``index``, else the one launch of the kernel."""
    trace = open_trace(path)
    if index is not None:
        launch = trace.launch(index)
        return TraceLaunch(trace, launch, template_arguments(launch.kernel))
    names = [wanted] if wanted else kernels
    matching = [launch for launch in trace.launches if kernel_base_name(launch.kernel) in names]
    if not matching:
        found = ", ".join(sorted({kernel_base_name(launch.kernel) for launch in trace.launches}))
        raise BankismError(f"{path}: no launch of {' or '.join(names)} (it has {found or 'no launches'})")
    if len({kernel_base_name(launch.kernel) for launch in matching}) > 1:
        raise BankismError(f"{path}: launches of several kernels of the file; choose one with --kernel NAME")
    if len(matching) > 1:
        indices = ", ".join(str(launch.index) for launch in matching)
        raise BankismError(f"{path}: {len(matching)} launches of {kernel_base_name(matching[0].kernel)} "
                           f"(indices {indices}); choose one with --launch N")
    launch = matching[0]
    return TraceLaunch(trace, launch, template_arguments(launch.kernel))


def options_for(options: ExplainOptions, chosen: TraceLaunch, template_names: list[str]) -> ExplainOptions:
    """The options that make explain run what the trace recorded: its grid, block, recorded
    blocks and template arguments, unless the user gave them."""
    launch = chosen.launch
    defines = dict(options.defines)
    for name, value in zip(template_names, chosen.template, strict=False):
        defines.setdefault(name, value)
    block = options.block or launch.block
    blocks = compared_blocks(launch, block[0] * block[1] * block[2])
    return replace(
        options,
        kernel=options.kernel or kernel_base_name(launch.kernel),
        grid=options.grid or launch.grid,
        block=block,
        block_indices=options.block_indices or blocks,
        all_blocks=options.all_blocks or (options.block_indices is None and blocks is None),
        dynamic_shared=launch.shared_dynamic if options.dynamic_shared is None else options.dynamic_shared,
        defines=defines,
    )


#: Recorded blocks ``explain --trace`` interprets at most: a trace of a large launch (``record``'s
#: default spread) holds thousands, each as long to interpret as the first; the SASS side of the
#: comparison is then taken from the same blocks.
MAX_COMPARED_BLOCKS = 16


def compared_blocks(launch: Launch, threads_per_block: int) -> list[tuple[int, int, int]] | None:
    """The recorded blocks explain runs (None: every block of the grid): all of them, or, past
    ``MAX_COMPARED_BLOCKS`` (or the ``threads`` limit), that many spread evenly over the recorded ones."""
    recorded = launch.blocks_recorded
    count = launch.blocks_total if recorded == "all" else len(recorded)
    room = max(1, min(MAX_COMPARED_BLOCKS, limit("threads") // max(1, threads_per_block)))
    if count <= room:
        return None if recorded == "all" else [tuple(b) for b in recorded]
    picks = np.unique(np.linspace(0, count - 1, room).round().astype(np.int64))
    if recorded != "all":
        return [tuple(recorded[int(i)]) for i in picks]
    gx, gy, _ = launch.grid
    return [(int(i % gx), int(i // gx % gy), int(i // (gx * gy))) for i in picks]


def compare(analysis: Analysis, sites: Sequence[SiteRecord], chosen: TraceLaunch) -> dict:
    """The comparison of the report's ``sites`` with the trace, as plain data (the ``trace`` member of
    the explain report)."""
    trace, launch = chosen.trace, chosen.launch
    ran = block_keys([tuple(b) for b in analysis.blocks], launch.grid)
    recorded = launch.blocks_recorded
    every = block_keys([tuple(b) for b in recorded], launch.grid) if recorded != "all" else None
    subset = None if (every is not None and np.array_equal(ran, every)) or (
        every is None and len(ran) == launch.blocks_total) else ran
    ran_blocks = None if subset is None else [tuple(b) for b in analysis.blocks]
    sass = analyze_launch(trace, launch, blocks=ran_blocks)
    main = os.path.basename(analysis.filename)
    files = {main} | {_base(s.file, main) for s in analysis.sites}
    recorded_rows = _recorded_rows(trace, launch, subset)
    statement_of = _statement_lines(analysis, main)
    compiled_sites = [s for s in sass.sites
                      if s.site.line and _base(s.site.file, main) in files]
    for stats in compiled_sites:
        key = (_base(stats.site.file, main), stats.site.line)
        stats.site = replace(stats.site, line=statement_of.get(key, key[1]))

    def place(file: str | None, line: int) -> tuple[int, str]:
        return (line, _base(file, main))

    uncounted = [s for s in analysis.sites if s.unknown is not None]
    keys = sorted({place(s.file, s.line) for s in sites}
                  | {place(s.file, s.line) for s in uncounted}
                  | {place(s.site.file, s.site.line) for s in compiled_sites},
                  key=lambda k: (k[1] != main, k[1], k[0]))
    per_line = []
    for line, file in keys:
        source = [s for s in sites if place(s.file, s.line) == (line, file)]
        compiled = [s for s in compiled_sites
                    if place(s.site.file, s.site.line) == (line, file)]
        entry = _line_entry(line, source, compiled, analysis, recorded_rows, file, main)
        _add_uncounted(entry, [s for s in uncounted if place(s.file, s.line) == (line, file)])
        per_line.append(entry)
    return {
        "file": str(trace.path),
        "source_file": main,
        "launch": launch.index,
        "kernel": launch.kernel,
        "grid": list(launch.grid),
        "block": list(launch.block),
        "blocks_total": launch.blocks_total,
        "blocks_recorded": sass.blocks_recorded,
        "blocks_in_trace": blocks_recorded_count(launch.json),
        "environment": {k: trace.doc["environment"].get(k) for k in ("gpu", "cuda", "ncu")},
        "lines": per_line,
        "totals": _totals(sites, sass),
    }


def _statement_lines(analysis: Analysis, main: str) -> dict[tuple[str, int], int]:
    """Each (file, line) of a multi-line statement with shared accesses -> the line of its
    access site, so SASS attributed to any line of the statement lands on that site's line."""
    mapping: dict[tuple[str, int], int] = {}
    for site in analysis.sites:
        first, last = site.span
        for line in range(first, last + 1):
            mapping.setdefault((_base(site.file, main), line), site.line)
    return mapping


def _base(file: str | None, main: str) -> str:
    """The file name a line is compared under (the kernel's file when none is given)."""
    return os.path.basename(file) if file else main


def _line_entry(line: int, source: list[SiteRecord], compiled: list, analysis: Analysis,
                recorded: dict[int, np.ndarray], file: str, main: str) -> dict:
    """One source line: its accesses as written and the SASS instructions of the line, both
    grouped by (shared array, op, width); addresses compared where the counts agree."""
    ours: dict[tuple, dict] = {}
    for site in source:
        key = (site.shared_array, site.op, site.width)
        entry = ours.setdefault(key, _group(key))
        _add(entry, site.instructions, site.wavefronts, site.ideal, site.conflicts)
    ours_rows = {key: [_site_rows(s) for s in analysis.sites
                       if s.line == line and _base(s.file, main) == file
                       and (s.region.name, s.op, s.width) == key]
                 for key in ours}
    theirs: dict[tuple, dict] = {}
    theirs_rows: dict[tuple, list[np.ndarray]] = {}
    for stats in compiled:
        rows = recorded.get(stats.site.id, np.zeros((0, 37), np.int64))
        key = (_arrays_hit(rows, analysis), stats.site.op, stats.site.width)
        entry = theirs.setdefault(key, _group(key, stats.site.sass, compiled=True))
        entry["sites"] += 1
        _add(entry, stats.executions, stats.wavefronts, stats.ideal, stats.conflicts)
        theirs_rows.setdefault(key, []).append(rows)
    verdicts = {}
    for array, op in dict.fromkeys([k[:2] for k in ours] + [k[:2] for k in theirs]):
        mine = {k: v for k, v in ours.items() if k[:2] == (array, op)}
        compiled_groups = {k: v for k, v in theirs.items() if k[:2] == (array, op)}
        verdicts[(array, op)] = _verdict(mine, compiled_groups, ours_rows, theirs_rows)
    written = ("as written", "as written, other addresses")
    same = bool(verdicts) and all(v in written for v in verdicts.values())
    addresses = all(v == "as written" for v in verdicts.values()) if same else None
    groups = [{"array": array, "op": op, "verdict": verdict} for (array, op), verdict in verdicts.items()]
    return {"line": line, "file": file, "source": list(ours.values()), "sass": list(theirs.values()),
            "groups": groups,
            "same_instructions": same, "same_addresses": addresses,
            "note": _note(list(ours.values()), list(theirs.values()), verdicts)}


def _add_uncounted(entry: dict, uncounted: list) -> None:
    """The line's accesses explain cannot count (``SourceSite.unknown``): their warp-instructions beside
    the SASS's; the group's verdict says whether the counts agree."""
    if not uncounted:
        return
    groups: dict[tuple, dict] = {}
    for site in uncounted:
        group = groups.setdefault((site.region.name, site.op, site.width), {
            "array": site.region.name, "op": site.op, "width": site.width, "instructions": 0,
            "why": site.unknown})
        group["instructions"] += sum(len(warps) for warps in site.warps)
    entry["not_counted"] = list(groups.values())
    verdicts = {(g["array"], g["op"]): g for g in entry["groups"]}
    for (array, op, width), group in groups.items():
        if any((g["array"], g["op"]) == (array, op) for g in entry["source"]):
            continue  # also counted accesses of the same array and op: the verdict stands
        theirs = sum(g["instructions"] for g in entry["sass"]
                     if (g["array"], g["op"], g["width"]) == (array, op, width))
        verdict = "as written, not counted" if theirs == group["instructions"] else "different"
        if (array, op) in verdicts:
            verdicts[(array, op)]["verdict"] = verdict
        else:
            entry["groups"].append({"array": array, "op": op, "verdict": verdict})
        entry["note"] = (f"{array} {op}s {verdict}: {group['instructions']} warp-instructions not counted "
                         f"({group['why']}), SASS {theirs}")
    entry["same_instructions"] = False
    entry["same_addresses"] = None


def _verdict(mine: dict, compiled: dict, ours_rows: dict, theirs_rows: dict) -> str:
    """How one (array, op) of a line was compiled: "as written" (same instruction counts per
    width and the same recorded addresses), "as written, other addresses", "same bytes,
    other instructions" (each lane fetches the same bytes, in instructions of other widths:
    the compiler vectorized or split them), "different", or "not compared" (too large)."""
    counts = {k[2]: v["instructions"] for k, v in mine.items()}
    if mine and counts == {k[2]: v["instructions"] for k, v in compiled.items()}:
        ours = _hashes([r for k in mine for r in ours_rows[k]])
        theirs = _hashes([r for k in compiled for r in theirs_rows[k]])
        return "as written" if np.array_equal(ours, theirs) else "as written, other addresses"
    if not mine or not compiled:
        return "different"
    # accesses are aligned to their width: compared in units of the narrowest width of either side,
    # equal units are equal bytes, and a line of 4-byte loads nvcc made LDS.128 fits the limit
    unit = math.gcd(*(k[2] for k in (*mine, *compiled)))
    ours_bytes = _byte_hashes([(r, k[2]) for k in mine for r in ours_rows[k]], unit)
    theirs_bytes = _byte_hashes([(r, k[2]) for k in compiled for r in theirs_rows[k]], unit)
    if ours_bytes is None or theirs_bytes is None:
        return "not compared"
    return "same bytes, other instructions" if np.array_equal(ours_bytes, theirs_bytes) else "different"


_BYTE_LIMIT = 1 << 24


def _byte_hashes(tables: list[tuple[np.ndarray, int]], unit: int = 1) -> np.ndarray | None:
    """Sorted hashes of (block, warp, lane, address) for every ``unit`` bytes every active lane
    touches (``unit`` divides every width); None when that would exceed _BYTE_LIMIT entries."""
    if sum(rows.shape[0] * LANES * (width // unit) for rows, width in tables) > _BYTE_LIMIT:
        return None
    parts = []
    for rows, width in tables:
        lanes = (rows[:, 4:5] >> np.arange(LANES)) & 1
        row_index, lane = np.nonzero(lanes)
        start = rows[row_index, 5 + lane]
        hashed = np.full(row_index.size, _HASH_SEED, np.uint64)
        with np.errstate(over="ignore"):
            for column in (*rows[row_index, :4].T, lane):
                hashed = (hashed ^ column.astype(np.uint64)) * _FNV_PRIME
            for offset in range(0, width, unit):
                parts.append((hashed ^ (start + offset).astype(np.uint64)) * _FNV_PRIME)
    return np.sort(np.concatenate(parts)) if parts else np.zeros(0, np.uint64)


def _group(key: tuple, sass: str | None = None, compiled: bool = False) -> dict:
    """Counts of one (array, op, width) group; SASS groups also name the opcode and count sites."""
    array, op, width = key
    group = {"array": array, "op": op, "width": width, "instructions": 0, "wavefronts": 0, "ideal": 0,
             "conflicts": 0}
    return {"sass": sass, "sites": 0, **group} if compiled else group


def _add(entry: dict, instructions: int, wavefronts: int, ideal: int, conflicts: int) -> None:
    entry["instructions"] += int(instructions)
    entry["wavefronts"] += int(wavefronts)
    entry["ideal"] += int(ideal)
    entry["conflicts"] += int(conflicts)


def _arrays_hit(rows: np.ndarray, analysis: Analysis) -> str:
    """The shared arrays (explain's layout) the recorded active addresses of a SASS site fall in."""
    if rows.shape[0] == 0:
        return "?"
    lanes = (rows[:, 4:5] >> np.arange(LANES)) & 1
    addresses = rows[:, 5:][lanes == 1]
    names = [a.name for a in analysis.shared_arrays
             if ((addresses >= a.base) & (addresses < a.base + a.size)).any()]
    return "+".join(names) if names else "outside the declared arrays"


def _note(source: list[dict], sass: list[dict], verdicts: dict[tuple, str]) -> str:
    """One sentence on how the compiled line compares with the source, array by array."""
    if verdicts and all(v == "as written" for v in verdicts.values()):
        return ("compiled as written: the same instructions, and the recorded addresses equal the "
                "interpreted ones")
    if not sass:
        return "no shared-memory instruction of the SASS is attributed to this line"
    if not source:
        return "the SASS attributes shared-memory instructions to this line; the source has none here"
    parts = []
    for (array, op), verdict in verdicts.items():
        ours = " + ".join(f"{g['instructions']} x {g['width']} B" for g in source
                          if (g["array"], g["op"]) == (array, op)) or "none"
        theirs = " + ".join(f"{g['instructions']} x {g['width']} B ({g['sass']} at {g['sites']} "
                            f"site{'s' * (g['sites'] > 1)})" for g in sass
                            if (g["array"], g["op"]) == (array, op)) or "none"
        parts.append(f"{array} {op}s {verdict}: source {ours}, SASS {theirs}")
    return "; ".join(parts)


def _totals(sites: Sequence[SiteRecord], sass: LaunchReport) -> dict:
    """Per ncu class: the source-level and SASS-level engine counts scaled to the launch, and
    what ncu measured."""
    scale = sass.scale
    classes = set(sass.classes) | {NCU_COUNTER_OF_OP[site.op] for site in sites}
    source: dict[str, dict[str, float]] = {
        c: {m: 0.0 for m in METRICS} for c in [*CLASSES, *(c for c in OPTIONAL_CLASSES if c in classes)]
    }
    for site in sites:
        # ldgsts is an optional class: a site of it opens its own totals
        totals = source.setdefault(NCU_COUNTER_OF_OP[site.op], {m: 0.0 for m in METRICS})
        if site.op in COUNTED_AS_INSTRUCTIONS:  # ncu counts LDSM/STSM wavefronts, not instructions
            totals["instructions"] += site.instructions * scale
        totals["wavefronts"] += site.wavefronts * scale
        totals["conflicts"] += site.conflicts * scale
    caveats = {}
    if "ldgsts" in source:
        caveat = ldgsts_caveat(sass.sites, "wavefronts")
        if caveat:
            caveats["ldgsts"] = caveat
    measured = None if sass.measured is None else {c: v.to_json() for c, v in sass.measured.items()}
    return {"scale": scale, "source": source, "sass": {c: dict(v.items()) for c, v in sass.predicted.items()},
            "measured": measured, "caveats": caveats}


def _site_rows(site) -> np.ndarray:  # noqa: ANN001
    """(block, warp, active mask, 32 addresses with inactive lanes 0) per warp-instruction."""
    if not site.addresses:
        return np.zeros((0, 37), np.int64)
    addresses = np.concatenate(site.addresses)
    active = np.concatenate(site.active)
    warps = np.concatenate(site.warps)
    blocks = np.asarray(site.blocks, np.int64).reshape(-1, 3)
    masks = (active.astype(np.int64) << np.arange(LANES)).sum(axis=1)
    return np.column_stack([blocks, warps, masks, np.where(active, addresses, 0)])


def _recorded_rows(trace: Trace, launch: Launch, blocks: np.ndarray | None) -> dict[int, np.ndarray]:
    """Per site, (block, warp, active mask, 32 addresses) of each record (of ``blocks`` only, if given)."""
    rows: dict[int, list[np.ndarray]] = {}
    for chunk in trace.chunks(launch):
        if blocks is not None:
            chunk = records_in_blocks(chunk, blocks, launch.grid)
        lanes = (chunk.active.astype(np.int64)[:, None] >> np.arange(LANES)) & 1
        table = np.column_stack([chunk.block.astype(np.int64), chunk.warp.astype(np.int64),
                                 chunk.active.astype(np.int64),
                                 np.where(lanes == 1, chunk.addresses.astype(np.int64), 0)])
        for site_id in np.unique(chunk.site):
            rows.setdefault(int(site_id), []).append(table[chunk.site == site_id])
    return {k: np.concatenate(v) for k, v in rows.items()}


def _hashes(tables: list[np.ndarray]) -> np.ndarray:
    """A sorted 64-bit FNV-style hash per row: equal multisets of rows give equal arrays."""
    rows = np.concatenate(tables) if tables else np.zeros((0, 37), np.int64)
    hashed = np.full(rows.shape[0], _HASH_SEED, np.uint64)
    with np.errstate(over="ignore"):
        for column in rows.T.astype(np.uint64):
            hashed = (hashed ^ column) * _FNV_PRIME
    return np.sort(hashed)
