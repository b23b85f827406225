"""What `bankism advise` reads: a trace, or the JSON `bankism explain --json` prints, as typed sites.

A trace goes through ``bankism.trace`` (its schema and physical checks). An explain result is checked
against ``EXPLAIN_INPUT``, the JSON Schema of the fields advise reads (a subset of docs/explain.md's,
with the same strict integers as traces and every number within int64), before any field is used:
a missing or mistyped field is one line naming it, never a KeyError deep in the command.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bankism.arch import DEFAULT_ARCH, INT64_MAX, LANES, OPS, WIDTHS
from bankism.errors import BankismError
from bankism.inputs import decode_text, file_name, read_bytes
from bankism.review import SharedArray
from bankism.trace.read import strict_json
from bankism.trace.validate import schema_error_line, strict_validator

_INDEX = {"type": "integer", "minimum": 0, "maximum": INT64_MAX}
_LANES = {"type": "array", "minItems": LANES, "maxItems": LANES,
          "items": {"type": ["integer", "null"], "minimum": 0, "maximum": INT64_MAX}}
_ARRAY = {
    "type": "object",
    "required": ["dtype", "shape"],
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "dtype": {"type": "string"},
        "shape": {"type": "array", "minItems": 1, "maxItems": 8, "items": _INDEX},
        "pad": _INDEX,
        "base_offset": _INDEX,
        "base": _INDEX,
    },
}
_ARRAYS = {"oneOf": [
    {"type": "null"},
    {"type": "array", "items": {**_ARRAY, "required": ["name", "dtype", "shape"]}},
    {"type": "object", "additionalProperties": _ARRAY},
]}

#: The fields of an ``explain --json`` result that advise reads, and their types.
EXPLAIN_INPUT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "arch": {"type": "string"},
        "sites": {"type": "array", "items": {
            "type": "object",
            "required": ["width"],
            "properties": {
                "line": {"type": ["integer", "string"]},
                "op": {"enum": list(OPS)},
                "width": {"type": "integer", "enum": list(WIDTHS)},
                "matrices": {"type": ["integer", "null"], "enum": [None, 1, 2, 4]},
                "expression": {"type": "string"},
                "array": {"type": ["string", "null"]},
                "shared_array": {"type": ["string", "null"]},
                "warps": {"type": ["array", "null"], "items": {
                    "type": "object",
                    "properties": {
                        "lane_addresses": _LANES,
                        "addresses": _LANES,
                        "block": {"type": "array", "maxItems": 3, "items": _INDEX},
                        "warp": _INDEX,
                    },
                    "anyOf": [{"required": ["lane_addresses"]}, {"required": ["addresses"]}],
                }},
            },
        }},
        "shared_arrays": _ARRAYS,
        "snapshot": {"oneOf": [{"type": "null"},
                               {"type": "object", "properties": {"arrays": _ARRAYS}}]},
    },
}


@dataclass(frozen=True)
class RecordedSite:
    """One access site of the input: how it moves data and every warp-instruction's lane addresses."""

    label: str
    op: str
    width: int
    matrices: int | None
    addresses: np.ndarray
    active: np.ndarray
    places: Sequence[str]
    array: str | None = None


class _TracePlaces(Sequence):
    """"launch 0, block (1,0,0) warp 3, record 17" for each record of a site, made on demand."""

    def __init__(self, launch: int, blocks: np.ndarray, warps: np.ndarray, records: np.ndarray) -> None:
        self.launch, self.blocks, self.warps, self.records = launch, blocks, warps, records

    def __len__(self) -> int:
        return int(self.records.shape[0])

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        block = ",".join(str(int(v)) for v in self.blocks[i])
        return (f"launch {self.launch}, block ({block}) warp {int(self.warps[i])}, "
                f"record {int(self.records[i])}")


def sites_from_trace(doc: dict[str, Any], launch: int | None) -> list[RecordedSite]:
    """Every (launch, site) of a loaded trace with the lane addresses of all its records."""
    launches = doc["launches"] if launch is None else [e for e in doc["launches"] if e["index"] == launch]
    if not launches:
        known = ", ".join(str(e["index"]) for e in doc["launches"]) or "none"
        raise BankismError(f"--launch {launch}: the trace holds launches {known}")
    sites = []
    for entry in launches:
        records = entry["records"]
        for site in entry["sites"]:
            rows = np.flatnonzero(records["site"] == site["id"])
            if rows.size == 0:
                continue
            where = f" {site['file']}:{site['line']}" if site.get("file") else ""
            label = f"launch {entry['index']} site {site['id']} ({site.get('sass') or site['op']}{where})"
            places = _TracePlaces(entry["index"], records["block"][rows], records["warp"][rows], rows)
            sites.append(RecordedSite(
                label=label, op=site["op"], width=int(site["width"]), matrices=site.get("matrices"),
                addresses=records["addresses"][rows], active=records["active"][rows].astype(np.int64),
                places=places,
            ))
    return sites


def check_explain_input(doc: Any, source: str) -> None:
    """The explain result against ``EXPLAIN_INPUT``: one line naming the first wrong field."""
    import jsonschema

    errors = list(strict_validator(EXPLAIN_INPUT).iter_errors(doc))
    if errors:
        raise BankismError(f"{source}: {schema_error_line(jsonschema.exceptions.best_match(errors))}")


def sites_from_explain(doc: dict[str, Any]) -> tuple[list[RecordedSite], list[dict[str, Any]]]:
    """The sites of an ``explain --json`` result (checked by ``check_explain_input``) and the shared
    arrays it declares.

    explain keeps the lane addresses of one execution per (block, warp): a site in a loop
    contributes its first iteration only.
    """
    sites = []
    for site in doc.get("sites", []):
        warps = site.get("warps") or []
        if not warps:
            continue
        what = site.get("expression") or site.get("array") or "?"
        label = f"line {site.get('line', '?')}: {site.get('op', 'load')} {what}"
        rows, masks, places = [], [], []
        for k, warp in enumerate(warps):
            lanes = warp["lane_addresses"] if "lane_addresses" in warp else warp["addresses"]
            rows.append([0 if a is None else a for a in lanes])
            masks.append(sum(1 << lane for lane, a in enumerate(lanes) if a is not None))
            block = ",".join(str(v) for v in warp.get("block", []))
            number = warp.get("warp", k)
            places.append(f"block ({block}) warp {number}" if block else f"warp {number}")
        sites.append(RecordedSite(
            label=label, op=site.get("op", "load"), width=site["width"], matrices=site.get("matrices"),
            addresses=np.asarray(rows, np.int64), active=np.asarray(masks, np.int64), places=places,
            array=site.get("shared_array") or site.get("array"),
        ))
    return sites, _explain_arrays(doc)


def _explain_arrays(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Array declarations an explain result carries (``shared_arrays``, else the snapshot's)."""
    found = doc.get("shared_arrays") or (doc.get("snapshot") or {}).get("arrays") or {}
    if isinstance(found, dict):
        return [{**info, "name": name} for name, info in found.items()]
    return list(found)


def array_from_explain(info: dict[str, Any]) -> SharedArray:
    """A declared array of an explain result as a SharedArray (its own checks give the one line)."""
    return SharedArray(info["dtype"], tuple(info["shape"]), pad=info.get("pad", 0),
                       base=info.get("base_offset", info.get("base", 0)), name=info["name"])


_TRACE_FORMAT = re.compile(rb'"format"[ \t\r\n]*:[ \t\r\n]*"bankism-trace"')


def load_input(path: Path, launch: int | None) -> tuple[str, list[RecordedSite], list[SharedArray], str]:
    """(kind, sites, arrays the input declares, arch) of a trace or an explain result (``load_document``
    without the notes)."""
    return load_document(path, launch)[:4]


def load_document(path: Path, launch: int | None
                  ) -> tuple[str, list[RecordedSite], list[SharedArray], str, list[str]]:
    """(kind, sites, arrays the input declares, arch, notes) of a trace or an explain result; the notes
    name the accesses an explain result lists as not counted, which advice cannot include."""
    name = file_name(path, "advise")
    data = read_bytes(name, "json", name)
    if _TRACE_FORMAT.search(data, 0, 1 << 16):
        return (*_from_trace(name, launch), [])
    try:
        doc = strict_json(decode_text(data, name))
    except RecursionError:
        raise BankismError(f"{name}: JSON nested too deeply to be a bankism document") from None
    except ValueError as error:
        raise BankismError(f"{name}: not a JSON document ({' '.join(str(error).split())})") from None
    if isinstance(doc, dict) and doc.get("format") == "bankism-trace":
        return (*_from_trace(name, launch), [])
    if isinstance(doc, dict) and (str(doc.get("schema", "")).startswith("bankism.explain")
                                  or isinstance(doc.get("sites"), list)):
        check_explain_input(doc, name)
        sites, infos = sites_from_explain(doc)
        arrays = []
        for info in infos:
            try:
                arrays.append(array_from_explain(info))
            except BankismError as error:
                raise BankismError(f"{name}: {error}") from None
        return "explain", sites, arrays, doc.get("arch", DEFAULT_ARCH), _not_counted(doc)
    raise BankismError(f"{name}: neither a bankism trace nor an `explain --json` result")


def _from_trace(name: str, launch: int | None) -> tuple[str, list[RecordedSite], list[SharedArray], str]:
    from bankism.trace import load

    loaded = load(name)
    return "trace", sites_from_trace(loaded, launch), [], loaded["environment"]["arch"]


def _not_counted(doc: dict) -> list[str]:
    """One line per access the explain result lists as not counted (``unmodelled``): advice leaves it out."""
    entries = doc.get("unmodelled") if isinstance(doc.get("unmodelled"), list) else []
    return [f"line {entry.get('line')}: {entry.get('expression', '')} ({entry.get('op', '')}): not counted "
            f"by explain, so not advised on: {entry.get('note', '')}"
            for entry in entries if isinstance(entry, dict)]
