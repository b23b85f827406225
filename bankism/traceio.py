"""Read, check and write bankism traces (format v1): a JSON document plus an optional ``.npz`` sibling.

``docs/trace-format.md`` describes the format; ``bankism/schemas/trace.schema.json`` is its JSON
Schema. Records are held as NumPy arrays in memory: block (n, 3) int32, warp (n,) int32, site (n,)
int32, active (n,) uint32, addresses (n, 32) int64. Records stored in the ``.npz`` sibling are
streamed in chunks (``iter_records``) so a big trace never has to fit in memory at once. Every
problem is a ``BankismError`` with a one-line message naming the file, the launch and the record.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import tempfile
import zipfile
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import IO, Any

import numpy as np

from bankism.arch import ARCHITECTURES, MATRIX_OPS, get_arch
from bankism.errors import BankismError

FORMAT = "bankism-trace"
VERSION = 1

#: ``save`` puts a launch's records into the ``.npz`` sibling when it has more than this many.
INLINE_RECORD_LIMIT = 20000

#: Default number of records per chunk that ``iter_records`` yields.
DEFAULT_CHUNK = 1 << 20

RECORD_FIELDS = ("block", "warp", "site", "active", "addresses")

#: In-memory dtype and per-record shape of each record array.
RECORD_LAYOUT: dict[str, tuple[type[np.generic], tuple[int, ...]]] = {
    "block": (np.int32, (3,)),
    "warp": (np.int32, ()),
    "site": (np.int32, ()),
    "active": (np.uint32, ()),
    "addresses": (np.int64, (32,)),
}

#: Byte offset at which a block's own shared memory starts in the shared window, per architecture
#: (``Architecture.reserved_shared_bytes``, measured: 1024 on the H100).
SHARED_WINDOW_BASE = {name: arch.reserved_shared_bytes for name, arch in ARCHITECTURES.items()}

#: Dynamic shared memory may start after the static variables at an alignment chosen by the kernel.
#: Measured on the same H100: after 100 static bytes it starts at 1136 by default and at 2048 when
#: declared ``__align__(1024)``. The address check allows padding up to this alignment.
DYNAMIC_ALIGNMENT_ALLOWANCE = 1024

@dataclass(frozen=True)
class RecordChunk:
    """Consecutive records of one launch: ``start`` is the record number of the first row."""

    start: int
    block: np.ndarray
    warp: np.ndarray
    site: np.ndarray
    active: np.ndarray
    addresses: np.ndarray

    def __len__(self) -> int:
        return int(self.warp.shape[0])

    def as_dict(self) -> dict[str, np.ndarray]:
        """The arrays keyed by field name, as ``load`` puts them in ``launch["records"]``."""
        return {name: getattr(self, name) for name in RECORD_FIELDS}


@cache
def schema() -> dict[str, Any]:
    """The trace format's JSON Schema (draft 2020-12), as shipped in ``bankism/schemas``."""
    text = resources.files("bankism").joinpath("schemas/trace.schema.json").read_text(encoding="utf-8")
    return json.loads(text)


@cache
def _validator() -> Any:
    import jsonschema

    return jsonschema.Draft202012Validator(schema())


# ---------------------------------------------------------------------------------------------
# Validation of the document (JSON Schema) and of the records (NumPy, same rules plus semantics)
# ---------------------------------------------------------------------------------------------


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value) if isinstance(value, str | int | float | bool | type(None)) else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _launch_label(doc: Any, position: int) -> str:
    launches = doc.get("launches") if isinstance(doc, dict) else None
    if isinstance(launches, list) and position < len(launches) and isinstance(launches[position], dict):
        index = launches[position].get("index")
        if isinstance(index, int) and not isinstance(index, bool):
            return f"launch {index}"
    return f"launches[{position}]"


def _json_path(parts: list[Any]) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _schema_error_text(error: Any) -> str:
    """One line for a jsonschema error, with long instances shortened."""
    where = list(error.absolute_path)
    if error.validator == "oneOf" and where[-1:] == ["blocks_recorded"]:
        return 'must be "all" or a non-empty list of [x, y, z] block indices'
    if error.validator == "oneOf" and where[-1:] == ["counters"]:
        return "must be null or an object with ld, st and atom counters {instructions, wavefronts, conflicts}"
    if error.validator == "oneOf":
        return "needs exactly one of 'records' (inline arrays) or 'records_file' (an .npz sibling)"
    if error.validator == "const":
        return f"is {_short(error.instance)}, expected {json.dumps(error.validator_value)}"
    if error.validator == "enum":
        return f"is {_short(error.instance)}, expected one of {json.dumps(error.validator_value)}"
    message = error.message.replace(repr(error.instance), _short(error.instance), 1)
    return message if len(message) <= 200 else message[:197] + "..."


def _schema_error(doc: Any, error: Any, source: str) -> BankismError:
    parts = list(error.absolute_path)
    if parts[:1] == ["launches"] and len(parts) >= 2 and isinstance(parts[1], int):
        place = _launch_label(doc, parts[1])
        rest = _json_path(parts[2:])
        place = f"{place}: {rest}" if rest else place
    else:
        place = _json_path(parts) or "document"
    return BankismError(f"{source}: {place}: {_schema_error_text(error)}")


def _skeleton(doc: Any) -> Any:
    """The document with inline record arrays emptied, so the schema checks its structure quickly.

    The record arrays themselves are checked with NumPy by ``_check_records`` against the same rules
    (jsonschema would need seconds for 20000 records).
    """
    if not isinstance(doc, dict) or not isinstance(doc.get("launches"), list):
        return doc
    out = dict(doc)
    out["launches"] = []
    for launch in doc["launches"]:
        if isinstance(launch, dict) and isinstance(launch.get("records"), dict):
            launch = dict(launch)
            launch["records"] = {
                key: ([] if isinstance(value, list | np.ndarray) else value)
                for key, value in launch["records"].items()
            }
        out["launches"].append(launch)
    return out


def validate_document(doc: Any, source: str = "trace") -> None:
    """Check everything but the record arrays: JSON Schema, known arch, unique ids, consistent sizes."""
    import jsonschema

    errors = list(_validator().iter_errors(_skeleton(doc)))
    if errors:
        raise _schema_error(doc, jsonschema.exceptions.best_match(errors), source)
    try:
        get_arch(doc["environment"]["arch"])
    except BankismError as error:
        raise BankismError(f"{source}: environment.arch: {error}") from None
    seen: set[int] = set()
    for launch in doc["launches"]:
        label = f"{source}: launch {launch['index']}"
        if launch["index"] in seen:
            raise BankismError(f"{label}: launch index {launch['index']} appears twice")
        seen.add(launch["index"])
        _check_launch_header(launch, label)


def _check_launch_header(launch: dict[str, Any], label: str) -> None:
    grid = launch["grid"]
    if launch["blocks_total"] != grid[0] * grid[1] * grid[2]:
        raise BankismError(
            f"{label}: blocks_total {launch['blocks_total']} differs from the grid {grid} "
            f"({grid[0] * grid[1] * grid[2]} blocks)"
        )
    if launch["blocks_recorded"] != "all":
        subset = np.asarray(launch["blocks_recorded"], np.int64)
        outside = np.flatnonzero((subset >= np.asarray(grid)).any(axis=1))
        if outside.size:
            raise BankismError(
                f"{label}: blocks_recorded[{outside[0]}] {subset[outside[0]].tolist()} "
                f"is outside the grid {grid}"
            )
        linear = _linear_blocks(subset, grid)
        if np.unique(linear).size != linear.size:
            raise BankismError(f"{label}: blocks_recorded lists a block twice")
    ids = [site["id"] for site in launch["sites"]]
    if len(set(ids)) != len(ids):
        duplicate = next(i for i in ids if ids.count(i) > 1)
        raise BankismError(f"{label}: site id {duplicate} appears twice")


def blocks_recorded_count(launch: dict[str, Any]) -> int:
    """How many blocks of the launch the records cover (all of them, or the listed subset)."""
    recorded = launch["blocks_recorded"]
    return int(launch["blocks_total"]) if recorded == "all" else len(recorded)


def _linear_blocks(blocks: np.ndarray, grid: list[int]) -> np.ndarray:
    blocks = blocks.astype(np.int64)
    return blocks[:, 0] + grid[0] * (blocks[:, 1] + grid[1] * blocks[:, 2])


def window_end(launch: dict[str, Any], arch: str) -> int:
    """First byte past the launch's shared memory in the shared window (see SHARED_WINDOW_BASE)."""
    base = SHARED_WINDOW_BASE.get(arch)
    if base is None:
        return get_arch(arch).shared_bytes
    static, dynamic = launch["shared_bytes"]["static"], launch["shared_bytes"]["dynamic"]
    if dynamic == 0:
        return base + static
    step = DYNAMIC_ALIGNMENT_ALLOWANCE
    return -(-(base + static) // step) * step + dynamic


def _window_text(launch: dict[str, Any], arch: str) -> str:
    if arch not in SHARED_WINDOW_BASE:
        return f"the {get_arch(arch).shared_bytes}-byte shared window of {arch}"
    sizes = launch["shared_bytes"]
    total = sizes["static"] + sizes["dynamic"]
    return (
        f"the launch's shared memory ({total} bytes: {sizes['static']} static + {sizes['dynamic']} dynamic, "
        f"ending at byte {window_end(launch, arch)} of the window)"
    )


@dataclass(frozen=True)
class _SiteTable:
    """Per-site lookups, indexed by site id, used to check records vectorised."""

    known: np.ndarray
    width: np.ndarray
    lanes: np.ndarray

    @classmethod
    def of(cls, launch: dict[str, Any]) -> _SiteTable:
        size = max((site["id"] for site in launch["sites"]), default=-1) + 1
        known = np.zeros(size, bool)
        width = np.ones(size, np.int64)
        lanes = np.full(size, 0xFFFFFFFF, np.int64)
        for site in launch["sites"]:
            known[site["id"]] = True
            width[site["id"]] = site["width"]
            if site["op"] in MATRIX_OPS:
                lanes[site["id"]] = (1 << (8 * site["matrices"])) - 1
        return cls(known, width, lanes)


def _as_integer_array(value: Any, name: str, label: str, start: int) -> np.ndarray:
    """``value`` as an integer NumPy array, or an error naming the first record that is not."""
    array: np.ndarray | None
    if isinstance(value, np.ndarray):
        array = value
    else:
        try:
            array = np.asarray(value)
        except (ValueError, TypeError):
            array = None
    if array is not None and array.shape[:1] == (0,):
        return _empty(name)
    if array is not None and array.dtype.kind in "iu":
        return array
    shape = RECORD_LAYOUT[name][1]
    if isinstance(value, list):
        for r, item in enumerate(value):
            row = np.asarray(item, dtype=object)
            if row.shape != shape or not all(
                isinstance(x, int | np.integer) and not isinstance(x, bool) for x in row.reshape(-1)
            ):
                raise BankismError(
                    f"{label}, record {start + r}: {name} is {_short(item)}, expected {_shape_text(shape)}"
                )
    got = "lists of different lengths" if array is None else f"{array.dtype} values"
    raise BankismError(f"{label}: records.{name} must hold integers; got {got}")


def _shape_text(shape: tuple[int, ...]) -> str:
    return "an integer" if shape == () else f"a list of {shape[0]} integers"


def _checked_arrays(raw: dict[str, Any], label: str, start: int) -> dict[str, np.ndarray]:
    """The five record arrays with the in-memory dtypes, after checking types, shapes and ranges."""
    arrays = {name: _as_integer_array(raw[name], name, label, start) for name in RECORD_FIELDS}
    n = arrays["warp"].shape[0] if arrays["warp"].ndim == 1 else -1
    for name in RECORD_FIELDS:
        dtype, shape = RECORD_LAYOUT[name]
        array = arrays[name]
        if array.shape != (n, *shape):
            if array.ndim >= 1 and array.shape[0] != n:
                raise BankismError(
                    f"{label}: records.{name} has {array.shape[0]} entries but records.warp has {n}"
                )
            raise BankismError(f"{label}: records.{name} has shape {array.shape}, expected {(n, *shape)}")
        bad = (array < 0) | (array > np.iinfo(dtype).max)
        if bad.any():
            r = int(np.argwhere(bad)[0][0])
            value = array[r].tolist()
            raise BankismError(f"{label}, record {start + r}: {name} {value} is out of range")
        arrays[name] = np.ascontiguousarray(array, dtype=dtype)
    return arrays


def _check_records(
    launch: dict[str, Any], arch: str, arrays: dict[str, np.ndarray], label: str, start: int,
    sites: _SiteTable,
) -> None:
    """Semantic checks: known sites and blocks, existing warps, active lanes' addresses in range, aligned."""
    site = arrays["site"].astype(np.int64)
    known = np.append(sites.known, False)
    unknown = ~known[np.minimum(site, sites.known.size)]
    if unknown.any():
        r = int(np.flatnonzero(unknown)[0])
        raise BankismError(
            f"{label}, record {start + r}: site {int(site[r])} is not among the launch's sites"
        )
    grid = launch["grid"]
    block = arrays["block"]
    outside = (block >= np.asarray(grid, np.int64)).any(axis=1)
    if outside.any():
        r = int(np.flatnonzero(outside)[0])
        raise BankismError(
            f"{label}, record {start + r}: block {block[r].tolist()} is outside the grid {grid}"
        )
    if launch["blocks_recorded"] != "all":
        allowed = _linear_blocks(np.asarray(launch["blocks_recorded"], np.int64), grid)
        missing = ~np.isin(_linear_blocks(block, grid), allowed)
        if missing.any():
            r = int(np.flatnonzero(missing)[0])
            raise BankismError(
                f"{label}, record {start + r}: block {block[r].tolist()} is not in blocks_recorded"
            )
    threads = launch["block"][0] * launch["block"][1] * launch["block"][2]
    warps = -(-threads // 32)
    too_far = arrays["warp"] >= warps
    if too_far.any():
        r = int(np.flatnonzero(too_far)[0])
        raise BankismError(
            f"{label}, record {start + r}: warp {int(arrays['warp'][r])} does not exist in a block of "
            f"{threads} threads ({warps} warps)"
        )
    _check_addresses(launch, arch, arrays, label, start, sites, site)


def _lanes_in_use(active: np.ndarray, lanes: np.ndarray) -> np.ndarray:
    """(n, 32) bool: the active lanes that carry an address (all 32, or 8 per matrix for matrix ops)."""
    masks = (active.astype(np.int64) & lanes).astype("<u4")
    return np.unpackbits(masks.view(np.uint8).reshape(-1, 4), axis=1, bitorder="little").view(bool)


def _check_addresses(
    launch: dict[str, Any], arch: str, arrays: dict[str, np.ndarray], label: str, start: int,
    sites: _SiteTable, site: np.ndarray,
) -> None:
    """Per-record reductions first (one temporary), then the failing lane of the first bad record."""
    used = _lanes_in_use(arrays["active"], sites.lanes[site])
    addresses = arrays["addresses"]
    width = sites.width[site]
    in_use = np.where(used, addresses, 0)
    end = window_end(launch, arch)
    beyond = np.flatnonzero(in_use.max(axis=1, initial=0) + width > end)
    if beyond.size:
        r = int(beyond[0])
        lane = int(np.flatnonzero(used[r] & (addresses[r] + width[r] > end))[0])
        raise BankismError(
            f"{label}, record {start + r}: lane {lane} address {int(addresses[r, lane])} is outside "
            f"{_window_text(launch, arch)}"
        )
    misaligned = np.flatnonzero(np.bitwise_or.reduce(in_use, axis=1) & (width - 1))
    if misaligned.size:
        r = int(misaligned[0])
        lane = int(np.flatnonzero(used[r] & ((addresses[r] & (width[r] - 1)) != 0))[0])
        raise BankismError(
            f"{label}, record {start + r}: lane {lane} address {int(addresses[r, lane])} is not aligned "
            f"to the {int(width[r])}-byte access width of site {int(site[r])}"
        )


def validate(doc: dict[str, Any], source: str = "trace") -> None:
    """Check a whole trace whose records are inline (lists or arrays): schema, records, addresses.

    Launches that still point to a ``records_file`` are checked up to their header only; their
    records are checked as they are read (``iter_records``, ``load``).
    """
    validate_document(doc, source)
    for _ in _checked_inline_records(doc, source):
        pass


def _checked_inline_records(
    doc: dict[str, Any], source: str
) -> Iterator[tuple[dict[str, Any], dict[str, np.ndarray]]]:
    """(launch, checked record arrays) for every launch whose records are inline in the document."""
    arch = doc["environment"]["arch"]
    for launch in doc["launches"]:
        if "records" in launch:
            label = f"{source}: launch {launch['index']}"
            arrays = _checked_arrays(launch["records"], label, 0)
            _check_records(launch, arch, arrays, label, 0, _SiteTable.of(launch))
            yield launch, arrays


# ---------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------


def _parse_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BankismError(f"{path}: no such file") from None
    except UnicodeDecodeError as error:
        raise BankismError(
            f"{path}: not a UTF-8 JSON document ({error.reason} at byte {error.start})"
        ) from None
    except OSError as error:
        raise BankismError(f"{path}: cannot read: {error.strerror}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        truncated = not text[error.pos:].strip()
        why = "the file ends early (truncated?)" if truncated else error.msg
        raise BankismError(
            f"{path}: line {error.lineno}, column {error.colno}: invalid JSON: {why}"
        ) from None


class _NpyStream:
    """Rows of one ``.npy`` member of an ``.npz`` file, read a chunk at a time."""

    def __init__(self, archive: zipfile.ZipFile, member: str, label: str) -> None:
        self.label = label
        self.member = member
        self.file: IO[bytes] = archive.open(member)
        version = np.lib.format.read_magic(self.file)
        fmt = np.lib.format
        reader = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
        self.shape, fortran_order, self.dtype = reader(self.file)
        self.whole: np.ndarray | None = None
        if fortran_order or self.dtype.hasobject or not self.shape:
            self.file.close()
            with archive.open(member) as whole:
                self.whole = np.lib.format.read_array(whole, allow_pickle=False)
        self.row_items = int(np.prod(self.shape[1:], dtype=np.int64))
        self.position = 0

    def read(self, rows: int) -> np.ndarray:
        if self.whole is not None:
            out = self.whole[self.position : self.position + rows]
        else:
            count = rows * self.row_items
            data = self.file.read(count * self.dtype.itemsize)
            if len(data) != count * self.dtype.itemsize:
                raise BankismError(f"{self.label}: {self.member} ends early (truncated .npz?)")
            out = np.frombuffer(data, self.dtype).reshape((rows, *self.shape[1:]))
        self.position += rows
        return out

    def close(self) -> None:
        self.file.close()


def _npz_path(trace_path: Path, launch: dict[str, Any]) -> Path:
    return trace_path.parent / launch["records_file"]


def _npz_members(npz: Path, index: int, label: str) -> tuple[zipfile.ZipFile, dict[str, _NpyStream]]:
    try:
        archive = zipfile.ZipFile(npz)
    except FileNotFoundError:
        raise BankismError(f"{label}: records file {npz} does not exist") from None
    except (zipfile.BadZipFile, OSError) as error:
        raise BankismError(f"{label}: records file {npz} is not a readable .npz ({error})") from None
    streams: dict[str, _NpyStream] = {}
    try:
        names = set(archive.namelist())
        for field in RECORD_FIELDS:
            member = f"{index}/{field}.npy"
            if member not in names:
                raise BankismError(f"{label}: records file {npz} has no array '{index}/{field}'")
            streams[field] = _NpyStream(archive, member, f"{label}: {npz}")
    except (ValueError, zipfile.BadZipFile, OSError, EOFError) as error:
        archive.close()
        raise BankismError(f"{label}: records file {npz} is damaged ({error})") from None
    except BankismError:
        archive.close()
        raise
    return archive, streams


@dataclass
class Trace:
    """An opened trace: the document (inline records as checked arrays) and streamed access to records."""

    path: Path
    doc: dict[str, Any]

    @property
    def arch(self) -> str:
        return self.doc["environment"]["arch"]

    @property
    def launches(self) -> list[dict[str, Any]]:
        return self.doc["launches"]

    def launch(self, index: int) -> dict[str, Any]:
        """The launch whose ``index`` field is ``index``."""
        for launch in self.launches:
            if launch["index"] == index:
                return launch
        known = ", ".join(str(launch["index"]) for launch in self.launches) or "none"
        raise BankismError(f"{self.path}: no launch {index} (the trace holds launches {known})")

    def label(self, launch: dict[str, Any]) -> str:
        return f"{self.path}: launch {launch['index']}"

    def record_count(self, launch: dict[str, Any]) -> int:
        """Number of records of a launch, without reading them."""
        if "records" in launch:
            return int(launch["records"]["warp"].shape[0])
        archive, streams = _npz_members(_npz_path(self.path, launch), launch["index"], self.label(launch))
        try:
            return int(streams["warp"].shape[0])
        finally:
            for stream in streams.values():
                stream.close()
            archive.close()

    def chunks(self, launch: dict[str, Any], chunk: int = DEFAULT_CHUNK) -> Iterator[RecordChunk]:
        """The launch's records, ``chunk`` at a time, each chunk checked before it is yielded."""
        if chunk < 1:
            raise BankismError(f"chunk must be at least 1 record; got {chunk}")
        if "records" in launch:
            records = launch["records"]
            n = int(records["warp"].shape[0])
            for start in range(0, n, chunk):
                yield RecordChunk(start, *(records[f][start : start + chunk] for f in RECORD_FIELDS))
            return
        yield from self._npz_chunks(launch, chunk)

    def _npz_chunks(self, launch: dict[str, Any], chunk: int) -> Iterator[RecordChunk]:
        """Read (decompress and check) the next chunk on a worker thread while the caller uses this one."""
        label = self.label(launch)
        npz = _npz_path(self.path, launch)
        archive, streams = _npz_members(npz, launch["index"], label)
        sites = _SiteTable.of(launch)

        def read(start: int, rows: int) -> RecordChunk:
            try:
                raw = {field: streams[field].read(rows) for field in RECORD_FIELDS}
            except (zipfile.BadZipFile, OSError, EOFError, ValueError) as error:
                raise BankismError(f"{label}: records file {npz} is damaged ({error})") from None
            arrays = _checked_arrays(raw, label, start)
            _check_records(launch, self.arch, arrays, label, start, sites)
            return RecordChunk(start, *(arrays[f] for f in RECORD_FIELDS))

        pending: Future[RecordChunk] | None = None
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="bankism-npz") as reader:
            try:
                n = _npz_record_total(streams, npz, label)
                starts = range(0, n, chunk)
                if starts:
                    pending = reader.submit(read, 0, min(chunk, n))
                for start in starts:
                    current = pending.result()
                    after = start + chunk
                    pending = reader.submit(read, after, min(chunk, n - after)) if after < n else None
                    yield current
            finally:
                if pending is not None:
                    pending.cancel()
                    with contextlib.suppress(Exception):
                        pending.result()
                for stream in streams.values():
                    stream.close()
                archive.close()


def _npz_record_total(streams: dict[str, _NpyStream], npz: Path, label: str) -> int:
    n = streams["warp"].shape[0] if len(streams["warp"].shape) == 1 else -1
    for field in RECORD_FIELDS:
        expected = (n, *RECORD_LAYOUT[field][1])
        if tuple(streams[field].shape) != expected:
            raise BankismError(
                f"{label}: {npz} array '{field}' has shape {tuple(streams[field].shape)}, expected {expected}"
            )
        if streams[field].dtype.kind not in "iu":
            raise BankismError(f"{label}: {npz} array '{field}' holds {streams[field].dtype}, not integers")
    return n


def open_trace(path: str | os.PathLike[str]) -> Trace:
    """Read and check a trace's JSON document; inline records become checked arrays, npz ones stay on disk."""
    trace_path = Path(path)
    doc = _parse_json(trace_path)
    source = str(trace_path)
    validate_document(doc, source)
    for launch, arrays in _checked_inline_records(doc, source):
        launch["records"] = arrays
    return Trace(trace_path, doc)


def iter_records(
    path: str | os.PathLike[str], launch_index: int, chunk: int = DEFAULT_CHUNK
) -> Iterator[RecordChunk]:
    """Stream the records of launch ``launch_index`` (its ``index`` field), ``chunk`` records at a time."""
    trace = open_trace(path)
    yield from trace.chunks(trace.launch(launch_index), chunk)


def load(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The whole trace in memory: every launch gets ``records`` as arrays (read from the npz if needed)."""
    trace = open_trace(path)
    for launch in trace.launches:
        if "records" not in launch:
            parts = [c.as_dict() for c in trace.chunks(launch)]
            launch["records"] = {
                field: np.concatenate([p[field] for p in parts]) if parts else _empty(field)
                for field in RECORD_FIELDS
            }
            del launch["records_file"]
    return trace.doc


def _empty(field: str) -> np.ndarray:
    dtype, shape = RECORD_LAYOUT[field]
    return np.zeros((0, *shape), dtype)


# ---------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------


def _records_as_arrays(launch: dict[str, Any], label: str) -> dict[str, np.ndarray]:
    if "records" not in launch:
        raise BankismError(
            f"{label}: records are still in {launch.get('records_file')}; load() the trace first"
        )
    return _checked_arrays(launch["records"], label, 0)


def _render_records(arrays: dict[str, np.ndarray], indent: str) -> str:
    """Inline records as JSON: one line per field, one line per record for the addresses."""
    lines = [
        f'{indent}  "{field}": {json.dumps(arrays[field].tolist(), separators=(",", ":"))}'
        for field in ("block", "warp", "site", "active")
    ]
    rows = [json.dumps(row, separators=(",", ":")) for row in arrays["addresses"].tolist()]
    body = (",\n" + indent + "    ").join(rows)
    lines.append(f'{indent}  "addresses": [' + (f"\n{indent}    {body}\n{indent}  ]" if rows else "]"))
    return "{\n" + ",\n".join(lines) + "\n" + indent + "}"


def _render_document(doc: dict[str, Any], inline: dict[int, dict[str, np.ndarray]]) -> str:
    marker = "@@bankism-records-{}@@"
    header = copy.deepcopy({k: v for k, v in doc.items() if k != "launches"})
    header["launches"] = []
    for position, launch in enumerate(doc["launches"]):
        entry = {k: v for k, v in launch.items() if k not in ("records", "records_file")}
        if position in inline:
            entry["records"] = marker.format(position)
        else:
            entry["records_file"] = launch["records_file"]
        header["launches"].append(entry)
    text = _dumps(_plain(header), "")
    for position, arrays in inline.items():
        text = text.replace(json.dumps(marker.format(position)), _render_records(arrays, "      "), 1)
    return text + "\n"


def _dumps(value: Any, indent: str) -> str:
    """JSON with one key per line but lists of plain values (grid, block, command) kept on one line."""
    inner = indent + "  "
    if isinstance(value, dict) and value:
        items = [f"{inner}{json.dumps(key)}: {_dumps(item, inner)}" for key, item in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    if isinstance(value, list) and any(isinstance(item, dict | list) for item in value):
        items = [inner + _dumps(item, inner) for item in value]
        return "[\n" + ",\n".join(items) + "\n" + indent + "]"
    return json.dumps(value)


def _plain(value: Any) -> Any:
    """NumPy scalars and arrays in the document header as plain JSON values."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray | np.generic):
        return value.tolist()
    return value


def _npz_arrays(arrays: dict[str, np.ndarray], index: int) -> dict[str, np.ndarray]:
    out = {}
    for field in RECORD_FIELDS:
        array = arrays[field]
        if field == "addresses" and (array.size == 0 or int(array.max()) <= np.iinfo(np.int32).max):
            array = array.astype(np.int32)
        out[f"{index}/{field}"] = array
    return out


def _write_npz(path: Path, members: dict[str, np.ndarray]) -> None:
    """An .npz readable by ``numpy.load``, deflated at level 1 (fast; record arrays compress well anyway)."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        for name, array in members.items():
            with archive.open(f"{name}.npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.ascontiguousarray(array), allow_pickle=False)


def _new_file_mode() -> int:
    """The mode an ordinary new file gets (mkstemp makes its files private; traces are shared)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


@contextlib.contextmanager
def _temporary_sibling(path: Path) -> Iterator[Path]:
    """A temporary file next to ``path``, removed unless it was renamed onto ``path``."""
    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(handle)
    temp = Path(name)
    temp.chmod(_new_file_mode())
    try:
        yield temp
    finally:
        if temp.exists():
            temp.unlink()


def save(doc: dict[str, Any], path: str | os.PathLike[str], binary: bool | None = None) -> Path:
    """Check and write a trace atomically; records go to ``<name>.npz`` when binary (or when large).

    ``binary=None`` writes the sibling when some launch has more than INLINE_RECORD_LIMIT records.
    Files are written to temporaries and renamed, so an interrupted save leaves nothing half-written.
    """
    out = Path(path)
    source = str(out)
    validate_document(doc, source)
    arch = doc["environment"]["arch"]
    arrays_by_position = {}
    for position, launch in enumerate(doc["launches"]):
        label = f"{source}: launch {launch['index']}"
        arrays = _records_as_arrays(launch, label)
        _check_records(launch, arch, arrays, label, 0, _SiteTable.of(launch))
        arrays_by_position[position] = arrays
    if binary is None:
        binary = any(a["warp"].shape[0] > INLINE_RECORD_LIMIT for a in arrays_by_position.values())
    npz = out.with_suffix(".npz")
    layout = dict(doc)
    layout["launches"] = [dict(launch) for launch in doc["launches"]]
    if binary:
        for launch in layout["launches"]:
            launch["records_file"] = npz.name
    inline = {} if binary else arrays_by_position
    text = _render_document(layout, inline)
    with _temporary_sibling(out) as json_temp, _temporary_sibling(npz) as npz_temp:
        if binary:
            members: dict[str, np.ndarray] = {}
            for position, arrays in arrays_by_position.items():
                members.update(_npz_arrays(arrays, doc["launches"][position]["index"]))
            _write_npz(npz_temp, members)
        json_temp.write_text(text, encoding="utf-8")
        if binary:
            os.replace(npz_temp, npz)
        os.replace(json_temp, out)
    return out
