"""The text form of an explain report (its typed records): the same facts as ``--json``, laid out for
reading. The ``--trace`` comparison and the snapshot's cells are read as the plain dicts they are."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from bankism.arch import LANES
from bankism.explain.cuda.unmodelled import render_unmodelled
from bankism.explain.frontend.preprocess import stand_in_name
from bankism.explain.output.records import (
    BankGeometry,
    ExplainReport,
    SiteRecord,
    SnapshotArrayRecord,
    SnapshotRecord,
    WarpEntry,
)

DEFAULT_WARPS_SHOWN = 8
GRID_COLUMNS = 16


def render(report: ExplainReport | dict, all_warps: bool = False, bank_maps: bool = False) -> str:
    """The report as text: launch, arrays, each access site warp by warp, then the snapshot. A dict
    (the JSON report, as ``bankism.explain.explain`` returns it) is read into records first."""
    if isinstance(report, dict):
        report = ExplainReport.from_dict(report)
    lines = _header(report)
    for site in report.sites:
        lines.append("")
        lines.extend(_site(site, all_warps, bank_maps, report.file))
    if report.unmodelled:
        main = report.file
        lines.extend(render_unmodelled(list(report.unmodelled), lambda entry: _where(
            entry.get("file", main), entry["line"],
            [(c["function"], c["file"], c["line"]) for c in entry.get("call_stack") or []], main)))
    if not report.sites and not report.unmodelled:
        lines.append("")
        lines.append("No shared-memory accesses ran in the simulated blocks.")
    elif report.shared_pipe.modelled:
        lines.append("")
        lines.append(report.shared_pipe.describe())
        left_out = sum(entry["instructions"] for entry in report.unmodelled)
        if left_out:
            lines.append(f"  (not counting the {left_out:,} warp-instructions of the "
                         f"{len(report.unmodelled)} access(es) above whose wavefronts are not counted)")
    if report.trace:
        lines.append("")
        lines.extend(render_trace(report.trace))
    if report.snapshot:
        lines.append("")
        lines.extend(render_snapshot(report.snapshot, report.bank_geometry))
    return "\n".join(lines)


def _dims(values: Sequence[int]) -> str:
    return "(" + ",".join(str(v) for v in values) + ")"


def _grid_dims(grid: Sequence[int] | None) -> str:
    """The launch's grid, or that it is not known (the answer is then per block)."""
    return "not known" if grid is None else _dims(grid)


def _header(report: ExplainReport) -> list[str]:
    launch = report.launch
    blocks = ", ".join(_dims(b) for b in launch.blocks[:8])
    if len(launch.blocks) > 8:
        blocks += f", ... ({len(launch.blocks)} blocks)"
    lines = [
        f"{report.file}: kernel {report.kernel}, {report.arch}",
        f"launch: grid {_grid_dims(launch.grid)}, block {_dims(launch.block)} (from {launch.origin}); "
        f"{launch.threads_per_block} threads = {_count(launch.warps_per_block, 'warp')} per block; "
        f"simulated block{'s' if len(launch.blocks) > 1 else ''} {blocks}",
    ]
    if launch.template:
        lines.append("template arguments: " + ", ".join(f"{k}={v}" for k, v in launch.template.items()))
    if launch.parameters:
        lines.append("scalar arguments: " + ", ".join(
            f"{k}={'unknown' if v is None else v}" for k, v in launch.parameters.items()))
    lines.extend(f"assumption: {note}" for note in report.assumptions)
    if launch.launches_in_file > 1 and launch.origin.startswith("line"):
        lines.append(f"note: the file launches {report.kernel} {launch.launches_in_file} times; "
                     f"this is the launch on {launch.origin} (use -D, --grid and --block for another)")
    if launch.dynamic_shared_bytes:
        lines.append(f"dynamic shared memory: {launch.dynamic_shared_bytes} bytes")
    for array in report.shared_arrays:
        shape = "".join(f"[{d}]" for d in array.shape)
        lines.append(f"shared: {array.dtype} {array.name}{shape} at bytes {array.base_offset}.."
                     f"{array.base_offset + array.size_bytes - 1} ({array.size_bytes} bytes, "
                     f"declared line {array.line}{', extern' if array.extern else ''})")
    return lines


def _where(file: str, line: int, stack: Sequence[tuple[str, str, int]], main_file: str) -> str:
    """``line 90`` (``header.cuh:90`` in another file), with the inline call stack (function, file,
    line per call) of an access inside a helper: ``line 90 in ld_vec, called from line 142``."""
    def place(file: str, line: int) -> str:
        if file == main_file:
            return f"line {line}"
        return f"{stand_in_name(file) or file}:{line}"

    text = place(file, line)
    for function, call_file, call_line in stack:
        text += f" in {function}, called from {place(call_file, call_line)}"
    return text


def _site(site: SiteRecord, all_warps: bool, bank_maps: bool, main_file: str = "") -> list[str]:
    stack = [(c.function, c.file, c.line) for c in site.call_stack]
    lines = [
        f"{_where(site.file, site.line, stack, main_file or site.file)}: {site.op}"
        f"{' ' + site.atomic_op if site.atomic_op else ''} "
        f"{site.expression} ({site.width}-byte {site.dtype})",
        f"  source:      {site.source}",
        *([f"  SASS:        {site.sass} (nvcc, sm_90)"] if site.sass else []),
        f"  total:       {_count(site.instructions, 'warp-instruction')}, "
        f"{_count(site.wavefronts, 'wavefront')}, ideal {site.ideal}, "
        f"conflicts {site.conflicts} (ncu), {_cycles_text(site.cycles)}",
        f"  grouping:    {site.split_unit} transactions; a merge rule fired in "
        f"{site.merged_instructions} of {site.instructions} instructions",
    ]
    for entry in site.explanations:
        lines.append(f"  engine:      [{entry.instructions} instr., e.g. block "
                     f"{_dims(entry.example_block)} warp {entry.example_warp}] {entry.text}")
        if bank_maps:
            lines.extend("               " + row for row in entry.bank_map.text.split("\n"))
    warps = site.warps
    shown = warps if all_warps else warps[:DEFAULT_WARPS_SHOWN]
    several_blocks = len({w.block for w in warps}) > 1
    for warp in shown:
        label = f" of block {_dims(warp.block)}" if several_blocks else ""
        lines.append(f"  warp {warp.warp:>2}{label}: {_wavefront_summary(warp)}")
        lines.append(f"           lanes (first execution): {summarize_lanes(warp)}")
    if len(shown) < len(warps):
        lines.append(f"  ... {len(warps) - len(shown)} more warps (--all-warps shows them)")
    lines.append(f"  verdict:     {site.verdict}")
    return lines


def _cycles_text(cycles: float | None) -> str:
    return "cycles not modelled for this instruction" if cycles is None else f"~{cycles:g} cycles"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _wavefront_summary(warp: WarpEntry) -> str:
    counts = Counter(zip(warp.wavefronts, warp.ideal, strict=True))
    parts = []
    for (wavefronts, ideal), times in sorted(counts.items()):
        extra = wavefronts - ideal
        conflict = f", {extra} conflict{'s' if extra != 1 else ''}" if extra else ""
        parts.append(f"{wavefronts} wavefront{'s' if wavefronts != 1 else ''} (ideal {ideal}{conflict}) "
                     f"x {times}")
    return f"{warp.executions} execution{'s' if warp.executions != 1 else ''}: " + "; ".join(parts)


def summarize_lanes(warp: WarpEntry | dict) -> str:
    """Lane addresses as runs: ``lanes 0-15 -> A_shared[0][0..15] (bytes 1024..1144, step 8)``."""
    if isinstance(warp, dict):
        warp = WarpEntry.from_dict(warp)
    addresses, elements = warp.lane_addresses, warp.lane_elements
    runs: list[tuple[int, int, int]] = []
    lane = 0
    while lane < LANES:
        if addresses[lane] is None:
            end = lane
            while end + 1 < LANES and addresses[end + 1] is None:
                end += 1
            runs.append((lane, end, -1))
            lane = end + 1
            continue
        end = lane
        step = None
        while end + 1 < LANES and addresses[end + 1] is not None:
            delta = addresses[end + 1] - addresses[end]
            if step is None:
                step = delta
            elif delta != step:
                break
            end += 1
        runs.append((lane, end, step or 0))
        lane = end + 1
    parts = [_run_text(addresses, elements, first, last, step) for first, last, step in runs]
    if len(parts) > 8:
        parts = parts[:6] + [f"... ({len(parts)} runs in all)"]
    return "; ".join(parts)


def _run_text(addresses: Sequence, elements: Sequence, first: int, last: int, step: int) -> str:
    lanes = f"lane {first}" if first == last else f"lanes {first}-{last}"
    if step == -1:
        return f"{lanes} inactive"
    if first == last:
        return f"{lanes} -> {elements[first]} (byte {addresses[first]})"
    if step == 0:
        return f"{lanes} -> {elements[first]} (byte {addresses[first]}, all the same address)"
    return (f"{lanes} -> {elements[first]}..{elements[last]} (bytes {addresses[first]}..{addresses[last]}, "
            f"step {step})")


# --- trace comparison --------------------------------------------------------------------


def render_trace(trace: dict) -> list[str]:
    """Source-level sites next to the trace's SASS sites, line by line, and launch totals."""
    env = trace["environment"]
    where = ", ".join(f"{k} {v}" for k, v in env.items() if v)
    scale = trace["totals"]["scale"]
    lines = [
        f"compared with {trace['file']}, launch {trace['launch']}: {trace['kernel']}"
        + (f" ({where})" if where else ""),
        (f"  blocks recorded: {trace['blocks_recorded']} of {trace['blocks_total']}"
         if trace.get("blocks_in_trace", trace["blocks_recorded"]) == trace["blocks_recorded"] else
         f"  blocks compared: {trace['blocks_recorded']} (spread over the {trace['blocks_in_trace']} "
         f"recorded) of {trace['blocks_total']}")
        + (f"; launch totals below are scaled by {scale:g}" if scale != 1 else ""),
    ]
    for entry in trace["lines"]:
        place = (f"line {entry['line']}" if entry.get("file") in (None, trace.get("source_file"))
                 else f"{entry['file']}:{entry['line']}")
        lines.append(f"  {place}: {entry['note']}")
        source = "; ".join(f"{s['array']}: {s['op']} ({s['width']} B): {_counts(s)}" for s in entry["source"])
        sass = "; ".join(f"{s['array']}: {s['sites']} x {s['sass'] or s['op']} ({s['width']} B): {_counts(s)}"
                         for s in entry["sass"])
        lines.append(f"           source: {source or 'none'}")
        lines.append(f"           SASS:   {sass or 'none'}")
    totals = trace["totals"]
    for op_class in ("ld", "st", "atom", "ldgsts"):
        if op_class not in totals["source"] or op_class not in totals["sass"]:
            continue
        source, sass = totals["source"][op_class], totals["sass"][op_class]
        measured = (totals["measured"] or {}).get(op_class)
        if not any(source.values()) and not any(sass.values()) and not (measured and any(measured.values())):
            continue
        parts = []
        for metric in ("instructions", "wavefronts", "conflicts"):
            ncu = "not measured" if measured is None else _number(measured[metric])
            predicted = f"source {_number(source[metric])}, SASS {_number(sass[metric])}"
            parts.append(f"{metric}: {predicted}, ncu {ncu}")
        lines.append(f"  launch totals ({op_class}): " + "; ".join(parts))
        caveat = totals.get("caveats", {}).get(op_class)
        if caveat:
            lines.append(f"  ({op_class}: ncu's counts are not judged: {caveat})")
    return lines


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"


def _counts(site: dict) -> str:
    return (f"{site['instructions']} instr., {site['wavefronts']} wavefronts, ideal {site['ideal']}, "
            f"{site['conflicts']} conflicts")


# --- snapshot ----------------------------------------------------------------------------


def render_snapshot(snapshot: SnapshotRecord, geometry: BankGeometry) -> list[str]:
    """Every shared array at the snapshot as grids: source element, byte offset, bank(s)."""
    when = ", ".join(f"{k}={v}" for k, v in snapshot.when.items())
    lines = [f"snapshot after line {snapshot.line}{' with ' + when if when else ''}, block "
             f"{_dims(snapshot.block)}"]
    for array in snapshot.arrays:
        lines.append("")
        lines.extend(_snapshot_array(array, geometry))
    return lines


def _snapshot_array(array: SnapshotArrayRecord, geometry: BankGeometry) -> list[str]:
    name, shape, cells = array.name, list(array.shape), list(array.cells)
    lines = [f"{name}: {array.dtype}{''.join(f'[{d}]' for d in shape)} at byte {array.base_offset} "
             f"({array.element_size} bytes per element)"]
    formula = source_formula(name, shape, cells)
    if formula:
        lines.append(f"  contents: {formula}")
    layout = address_formula(name, shape, cells)
    if layout:
        word = geometry.bank_bytes
        lines.append(f"  layout:   {layout}; bank = (byte / {word}) mod {geometry.banks} "
                     f"for each {word}-byte word")
    matrix = _single_matrix(cells)
    legend = (f"element of {matrix} (offset from its start)" if matrix
              else "what the cell holds")
    rows = _grid_rows(shape, cells, array.element_size, geometry.banks * geometry.bank_bytes)
    lines.append(f"  {legend}; '-' = never written, '=v' = a value computed in the kernel:")
    lines.extend(_grid(rows, lambda c: _source_cell(c, matrix)))
    lines.append("  byte offset:")
    lines.extend(_grid(rows, lambda c: str(c["byte_offset"])))
    lines.append("  bank(s):")
    lines.extend(_grid(rows, lambda c: ",".join(str(b) for b in c["banks"])))
    return lines


def _single_matrix(cells: list[dict]) -> str | None:
    names = {c["source"].split("[")[0] for c in cells if c["source"] and "[" in c["source"]
             and not c["source"].startswith("=")}
    dotted = any(c["source"] and "]." in c["source"] for c in cells)
    return names.pop() if len(names) == 1 and not dotted else None


def _source_cell(cell: dict, matrix: str | None) -> str:
    source = cell["source"]
    if source is None:
        return "-"
    if matrix and source.startswith(matrix + "["):
        return source[len(matrix) + 1:-1]
    return source


def _grid_rows(shape: list[int], cells: list[dict], element_size: int,
               pass_bytes: int) -> list[tuple[str, list[dict]]]:
    """Rows of the grid: the last dimension across; 1-D arrays in rows of one pass over
    the banks (128 bytes on sm_90), so a column of the grid is one bank."""
    width = shape[-1] if len(shape) >= 2 else max(1, pass_bytes // element_size)
    rows = []
    for start in range(0, len(cells), width):
        row = cells[start:start + width]
        index = row[0]["index"]
        label = "".join(f"[{i}]" for i in index[:-1]) if len(shape) >= 2 else f"[{index[0]}..]"
        rows.append((label, row))
    return rows


def _grid(rows: list[tuple[str, list[dict]]], text: Callable[[dict], str]) -> list[str]:
    if not rows:
        return []
    rendered = [(label, [text(c) for c in row]) for label, row in rows]
    width = max(len(t) for _, row in rendered for t in row)
    label_width = max(len(label) for label, _ in rendered)
    columns = max(len(row) for _, row in rendered)
    out = []
    for start in range(0, columns, GRID_COLUMNS):
        if columns > GRID_COLUMNS:
            out.append(f"    columns {start}..{min(columns, start + GRID_COLUMNS) - 1}:")
        for label, row in rendered:
            chunk = row[start:start + GRID_COLUMNS]
            out.append(f"    {label:>{label_width}} " + " ".join(f"{t:>{width}}" for t in chunk))
    return out


_INDEX_NAMES = "ijklmn"


def source_formula(name: str, shape: list[int], cells: list[dict]) -> str | None:
    """``A_shared[i][j] holds A_mat[4112 + 256*i + j]`` when every cell comes from one
    matrix and the offset is affine in the indices (checked on every cell)."""
    matrix = _single_matrix(cells)
    if matrix is None or any(c["source"] is None or not c["source"].startswith(matrix + "[") for c in cells):
        return None
    offsets = {tuple(c["index"]): int(c["source"][len(matrix) + 1:-1]) for c in cells}
    coefficients = _affine(offsets, len(cells[0]["index"]))
    if coefficients is None:
        return None
    return f"{name}{_index_text(len(shape))} holds {matrix}[{_affine_text(coefficients)}]"


def address_formula(name: str, shape: list[int], cells: list[dict]) -> str | None:
    """``&A_shared[i][j] = byte 1024 + 128*i + 8*j`` (affine by construction of C arrays)."""
    offsets = {tuple(c["index"]): c["byte_offset"] for c in cells}
    coefficients = _affine(offsets, len(cells[0]["index"])) if cells else None
    if coefficients is None:
        return None
    return f"{name}{_index_text(len(shape))} is at byte {_affine_text(coefficients)}"


def _index_text(rank: int) -> str:
    return "".join(f"[{_INDEX_NAMES[d]}]" for d in range(rank))


def _affine(values: dict[tuple, int], rank: int) -> list[int] | None:
    origin = (0,) * rank
    if origin not in values:
        return None
    constant = values[origin]
    slopes = []
    for d in range(rank):
        unit = tuple(1 if k == d else 0 for k in range(rank))
        slopes.append(values[unit] - constant if unit in values else 0)
    for index, value in values.items():
        if constant + sum(s * i for s, i in zip(slopes, index, strict=True)) != value:
            return None
    return [constant, *slopes]


def _affine_text(coefficients: list[int]) -> str:
    constant, *slopes = coefficients
    parts = [str(constant)]
    for d, slope in enumerate(slopes):
        if slope == 0:
            continue
        term = _INDEX_NAMES[d] if slope == 1 else f"{slope}*{_INDEX_NAMES[d]}"
        parts.append(f"+ {term}" if slope > 0 or slope == 1 else f"- {abs(slope)}*{_INDEX_NAMES[d]}")
    return " ".join(parts)
