"""Raw tracer records to trace launches (format v1): sites with SASS and source line, record arrays.

A program run with ``CUDA_INJECTION64_PATH`` pointing at the tracer writes one cubin per module, one raw
record file per traced launch and a ``manifest.jsonl``; ``convert_capture`` turns that into a trace document.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import numpy as np

from bankism.arch import LANES, MATRIX_OPS
from bankism.capture import async_events, cluster
from bankism.capture.build import build_tracer
from bankism.capture.disasm import SassInstruction, disassemble
from bankism.capture.phases import OTHER, store_phases
from bankism.capture.raw import (
    FLAG_ATOMSYS,
    FLAG_READ,
    FLAG_WRITE,
    KIND_MATRIX,
    TRACER_NAME,
    RawCapture,
    read_capture,
)
from bankism.capture.run import TraceOptions, run_traced, validate_options
from bankism.capture.sampling import (
    RecordsOverflow,
    blocks_recorded,
    repeated_launch_note,
    spread_note,
    spread_stride,
)
from bankism.capture.toolkit import environment, find_toolkit
from bankism.errors import BankismError
from bankism.isa import ldgsts_width_of_sass, matrix_shape_of_sass, op_of_sass

# `--blocks auto`: runs of the program, the first recording every block, before giving up on a spread
MAX_SPREAD_RUNS = 4


def classify_site(opcode: str | None, kind: int, flags: int, width: int, matrices: int) -> dict[str, Any]:
    """op, width, matrices and trans of a site, from its SASS opcode (or the Sanitizer flags without one)."""
    op = op_of_sass(opcode)
    if op is None and kind == async_events.KIND_ASYNC_COPY:
        op = "ldgsts"
    if op is None and kind == KIND_MATRIX:
        op = "stmatrix" if flags & FLAG_WRITE else "ldmatrix"
    if op is None:
        writes, reads = bool(flags & FLAG_WRITE), bool(flags & FLAG_READ)
        op = "atomic" if (writes and reads) or flags & FLAG_ATOMSYS else ("store" if writes else "load")
    if op in MATRIX_OPS:
        count, trans = matrix_shape_of_sass(opcode, matrices)
        return {"op": op, "width": 16, "matrices": count, "trans": trans}
    if op == "ldgsts" and not width:
        width = ldgsts_width_of_sass(opcode) or 16
    return {"op": op, "width": int(width), "matrices": None, "trans": False}


def _site_offsets(records: np.ndarray, launch: dict[str, Any]) -> np.ndarray:
    """Each record's byte offset in its function: pc minus the function's start when the tracer knew it."""
    pc = records["pc"].astype(np.int64)
    start = int(launch.get("function_pc") or 0)
    size = int(launch.get("function_size") or 0)
    if start and len(pc) and pc.min() >= start and (not size or pc.max() < start + size):
        return pc - start
    return pc


def _most_common(values: np.ndarray) -> int:
    uniques, counts = np.unique(values, return_counts=True)
    return int(uniques[np.argmax(counts)])


def display_path(path: str | None) -> str | None:
    """A source path from the line table, relative to the working directory when it lies inside it."""
    if not path:
        return None
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return path


def build_sites(
    records: np.ndarray, offsets: np.ndarray, sass: dict[int, SassInstruction]
) -> tuple[list[dict[str, Any]], np.ndarray]:
    """One site per distinct program counter (sorted), and each record's site id."""
    unique, site_of_record = np.unique(offsets, return_inverse=True)
    phases = store_phases(sass) if sass else {}
    sites = []
    for site_id, offset in enumerate(unique.tolist()):
        mine = records[site_of_record == site_id]
        instruction = sass.get(offset)
        shape = classify_site(
            instruction.opcode if instruction else None,
            _most_common(mine["kind"]),
            _most_common(mine["flags"]),
            _most_common(mine["width"]),
            _most_common(mine["matrices"]),
        )
        sites.append(
            {
                "id": site_id,
                "pc": int(offset),
                "sass": instruction.opcode if instruction else None,
                **shape,
                "file": display_path(instruction.file) if instruction else None,
                "line": instruction.line if instruction else None,
                **({"phase": phases.get(int(offset), OTHER)}
                   if instruction and shape["op"] == "store" else {}),
            }
        )
    return sites, site_of_record.astype(np.int32)


def record_arrays(
    records: np.ndarray, site_of_record: np.ndarray, grid: Sequence[int]
) -> dict[str, np.ndarray]:
    """The trace's record arrays, sorted by block then warp (each warp's records stay in program order)."""
    block = records["block"].astype(np.int64)
    linear = block[:, 0] + grid[0] * (block[:, 1] + grid[1] * block[:, 2])
    order = np.lexsort((records["warp"], linear))
    active = records["active"][order].astype(np.uint32)
    addresses = records["addresses"][order].astype(np.int64)
    lanes = ((active[:, None].astype(np.int64) >> np.arange(LANES)) & 1).astype(bool)
    addresses[~lanes] = 0
    return {
        "block": records["block"][order].astype(np.int32),
        "warp": records["warp"][order].astype(np.int32),
        "site": site_of_record[order].astype(np.int32),
        "active": active,
        "addresses": addresses,
    }


def without_duplicate_matrix_records(records: np.ndarray) -> np.ndarray:
    """Drop ordinary-access records at program counters the matrix callback also reported."""
    matrix_pcs = np.unique(records["pc"][records["kind"] == KIND_MATRIX])
    if matrix_pcs.size == 0:
        return records
    duplicate = (records["kind"] != KIND_MATRIX) & np.isin(records["pc"], matrix_pcs)
    return records[~duplicate]


#: SASS families that move data into or out of shared memory but that the tracer does not record, with
#: what they do. A converted launch lists the ones in its kernel (``unrecorded_shared``), so `analyze` can
#: say which shared traffic its prediction leaves out. A family the tracer learns to record leaves this table.
UNRECORDED_SHARED = {
    "HGMMA": "wgmma: the tensor cores read matrix operands from shared memory through descriptors",
    "UBLKCP": "cp.async.bulk: a bulk copy to or from shared memory (TMA unit)",
    "UTMALDG": "cp.async.bulk.tensor: a tensor load into shared memory (TMA unit)",
    "UTMASTG": "cp.async.bulk.tensor: a tensor store from shared memory (TMA unit)",
    "UBLKRED": "cp.reduce.async.bulk: a bulk reduction from shared memory (TMA unit)",
    "UTMAREDG": "cp.reduce.async.bulk.tensor: a tensor reduction from shared memory (TMA unit)",
    "CALL.ABS": "a call into the CUDA runtime (device printf: ncu counts 4-5 shared atomic wavefronts per "
                "warp and call, with no instruction)",
    "UCGABAR_ARV": "a thread-block cluster barrier: the blocks' accesses to each other's shared memory "
                   "(distributed shared memory) are not recorded; ncu counts a remote atomic as one shared "
                   "atomic wavefront with no instruction",
}


def _unrecorded_family(opcode: str) -> str | None:
    """The UNRECORDED_SHARED entry an opcode belongs to (an entry names an opcode or its leading part)."""
    return next((key for key in UNRECORDED_SHARED if opcode == key or opcode.startswith(key + ".")), None)


def unrecorded_shared(function: dict[int, SassInstruction]) -> list[dict[str, Any]]:
    """The instructions of a kernel's code (static count, by opcode and source line) that move shared-memory
    data without being recorded (UNRECORDED_SHARED)."""
    found: dict[tuple[str, str | None, int | None], int] = {}
    for instruction in function.values():
        if _unrecorded_family(instruction.opcode):
            key = (instruction.opcode, display_path(instruction.file), instruction.line)
            found[key] = found.get(key, 0) + 1
    ordered = sorted(found.items(), key=lambda item: (item[0][0], str(item[0][1:])))
    return [
        {"sass": sass, "instructions": count, "file": file, "line": line,
         "what": UNRECORDED_SHARED[_unrecorded_family(sass) or ""]}
        for (sass, file, line), count in ordered
    ]


def convert_launch(
    launch: dict[str, Any], records: np.ndarray, sass: dict[str, dict[int, SassInstruction]], blocks: str
) -> dict[str, Any]:
    """One traced launch of the manifest, with its raw records, as a trace-format launch."""
    grid = [int(v) for v in launch["grid"]]
    records, remote = cluster.split_remote(records)
    records, events = async_events.split_events(records)
    records = async_events.without_duplicate_async_records(without_duplicate_matrix_records(records))
    records, sources = async_events.split_sources(records)
    offsets = _site_offsets(records, launch)
    function = sass.get(launch["mangled"], {})
    sites, site_of_record = build_sites(records, offsets, function)
    for site in sites:
        if site["op"] == "ldgsts":
            mine = site_of_record == site["id"]
            site.update(async_events.source_grouping(site["width"], records["active"][mine], sources[mine]))
    async_block = async_events.async_summary(events, _site_offsets(events, launch), function, display_path)
    distributed = _distributed_shared(remote, launch, function)
    dynamic = launch.get("dynamic_shared")
    return {
        "index": int(launch["index"]),
        "kernel": launch.get("kernel") or launch["mangled"],
        "mangled": launch.get("mangled"),
        "grid": grid,
        "block": [int(v) for v in launch["block"]],
        "shared_bytes": {"static": max(int(launch.get("static_shared", 0)), 0), "dynamic": int(dynamic or 0)},
        "blocks_total": grid[0] * grid[1] * grid[2],
        "blocks_recorded": blocks_recorded(blocks, grid),
        "sites": sites,
        "records": record_arrays(records, site_of_record, grid),
        "counters": None,
        "counters_scope": "launch",
        # None: the kernel's SASS was not available (no nvdisasm), so nothing could be checked
        "unrecorded_shared": (
            async_events.without_recorded_events(unrecorded_shared(function), async_block)
            if function else None
        ),
        **({"async": async_block} if any(async_block.values()) else {}),
        **({"distributed_shared": distributed} if distributed else {}),
    }


def _distributed_shared(remote: np.ndarray, launch: dict[str, Any], function: dict[int, SassInstruction]
                        ) -> list[dict[str, Any]]:
    """The launch's accesses to other blocks' shared memory (capture.cluster), one entry per instruction:
    its site fields as ``build_sites`` gives them, the warp-instructions and their active lanes."""
    if not len(remote):
        return []
    sites, site_of_record = build_sites(remote, _site_offsets(remote, launch), function)
    lanes = np.array([bin(int(mask)).count("1") for mask in remote["active"]])
    return [{**{key: site[key] for key in ("pc", "sass", "file", "line", "op")},
             "executions": int((site_of_record == site["id"]).sum()),
             "lanes": int(lanes[site_of_record == site["id"]].sum())} for site in sites]


def _launch_names(capture: RawCapture) -> str:
    names = list(dict.fromkeys(str(launch.get("kernel")) for launch in capture.launches))
    shown = "; ".join(names[:8]) + ("; ..." if len(names) > 8 else "")
    return shown or "none"


def traced_launches(
    capture: RawCapture, options: TraceOptions, spread: int | None = None
) -> list[dict[str, Any]]:
    """The manifest's traced launches, after checking that nothing failed or was cut short.

    ``spread``: the stride of a `--blocks auto` capture (1: every block); records over --max-records then
    raise RecordsOverflow with the stride to trace again with, instead of an error.
    """
    if capture.errors:
        raise BankismError(f"the tracer reported: {capture.errors[0]}")
    for warning in capture.warnings:
        print(f"bankism trace: warning: {warning}", file=sys.stderr)
    traced = [launch for launch in capture.launches if launch.get("traced")]
    if not traced:
        wanted = f"matched --kernel {options.kernel!r}" if options.kernel else "was launched"
        raise BankismError(f"no kernel launch {wanted}; launches seen: {_launch_names(capture)}")
    stride, notes = 1, []
    for launch in traced:
        label = f"launch {launch['index']} ({launch.get('kernel')})"
        if not launch.get("ok"):
            raise BankismError(f"{label}: the tracer could not copy its records back (did the kernel fail?)")
        seen = int(launch["seen"])
        if seen <= int(launch["records"]):
            continue
        if spread is None:
            raise BankismError(
                f"{label}: {seen} shared-memory warp-instructions exceed --max-records "
                f"{options.max_records}; record fewer blocks (--blocks auto, every:S or first:K) or raise "
                f"--max-records"
            )
        grid = [int(v) for v in launch["grid"]]
        needed = spread_stride(seen, options.max_records, grid, spread)
        if needed > stride:
            stride, notes = needed, [spread_note(label, seen, options.max_records, needed, grid)]
    if notes:
        raise RecordsOverflow(notes[0], stride)
    return traced


def describe(
    command: Sequence[str], options: TraceOptions, launches: list[dict[str, Any]], note: str | None
) -> str:
    """The trace's description: what ran, what was kept, and how counters relate to addresses."""
    kept = "all blocks" if options.blocks in ("all", "auto") else f"blocks {options.blocks}"
    parts = [note] if note else []
    parts.append(
        f"Recorded with `bankism trace` ({TRACER_NAME}) from `{shlex.join(command)}`: "
        f"{len(launches)} launch(es) of kernels matching {options.kernel or 'any name'}"
        + (f", matching launches {list(options.launches)}" if options.launches else "")
        + f", {kept}. Addresses cover blocks_recorded; counters, when present, cover the whole launch."
    )
    return " ".join(parts)


def convert_capture(
    capture: RawCapture,
    command: Sequence[str],
    options: TraceOptions,
    env: dict[str, Any],
    nvdisasm: Path | None,
    source: str | None = None,
    note: str | None = None,
    sass: dict[str, dict[int, SassInstruction]] | None = None,
    spread: int | None = None,
) -> dict[str, Any]:
    """The whole trace document of a tracer run (``sass``: a ready SASS map instead of running nvdisasm;
    ``spread``: see `traced_launches`)."""
    chosen = traced_launches(capture, options, 1 if spread is None and options.blocks == "auto" else spread)
    if sass is None:
        sass = {}
        for module_id in sorted({int(launch["module"]) for launch in chosen}):
            module = capture.modules.get(module_id)
            if module and module.get("cubin"):
                kernels = {str(launch["mangled"]) for launch in chosen if int(launch["module"]) == module_id}
                sass.update(disassemble(capture.directory / module["cubin"], nvdisasm, kernels))
    launches = [convert_launch(launch, capture.records(launch), sass, options.blocks) for launch in chosen]
    return {
        "format": "bankism-trace",
        "version": 1,
        "description": describe(command, options, chosen, note),
        "environment": env,
        "program": {"command": list(command), "source": source},
        "launches": launches,
    }


def _write_context(
    raw_dir: Path,
    command: Sequence[str],
    options: TraceOptions,
    env: dict[str, Any],
    source: str | None,
    note: str | None,
) -> None:
    """Save what conversion needs beside the raw output, so a kept raw folder can be converted later."""
    context = {
        "command": list(command),
        "options": asdict(options),
        "environment": env,
        "source": source,
        "note": note,
    }
    (raw_dir / "context.json").write_text(json.dumps(context, indent=1), encoding="utf-8")


def convert_raw_folder(
    raw_dir: Path, nvdisasm: Path | None, sass: dict[str, dict[int, SassInstruction]] | None = None
) -> dict[str, Any]:
    """The trace document of a raw folder kept with --keep-raw (its context.json says how it was taken)."""
    context_file = Path(raw_dir) / "context.json"
    try:
        context = json.loads(context_file.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise BankismError(f"{context_file}: cannot read the capture context ({error})") from None
    options = context["options"]
    options = TraceOptions(
        options["kernel"], tuple(options["launches"]), options["blocks"], options["max_records"]
    )
    return convert_capture(
        read_capture(Path(raw_dir)),
        context["command"],
        options,
        context["environment"],
        nvdisasm,
        context.get("source"),
        context.get("note"),
        sass,
    )


def trace_program(
    command: Sequence[str],
    output: Path,
    options: TraceOptions,
    source: str | None = None,
    note: str | None = None,
    keep_raw: Path | None = None,
    timeout: float | None = None,
    seen: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Build the tracer if needed, run the program under it, and save the trace to ``output``.

    ``seen``, when given, receives every launch the tracer saw (traced or not: index, names, shape), which
    `bankism record` needs to profile exactly the traced launches.
    """
    from bankism.trace import save

    if not command:
        raise BankismError("no program given: put it after --, e.g. bankism trace -o t.json -- ./app")
    validate_options(options)
    toolkit = find_toolkit()
    env = environment(toolkit.nvcc)
    build = build_tracer(toolkit)
    spread = 1 if options.blocks == "auto" else None
    for _attempt in range(MAX_SPREAD_RUNS):
        with tempfile.TemporaryDirectory(prefix="bankism-trace-") as scratch:
            raw_dir = Path(scratch)
            _write_context(raw_dir, command, options, env, source, note)
            try:
                run_traced(command, build, options, raw_dir, timeout)
            finally:
                if keep_raw is not None:
                    shutil.copytree(raw_dir, keep_raw, dirs_exist_ok=True)
            capture = read_capture(raw_dir)
            try:
                doc = convert_capture(capture, command, options, env, toolkit.nvdisasm, source, note,
                                      spread=spread)
            except RecordsOverflow as overflow:  # --blocks auto: run again, recording a spread of blocks
                print(f"{overflow}; running the program again", file=sys.stderr)
                spread, options = overflow.stride, replace(options, blocks=f"every:{overflow.stride}")
                continue
            if seen is not None:
                seen.extend(capture.launches)
        save(doc, output)
        if (repeated := repeated_launch_note(doc["launches"])) is not None:
            print(repeated, file=sys.stderr)
        return doc
    raise BankismError(f"the records still exceed --max-records {options.max_records} when recording "
                       f"{options.blocks}; raise --max-records or choose blocks with --blocks")
