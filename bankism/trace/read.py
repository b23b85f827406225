"""Reading traces: the JSON document, and records streamed in chunks from the ``.npz`` sibling."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import warnings
import zipfile
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from bankism.arch import LANES
from bankism.errors import BankismError
from bankism.trace.format import DEFAULT_CHUNK, RECORD_FIELDS, RECORD_LAYOUT, RecordChunk, empty_records
from bankism.trace.validate import (
    SiteTable,
    check_records,
    checked_arrays,
    checked_inline_records,
    validate_document,
)
from bankism.trace.views import Launch


def _parse_json(path: Path, progress: Callable[[str], None] | None = None) -> Any:
    note = progress or (lambda _: None)
    try:
        note("reading")
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
        if len(text) >= FAST_RECORDS_BYTES:
            fast = _parse_with_fast_addresses(text, note)
            if fast is not None:
                return fast
        note("parsing JSON")
        return json.loads(text)
    except RecursionError:
        raise BankismError(f"{path}: JSON nested too deeply to be a bankism document") from None
    except json.JSONDecodeError as error:
        truncated = not text[error.pos:].strip()
        why = "the file ends early (truncated?)" if truncated else error.msg
        raise BankismError(
            f"{path}: line {error.lineno}, column {error.colno}: invalid JSON: {why}"
        ) from None


try:  # ISA-L's inflate is about twice as fast as zlib's; optional (pip install 'bankism[fast]')
    from isal import isal_zlib as _inflate_module
except ImportError:  # pragma: no cover - depends on the environment
    import zlib as _inflate_module

#: Compressed bytes inflated per step: the output (about 15x larger for traces) stays cache-sized.
_INFLATE_STEP = 1 << 15


class _MemberReader:
    """The bytes of one stored or deflated zip member, read straight from the archive file.

    Inflating in small steps into the caller's buffer avoids ``zipfile``'s large temporaries;
    the CRC-32 of the member is checked once its last byte has been read, as ``zipfile`` does.
    """

    def __init__(self, path: Path, info: zipfile.ZipInfo) -> None:
        self.file = open(path, "rb")  # noqa: SIM115 - closed by close()
        self.file.seek(info.header_offset)
        header = self.file.read(30)
        if len(header) != 30 or header[:4] != b"PK\x03\x04":
            self.file.close()
            raise zipfile.BadZipFile(f"bad local header for {info.filename}")
        name_length = int.from_bytes(header[26:28], "little")
        extra_length = int.from_bytes(header[28:30], "little")
        self.file.seek(info.header_offset + 30 + name_length + extra_length)
        self.name = info.filename
        self.left = info.compress_size
        self.size_left = info.file_size
        self.expected_crc = info.CRC
        self.crc = 0
        deflated = info.compress_type == zipfile.ZIP_DEFLATED
        self.inflater = _inflate_module.decompressobj(-15) if deflated else None
        self.pending = memoryview(b"")

    def _more(self) -> memoryview:
        data = self.file.read(min(self.left, _INFLATE_STEP))
        if not data:
            raise EOFError(f"{self.name} ends early")
        self.left -= len(data)
        if self.inflater is None:
            return memoryview(data)
        out = self.inflater.decompress(data)
        if not self.left:
            out += self.inflater.flush()
        return memoryview(out)

    def readinto(self, out: memoryview) -> int:
        """Fill ``out`` (bytes) from the member; fewer bytes only at its end."""
        filled = 0
        while filled < len(out):
            if not self.pending:
                if not self.left:
                    break
                self.pending = self._more()
                continue
            take = min(len(self.pending), len(out) - filled)
            out[filled:filled + take] = self.pending[:take]
            self.crc = _inflate_module.crc32(self.pending[:take], self.crc)
            self.pending = self.pending[take:]
            filled += take
        self.size_left -= filled
        if self.size_left == 0 and self.crc != self.expected_crc:
            raise zipfile.BadZipFile(f"bad CRC-32 for file {self.name!r}")
        return filled

    def read(self, count: int) -> bytes:
        buffer = bytearray(count)
        return bytes(buffer[: self.readinto(memoryview(buffer))])

    def close(self) -> None:
        self.file.close()


def _open_member(archive: zipfile.ZipFile, path: Path, member: str) -> IO[bytes] | _MemberReader:
    info = archive.getinfo(member)
    if info.compress_type in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED) and not info.flag_bits & 1:
        return _MemberReader(path, info)
    return archive.open(member)


# --- A faster path for large inline records ------------------------------------------------------
# ``save`` writes inline addresses one record per line; they are most of a large inline trace. Each
# ``"addresses": [[...], ...]`` block made only of integer rows of 32 is read with NumPy (several
# times faster than json.loads and no Python int per value); the rest of the document goes through
# json.loads. Anything unexpected falls back to json.loads of the whole text, whose errors are the
# ones reported.

#: Documents at least this large try the fast path.
FAST_RECORDS_BYTES = 1 << 20

_ADDRESSES_KEY = re.compile(r'"addresses"\s*:\s*\[')
_ROWS_END = re.compile(r"\]\s*\]")
_PLACEHOLDER = "@@bankism-addresses-{}@@"
_ROW_CHARACTERS = str.maketrans("", "", "0123456789-,[] \t\r\n")


def _address_rows(body: str) -> np.ndarray | None:
    """``[a0,...,a31],[...]`` as an (N, 32) int64 array, or None unless every row has 32 integers."""
    if body.translate(_ROW_CHARACTERS):
        return None
    parts = body.split("]")
    if parts[-1].strip() or len(parts) < 2:
        return None
    rows = parts[:-1]
    if [part.count("[") for part in rows] != [1] * len(rows):
        return None
    commas = [part.count(",") for part in rows]  # 31 in a row, plus the separator before all but the first
    if commas[0] != LANES - 1 or commas[1:] != [LANES] * (len(rows) - 1):
        return None
    if any(part.split("[")[0].strip() not in ("", ",") for part in rows):
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            values = np.fromstring(body.replace("[", " ").replace("]", " "), dtype=np.int64, sep=",")
        except (ValueError, DeprecationWarning):
            return None
    if values.size != LANES * len(rows) or (np.abs(values) >= 2**62).any():
        return None
    return values.reshape(len(rows), LANES)


def _parse_with_fast_addresses(text: str, note: Callable[[str], None]) -> Any:
    """The document with its inline address rows read by NumPy; None when the fast path does not apply."""
    pieces, arrays, position = [], [], 0
    for found in _ADDRESSES_KEY.finditer(text):
        if found.start() < position:
            continue
        start = found.end()
        first = text[start:start + 64].lstrip()[:1]
        if first != "[":
            continue  # an empty list, or not rows: json.loads reads it
        end = _ROWS_END.search(text, start)
        if end is None:
            return None
        note(f"reading the addresses of launch record block {len(arrays) + 1}")
        rows = _address_rows(text[start:end.start() + 1])
        if rows is None:
            return None
        pieces += [text[position:found.start()], f'"addresses": "{_PLACEHOLDER.format(len(arrays))}"']
        arrays.append(rows)
        position = end.end()
    if not arrays:
        return None
    pieces.append(text[position:])
    note("parsing JSON")
    doc = json.loads("".join(pieces))
    placed = 0
    for launch in doc.get("launches", []) if isinstance(doc, dict) and isinstance(doc.get("launches"), list) \
            else []:
        records = launch.get("records") if isinstance(launch, dict) else None
        value = records.get("addresses") if isinstance(records, dict) else None
        if isinstance(value, str) and value == _PLACEHOLDER.format(placed):
            records["addresses"] = arrays[placed]
            placed += 1
    return doc if placed == len(arrays) else None


class _NpyStream:
    """Rows of one ``.npy`` member of an ``.npz`` file, read a chunk at a time."""

    def __init__(self, archive: zipfile.ZipFile, path: Path, member: str, label: str) -> None:
        self.label = label
        self.member = member
        self.file = _open_member(archive, path, member)
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
            out = np.empty((rows, *self.shape[1:]), self.dtype)
            view = memoryview(out.reshape(-1).view(np.uint8))
            if self.file.readinto(view) != len(view):
                raise BankismError(f"{self.label}: {self.member} ends early (truncated .npz?)")
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
            streams[field] = _NpyStream(archive, npz, member, f"{label}: {npz}")
    except (ValueError, zipfile.BadZipFile, OSError, EOFError) as error:
        archive.close()
        raise BankismError(f"{label}: records file {npz} is damaged ({error})") from None
    except BankismError:
        archive.close()
        raise
    return archive, streams


@dataclass
class Trace:
    """An opened trace: the document (inline records as checked arrays) and streamed access to records.

    ``launches`` and ``launch(i)`` give typed ``Launch`` views, made once; the methods that read records
    take a ``Launch`` (or, for older scripts, the launch's JSON object).
    """

    path: Path
    doc: dict[str, Any]
    _views: list[Launch] | None = dataclasses.field(default=None, init=False, repr=False)

    @property
    def arch(self) -> str:
        return self.doc["environment"]["arch"]

    @property
    def launches(self) -> list[Launch]:
        """Every launch of the trace, in file order."""
        if self._views is None:
            self._views = [Launch.of(launch) for launch in self.doc["launches"]]
        return self._views

    def launch(self, index: int) -> Launch:
        """The launch whose ``index`` field is ``index``."""
        for launch in self.launches:
            if launch.index == index:
                return launch
        known = ", ".join(str(launch.index) for launch in self.launches) or "none"
        raise BankismError(f"{self.path}: no launch {index} (the trace holds launches {known})")

    def label(self, launch: Launch | dict[str, Any]) -> str:
        return f"{self.path}: launch {launch['index']}"

    def record_count(self, launch: Launch | dict[str, Any]) -> int:
        """Number of records of a launch, without reading them."""
        launch = _raw(launch)
        if "records" in launch:
            return int(launch["records"]["warp"].shape[0])
        archive, streams = _npz_members(_npz_path(self.path, launch), launch["index"], self.label(launch))
        try:
            return int(streams["warp"].shape[0])
        finally:
            for stream in streams.values():
                stream.close()
            archive.close()

    def chunks(
        self, launch: Launch | dict[str, Any], chunk: int = DEFAULT_CHUNK, check_addresses: bool = True
    ) -> Iterator[RecordChunk]:
        """The launch's records, ``chunk`` at a time, each chunk checked before it is yielded.

        ``check_addresses=False`` leaves the lanes' addresses unchecked, for a caller that checks
        them itself in the same pass that uses them (``analyze``, through the engine).
        """
        launch = _raw(launch)
        if chunk < 1:
            raise BankismError(f"chunk must be at least 1 record; got {chunk}")
        if "records" in launch:
            records = launch["records"]
            n = int(records["warp"].shape[0])
            for start in range(0, n, chunk):
                yield RecordChunk(start, *(records[f][start : start + chunk] for f in RECORD_FIELDS))
            return
        yield from self._npz_chunks(launch, chunk, check_addresses)

    def _npz_chunks(self, launch: dict[str, Any], chunk: int, check_addresses: bool) -> Iterator[RecordChunk]:
        """Read (decompress and check) the next chunk on a worker thread while the caller uses this one."""
        label = self.label(launch)
        npz = _npz_path(self.path, launch)
        archive, streams = _npz_members(npz, launch["index"], label)
        sites = SiteTable.of(launch)

        def read(start: int, rows: int) -> RecordChunk:
            try:
                raw = {field: streams[field].read(rows) for field in RECORD_FIELDS}
            except (zipfile.BadZipFile, OSError, EOFError, ValueError) as error:
                raise BankismError(f"{label}: records file {npz} is damaged ({error})") from None
            arrays = checked_arrays(raw, label, start)
            check_records(launch, self.arch, arrays, label, start, sites, check_addresses)
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


def _raw(launch: Launch | dict[str, Any]) -> dict[str, Any]:
    """The launch's JSON object, which the record readers and checks read."""
    return launch.json if isinstance(launch, Launch) else launch  # type: ignore[return-value]


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


def open_trace(path: str | os.PathLike[str], progress: Callable[[str], None] | None = None) -> Trace:
    """Read and check a trace's JSON document; inline records become checked arrays, npz ones stay on disk.

    ``progress`` (optional) is told each step of the reading, for a front end to show.
    """
    trace_path = Path(path)
    doc = _parse_json(trace_path, progress)
    source = str(trace_path)
    if progress:
        progress("checking")
    validate_document(doc, source)
    for launch, arrays in checked_inline_records(doc, source):
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
    for launch in trace.doc["launches"]:
        if "records" not in launch:
            parts = [c.as_dict() for c in trace.chunks(launch)]
            launch["records"] = {
                field: np.concatenate([p[field] for p in parts]) if parts else empty_records(field)
                for field in RECORD_FIELDS
            }
            del launch["records_file"]
    return trace.doc
