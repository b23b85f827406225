"""Reading traces: the JSON document, and records streamed in chunks from the ``.npz`` sibling."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from bankism.errors import BankismError
from bankism.inputs import check_file, file_name
from bankism.trace.format import DEFAULT_CHUNK, RECORD_FIELDS, RECORD_LAYOUT, RecordChunk, empty_records
from bankism.trace.json_text import parse_json, strict_json  # noqa: F401 (strict_json: read's name too)
from bankism.trace.validate import (
    SiteTable,
    check_records,
    checked_arrays,
    checked_inline_records,
    validate_document,
)
from bankism.trace.views import Launch

try:  # ISA-L's inflate is about twice as fast as zlib's; optional (pip install 'bankism[fast]')
    from isal import isal_zlib as _inflate_module
except ImportError:  # pragma: no cover - depends on the environment
    import zlib as _inflate_module

#: Compressed bytes inflated per step: the output (about 15x larger for traces) stays cache-sized.
_INFLATE_STEP = 1 << 15


#: What a damaged, truncated, encrypted or crafted .npz raises while it is opened or read (zipfile,
#: zlib or ISA-L, numpy's header parser): each becomes a one-line "records file ... is damaged".
DAMAGED = (ValueError, zipfile.BadZipFile, OSError, EOFError, RuntimeError, NotImplementedError,
           struct.error, zlib.error, getattr(_inflate_module, "error", zlib.error), OverflowError, KeyError,
           SyntaxError)


def _why(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__


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


# --- One JSON grammar ----------------------------------------------------------------------------
# A trace is strict JSON (RFC 8259): json.loads also takes NaN, Infinity and numbers past a double's
# range (1e400 as inf), which no trace holds; they are refused, with what they are.


class _NpyStream:
    """Rows of one ``.npy`` member of an ``.npz`` file, read a chunk at a time.

    The header must state exactly the bytes the member holds, so a damaged or crafted header cannot
    make bankism allocate more than the data; a Fortran-ordered member (another writer's) is read whole.
    """

    def __init__(self, archive: zipfile.ZipFile, path: Path, member: str, label: str) -> None:
        self.label = label
        self.member = member
        info = archive.getinfo(member)
        self.file = _open_member(archive, path, member)
        version = np.lib.format.read_magic(self.file)
        fmt = np.lib.format
        reader = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
        self.shape, fortran_order, self.dtype = reader(self.file, max_header_size=1 << 16)
        if self.dtype.hasobject or self.dtype.itemsize == 0:
            raise ValueError(f"{member} does not hold plain numbers")
        header = info.file_size - self.file.size_left if isinstance(self.file, _MemberReader) \
            else self.file.tell()
        data = int(np.prod(self.shape, dtype=object)) * self.dtype.itemsize
        held = info.file_size - header
        if held < data:
            raise ValueError(f"{member} ends early (truncated .npz?): its header declares shape "
                             f"{self.shape} ({data:,} bytes), it holds {held:,}")
        if held > data:
            raise ValueError(f"{member} holds {held:,} bytes, more than its header declares ({data:,})")
        self.whole: np.ndarray | None = None
        if fortran_order:
            self.whole = np.empty(self.shape, self.dtype, order="F")
            self._fill(self.whole.reshape(-1, order="A"))
        self.row_items = int(np.prod(self.shape[1:], dtype=np.int64))
        self.position = 0

    def _fill(self, out: np.ndarray) -> None:
        view = memoryview(out.view(np.uint8))
        if self.file.readinto(view) != len(view):
            raise BankismError(f"{self.label}: {self.member} ends early (truncated .npz?)")

    def read(self, rows: int) -> np.ndarray:
        if self.whole is not None:
            out = self.whole[self.position : self.position + rows]
        else:
            out = np.empty((rows, *self.shape[1:]), self.dtype)
            self._fill(out.reshape(-1))
        self.position += rows
        return out

    def close(self) -> None:
        self.file.close()


def _npz_path(trace_path: Path, launch: dict[str, Any]) -> Path:
    return trace_path.parent / launch["records_file"]


def _npz_members(npz: Path, index: int, label: str) -> tuple[zipfile.ZipFile, dict[str, _NpyStream]]:
    if not npz.exists() and not npz.is_symlink():
        raise BankismError(f"{label}: records file {npz} does not exist")
    check_file(npz, "records", f"{label}: records file {npz}")
    try:
        archive = zipfile.ZipFile(npz)
    except DAMAGED as error:
        raise BankismError(f"{label}: records file {npz} is not a readable .npz ({_why(error)})") from None
    streams: dict[str, _NpyStream] = {}
    try:
        names = set(archive.namelist())
        for field in RECORD_FIELDS:
            member = f"{index}/{field}.npy"
            if member not in names:
                raise BankismError(f"{label}: records file {npz} has no array '{index}/{field}'")
            streams[field] = _NpyStream(archive, npz, member, f"{label}: {npz}")
    except DAMAGED as error:
        archive.close()
        raise BankismError(f"{label}: records file {npz} is damaged ({_why(error)})") from None
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
        npz = _npz_path(self.path, launch)
        archive, streams = _npz_members(npz, launch["index"], self.label(launch))
        try:
            return _npz_record_total(streams, npz, self.label(launch))
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
        if isinstance(chunk, bool) or not isinstance(chunk, int | np.integer) or chunk < 1:
            raise BankismError(f"chunk must be a whole number of records, at least 1; got {chunk!r}")
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
            except DAMAGED as error:
                raise BankismError(f"{label}: records file {npz} is damaged ({_why(error)})") from None
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
    trace_path = Path(file_name(path, "trace"))
    doc = parse_json(trace_path, progress)
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
