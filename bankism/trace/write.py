"""Writing traces atomically: inline JSON records, or an ``.npz`` sibling for big launches."""

from __future__ import annotations

import copy
import json
import os
import re
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from bankism.errors import BankismError
from bankism.files import check_output, output_path, replace, temporary_sibling
from bankism.inputs import file_name, read_bytes
from bankism.trace.format import INLINE_RECORD_LIMIT, RECORD_FIELDS
from bankism.trace.validate import SiteTable, check_records, checked_arrays, validate_document


def _records_as_arrays(launch: dict[str, Any], label: str) -> dict[str, np.ndarray]:
    if "records" not in launch:
        raise BankismError(
            f"{label}: records are still in {launch.get('records_file')}; load() the trace first"
        )
    return checked_arrays(launch["records"], label, 0)


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
    return json.dumps(value, allow_nan=False)


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


def _records_file_of(out: Path, npz: Path) -> bool:
    """Whether the trace ``out`` (as it is on disk now) keeps its records in ``npz``."""
    if not out.is_file():
        return False
    try:
        text = read_bytes(out, "trace", str(out))
    except BankismError:
        return False
    pattern = rb'"records_file"[ \t\r\n]*:[ \t\r\n]*' + re.escape(json.dumps(npz.name).encode())
    return re.search(pattern, text) is not None


def check_target(
    path: str | os.PathLike[str], option: str, inputs: Iterable[str | os.PathLike[str] | None] = (),
) -> Path:
    """Refuse, before any work, a trace output ``save`` must not write: a name ending in ``.npz``, a
    JSON file or ``.npz`` sibling that ``check_output`` refuses (an input, a folder, ...), or a
    sibling that exists but is not this trace's own records file (another trace's, which saving
    here would replace). Returns the path."""
    out = output_path(path, option)
    if out.suffix.lower() == ".npz":
        raise BankismError(f"{option} {out}: a trace is a JSON file; its records go to a .npz beside it, "
                           "so give a name such as out.json")
    check_output(out, option, inputs)
    npz = out.with_suffix(".npz")
    check_output(npz, f"{option} {out}: its records file", inputs)
    if npz.exists() and not _records_file_of(out, npz):
        raise BankismError(f"{option} {out}: {npz} exists and is not {out.name}'s records file; saving here "
                           "would replace it (move it away, or write elsewhere)")
    return out


def save(doc: dict[str, Any], path: str | os.PathLike[str], binary: bool | None = None) -> Path:
    """Check and write a trace atomically; records go to ``<name>.npz`` when binary (or when large).

    ``binary=None`` writes the sibling when some launch has more than INLINE_RECORD_LIMIT records.
    Files are written to temporaries and renamed, so an interrupted save leaves nothing half-written.
    """
    out = Path(file_name(path, "save"))
    if not out.name or out.is_dir():
        raise BankismError(f"{path}: save needs a file name, not a directory")
    if out.suffix.lower() == ".npz":
        raise BankismError(f"{out}: a trace is a JSON file; its records go to a .npz beside it")
    if binary not in (None, True, False):
        raise BankismError(f"save: binary={binary!r} must be True, False or None")
    if not isinstance(doc, dict):
        raise BankismError(f"{out}: the trace must be a dict; got {type(doc).__name__}")
    source = str(out)
    validate_document(doc, source)
    arch = doc["environment"]["arch"]
    arrays_by_position = {}
    for position, launch in enumerate(doc["launches"]):
        label = f"{source}: launch {launch['index']}"
        arrays = _records_as_arrays(launch, label)
        check_records(launch, arch, arrays, label, 0, SiteTable.of(launch))
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
    try:
        text = _render_document(layout, inline)
    except ValueError:  # json refuses NaN and infinity (allow_nan=False): no reader would take them back
        raise BankismError(f"{out}: the trace holds a number that is not finite (NaN or infinity)") from None
    with temporary_sibling(out) as json_temp, temporary_sibling(npz) as npz_temp:
        if binary:
            members: dict[str, np.ndarray] = {}
            for position, arrays in arrays_by_position.items():
                members.update(_npz_arrays(arrays, doc["launches"][position]["index"]))
            _write_npz(npz_temp, members)
        json_temp.write_text(text, encoding="utf-8")
        if binary:
            replace(npz_temp, npz)
        replace(json_temp, out)
    return out
