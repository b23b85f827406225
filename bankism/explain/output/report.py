"""From an ``Analysis`` to the report of `bankism explain`: one engine call per (site, op,
width), per-warp facts, the engine's own explanations, a verdict per site, and the
shared-memory snapshot, as the typed records of ``records`` (``to_dict()``: the JSON of
docs/explain.md)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from bankism.arch import LANES, get_arch
from bankism.engine import BankMap, SimulationResult, simulate
from bankism.engine.pipe import PipeCycles
from bankism.errors import BankismError
from bankism.explain.cuda.unmodelled import modelled, unmodelled_report
from bankism.explain.model import Analysis, Snapshot
from bankism.explain.output.records import (
    SCHEMA,
    BankCells,
    BankGeometry,
    BankMapRecord,
    CallFrame,
    ExplainReport,
    Explanation,
    LaneGroup,
    LaunchRecord,
    MatrixRecord,
    SharedArrayRecord,
    SiteRecord,
    SnapshotArrayRecord,
    SnapshotRecord,
    WarpEntry,
    WordCell,
    site_verdict,
)
from bankism.explain.simt.ctype import array_shape
from bankism.explain.simt.memory import SharedVariable
from bankism.explain.simt.recording import SourceSite

__all__ = ["SCHEMA", "ExplainReport", "build_records", "build_report", "element_name", "shared_pipe",
           "site_verdict", "verdict"]


def build_report(analysis: Analysis) -> dict:
    """The whole report as plain data (what ``--json`` prints): ``build_records(...).to_dict()``."""
    return build_records(analysis).to_dict()


def build_records(analysis: Analysis) -> ExplainReport:
    """The whole report as typed records (what ``render`` prints and ``--json`` serializes)."""
    threads = analysis.block[0] * analysis.block[1] * analysis.block[2]
    geometry = get_arch(analysis.arch)
    launch = LaunchRecord(
        grid=None if analysis.grid is None else tuple(analysis.grid), block=tuple(analysis.block),
        origin=analysis.launch_origin,
        threads_per_block=threads, warps_per_block=-(-threads // LANES),
        dynamic_shared_bytes=analysis.dynamic_shared, blocks=tuple(tuple(b) for b in analysis.blocks),
        launches_in_file=analysis.launches, template=analysis.template, parameters=analysis.parameters)
    sites = tuple(_site_report(analysis, site) for site in analysis.sites if modelled(site))
    trace = None
    if analysis.trace_launch is not None:
        from bankism.explain.output.against_trace import compare  # lazy: needs bankism.analyze

        trace = compare(analysis, sites, analysis.trace_launch)
    return ExplainReport(
        file=analysis.filename, kernel=analysis.kernel, arch=analysis.arch,
        bank_geometry=BankGeometry(geometry.banks, geometry.bank_bytes), launch=launch,
        shared_arrays=tuple(_array_info(a) for a in analysis.shared_arrays),
        matrices=tuple(MatrixRecord(m.name, m.pointee.name) for m in analysis.matrices),
        assumptions=tuple(analysis.assumptions) + tuple(
            cas_contention_note(site) for site in analysis.sites if shared_by_warps(site)), sites=sites,
        snapshot=_snapshot_report(analysis.snapshot) if analysis.snapshot is not None else None,
        shared_pipe=shared_pipe(analysis, sites),
        unmodelled=tuple(unmodelled_report(analysis, site) for site in analysis.sites if not modelled(site)),
        trace=trace)


def shared_by_warps(site: SourceSite) -> bool:
    """Whether ``site`` is a CAS retry loop (a float ``atomicAdd``) whose words two warps of one block both
    update: then a lane also retries when another warp's update lands between its load and its CAS."""
    if site.op != "atomic" or site.atomic_op != "cas_spin" or not modelled(site):
        return False
    owners: dict[tuple, int] = {}
    start = 0
    for warps, addresses, active in zip(site.warps, site.addresses, site.active, strict=True):
        for row, warp in enumerate(warps.tolist()):
            block = site.blocks[start + row]
            for address in np.unique(addresses[row][active[row]]).tolist():
                if owners.setdefault((block, address), warp) != warp:
                    return True
        start += len(warps)
    return False


def cas_contention_note(site: SourceSite) -> str:
    """The assumption line of a CAS retry loop whose words several warps update."""
    return (f"{site.file}:{site.line}: several warps of a block update the same words of "
            f"{site.region.name}: the CAS retry loop (LDS + ATOMS.CAST.SPIN) also runs again when another "
            "warp's update lands between a lane's load and its CAS, which depends on timing, so its counts "
            "are a lower bound (a public layernorm backward on the H100: 7% and 20% more iterations on its "
            "two lines than the same-warp rule gives)")


def _array_info(array: SharedVariable) -> SharedArrayRecord:
    dims, element = array_shape(array.type)
    return SharedArrayRecord(array.name, element.name, tuple(dims), array.base, array.size, array.line,
                             array.extern)


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


def _site_report(analysis: Analysis, site: SourceSite) -> SiteRecord:
    """One access site: totals, how the engine grouped the lanes, per-warp facts (its verdict is a
    property of the record)."""
    result, addresses, active = _simulate(analysis, site)
    warps = np.concatenate(site.warps) if site.warps else np.zeros(0, np.int64)
    blocks = site.blocks
    return SiteRecord(
        line=site.line,
        column=site.column + 1,
        file=site.file or analysis.filename,
        call_stack=tuple(CallFrame(name, line, file or analysis.filename) for name, line, file in site.stack),
        source=_source_line(analysis, site.file, site.line),
        expression=" ".join(site.expression.split()),
        array=site.array,
        shared_array=site.region.name,
        op=site.op,
        atomic_op=site.atomic_op,
        matrices=site.matrices,
        sass=site.sass,
        width=site.width,
        dtype=site.type.name,
        instructions=len(result),
        wavefronts=result.total_wavefronts,
        ideal=result.total_ideal,
        conflicts=result.total_conflicts,
        cycles=_cycles(result.cycles),
        ideal_cycles=_cycles(result.ideal_cycles),
        split_unit=result.split,
        merged_instructions=int(result.merged.sum()),
        explanations=_explanations(result, blocks, warps),
        warps=_per_warp(site, result, addresses, active, blocks, warps),
    )


def _cycles(cycles: np.ndarray) -> float | None:
    """Total modelled cycles, or None where the engine has no measured cycle model."""
    if len(cycles) and np.isnan(cycles).any():
        return None
    return float(cycles.sum())


def shared_pipe(analysis: Analysis, sites: Sequence[SiteRecord]) -> PipeCycles:
    """Shared-pipe cycles per simulated block (the average of the blocks run) and of the whole launch,
    every block of the grid costing what they do."""
    runs = max(1, len(analysis.blocks))
    totals = [sum(float("nan") if cycles is None else cycles for cycles in column) / runs
              for column in ([s.cycles for s in sites], [s.ideal_cycles for s in sites])]
    blocks = None if analysis.grid is None else int(np.prod(analysis.grid))
    return PipeCycles(totals[0], totals[1], blocks, analysis.arch)


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


def _explanations(result: SimulationResult, blocks: list, warps: np.ndarray) -> tuple[Explanation, ...]:
    """The engine's sentence for each distinct (wavefronts, ideal, merged) class of instructions."""
    if len(result) == 0:
        return ()
    keys = np.stack([result.wavefronts, result.ideal, result.merged.astype(np.int64)], axis=1)
    classes, first, counts = np.unique(keys, axis=0, return_index=True, return_counts=True)
    out = []
    for (wavefronts, ideal, merged), index, count in zip(classes, first, counts, strict=True):
        out.append(Explanation(
            wavefronts=int(wavefronts), ideal=int(ideal), merged=bool(merged), instructions=int(count),
            example_block=tuple(blocks[index]), example_warp=int(warps[index]),
            text=result.describe(int(index)), bank_map=_bank_map(result.bank_map(int(index)))))
    out.sort(key=lambda e: -e.instructions)
    return tuple(out)


def _bank_map(bank_map: BankMap) -> BankMapRecord:
    """The engine's bank map of one instruction as records: per lane group, the words each
    bank serves and the lanes asking for them."""
    groups = []
    for t, (lanes, per_bank) in enumerate(zip(bank_map.groups, bank_map.banks, strict=True)):
        banks = []
        for bank, hits in enumerate(per_bank):
            if not hits:
                continue
            cells = tuple(WordCell(w, w * bank_map.bank_bytes, tuple(lane_list))
                          for w, lane_list in bank_map.words(t, bank))
            banks.append(BankCells(bank, cells))
        groups.append(LaneGroup((int(lanes[0]), int(lanes[-1])), tuple(banks)))
    return BankMapRecord(tuple(groups), tuple(int(w) for w in bank_map.wavefronts_per_transaction),
                         str(bank_map))


def _per_warp(site: SourceSite, result: SimulationResult, addresses: np.ndarray,
              active: np.ndarray, blocks: list, warps: np.ndarray) -> tuple[WarpEntry, ...]:
    """Per (block, warp): wavefronts of each execution and the lane addresses of the first."""
    order: dict[tuple, list[int]] = {}
    for i, (block, warp) in enumerate(zip(blocks, warps.tolist(), strict=True)):
        order.setdefault((block, warp), []).append(i)
    out = []
    for (block, warp), indices in sorted(order.items()):
        first = indices[0]
        lanes = tuple(int(a) if on else None for a, on in zip(addresses[first], active[first], strict=True))
        out.append(WarpEntry(
            block=tuple(block),
            warp=warp,
            executions=len(indices),
            wavefronts=tuple(result.wavefronts[indices].tolist()),
            ideal=tuple(result.ideal[indices].tolist()),
            conflicts=int(result.conflicts[indices].sum()),
            lane_addresses=lanes,
            lane_elements=tuple(None if a is None else element_name(site.region, a) for a in lanes),
            explanation=result.describe(first),
        ))
    return tuple(out)


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


def verdict(site: SiteRecord | dict) -> str:
    """The verdict of a site (``site_verdict`` of its counts; a dict is a site of the JSON report)."""
    return (SiteRecord.from_dict(site) if isinstance(site, dict) else site).verdict


def _snapshot_report(snapshot: Snapshot) -> SnapshotRecord:
    arrays = tuple(SnapshotArrayRecord(a.name, a.dtype, tuple(a.shape), a.base_offset, a.element_size,
                                       tuple(a.cells))
                   for a in snapshot.arrays)
    return SnapshotRecord(snapshot.line, snapshot.when, tuple(snapshot.block), arrays)
