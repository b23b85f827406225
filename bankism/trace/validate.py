"""Checks of a trace: the document against the JSON Schema, the records with NumPy (same rules, semantics).

Every problem is a ``BankismError`` with a one-line message naming the file, the launch and the record.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from bankism.arch import LANES, MATRIX_OPS, get_arch, launch_shape_problem, window_base
from bankism.errors import BankismError
from bankism.trace.format import (
    DYNAMIC_ALIGNMENT_ALLOWANCE,
    RECORD_FIELDS,
    RECORD_LAYOUT,
    empty_records,
    schema,
)


def _is_integer(checker: Any, instance: Any) -> bool:
    """JSON Schema's "integer", strictly: 2.0 is a float in a trace, not an integer (draft 2020-12
    would take it), so it is refused where the format says integer, as True is."""
    return isinstance(instance, int) and not isinstance(instance, bool)


def strict_validator(document_schema: dict[str, Any]) -> Any:
    """A draft 2020-12 validator of ``document_schema`` whose "integer" excludes floats and booleans."""
    import jsonschema

    base = jsonschema.Draft202012Validator
    checker = base.TYPE_CHECKER.redefine("integer", _is_integer)
    return jsonschema.validators.extend(base, type_checker=checker)(document_schema)


@cache
def _validator() -> Any:
    return strict_validator(schema())


def schema_error_line(error: Any) -> str:
    """``sites[0].warps[2].lane_addresses: [1, 2] is too short``: a jsonschema error as one line."""
    place = _json_path(list(error.absolute_path)) or "document"
    message = error.message.replace(repr(error.instance), _short(error.instance), 1)
    message = " ".join(message.split())
    return f"{place}: {message if len(message) <= 200 else message[:197] + '...'}"



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

    The record arrays themselves are checked with NumPy by ``check_records`` against the same rules
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
        _check_launch_header(launch, label, doc["environment"]["arch"])


def _check_launch_header(launch: dict[str, Any], label: str, arch: str) -> None:
    """The launch against the physical limits of ``arch.py``: grid and block dimensions, threads per
    block, the block's shared memory; then the consistency of the header's own fields."""
    problem = launch_shape_problem(launch["grid"], launch["block"])
    if problem:
        raise BankismError(f"{label}: {problem}")
    architecture = get_arch(arch)
    sizes = launch["shared_bytes"]
    room = architecture.shared_bytes - architecture.reserved_shared_bytes
    if sizes["static"] + sizes["dynamic"] > room:
        raise BankismError(
            f"{label}: shared_bytes {sizes['static']:,} static + {sizes['dynamic']:,} dynamic is more than "
            f"the {room:,} bytes a {arch} block can have ({architecture.shared_bytes:,} less the "
            f"{architecture.reserved_shared_bytes:,} reserved)"
        )
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
        linear = linear_blocks(subset, grid)
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


def linear_blocks(blocks: np.ndarray, grid: Sequence[int]) -> np.ndarray:
    """The linear index of each (x, y, z) block of ``blocks`` in ``grid`` (x fastest)."""
    blocks = np.asarray(blocks, np.int64).reshape(-1, 3)
    return blocks[:, 0] + grid[0] * (blocks[:, 1] + grid[1] * blocks[:, 2])


def window_end(launch: dict[str, Any], arch: str) -> int:
    """First byte past the launch's shared memory in the shared window (``arch.window_base``)."""
    base = window_base(arch)
    static, dynamic = launch["shared_bytes"]["static"], launch["shared_bytes"]["dynamic"]
    if dynamic == 0:
        return base + static
    step = DYNAMIC_ALIGNMENT_ALLOWANCE
    return -(-(base + static) // step) * step + dynamic


def _window_text(launch: dict[str, Any], arch: str) -> str:
    sizes = launch["shared_bytes"]
    total = sizes["static"] + sizes["dynamic"]
    return (
        f"the launch's shared memory ({total} bytes: {sizes['static']} static + {sizes['dynamic']} dynamic, "
        f"ending at byte {window_end(launch, arch)} of the window)"
    )


@dataclass(frozen=True)
class SiteTable:
    """Per-site lookups for checking records vectorised: the sorted site ids, and for each the width
    and the lanes that carry an address. Sized by the number of sites, whatever their ids."""

    ids: np.ndarray
    width: np.ndarray
    lanes: np.ndarray

    @classmethod
    def of(cls, launch: dict[str, Any]) -> SiteTable:
        sites = sorted(launch["sites"], key=lambda site: site["id"])
        ids = np.asarray([site["id"] for site in sites], np.int64)
        width = np.asarray([site["width"] for site in sites], np.int64)
        lanes = np.asarray([(1 << (8 * site["matrices"])) - 1 if site["op"] in MATRIX_OPS else 0xFFFFFFFF
                            for site in sites], np.int64)
        return cls(ids, width, lanes)

    def slots(self, site: np.ndarray) -> np.ndarray:
        """For each site id, its position in the table, or -1 when the launch has no such site."""
        return site_slots(self.ids, site)


def site_slots(ids: np.ndarray, site: np.ndarray) -> np.ndarray:
    """Positions of the ``site`` ids in the sorted array ``ids`` (-1 where absent): a lookup whose
    memory follows the number of sites, not the largest id."""
    site = np.asarray(site, np.int64)
    if ids.size == 0:
        return np.full(site.shape, -1, np.int64)
    position = np.minimum(np.searchsorted(ids, site), ids.size - 1)
    return np.where(ids[position] == site, position, -1)


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
        return empty_records(name)
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


def checked_arrays(raw: dict[str, Any], label: str, start: int) -> dict[str, np.ndarray]:
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
        if array.dtype == dtype:  # only the sign can be wrong: one reduction, no temporaries
            bad = (array < 0) if np.iinfo(dtype).min < 0 and array.size and array.min() < 0 else None
        else:
            bad = (array < 0) | (array > np.iinfo(dtype).max)
        if bad is not None and bad.any():
            r = int(np.argwhere(bad)[0][0])
            value = array[r].tolist()
            raise BankismError(f"{label}, record {start + r}: {name} {value} is out of range")
        arrays[name] = np.ascontiguousarray(array, dtype=dtype)
    return arrays


def check_records(
    launch: dict[str, Any], arch: str, arrays: dict[str, np.ndarray], label: str, start: int,
    sites: SiteTable, addresses: bool = True,
) -> None:
    """Semantic checks: known sites and blocks, existing warps, active lanes' addresses in range, aligned.

    ``addresses=False`` leaves the addresses to the caller (``analyze`` lets the engine check them
    in the pass that counts, with ``address_error`` for the same messages).
    """
    site = arrays["site"].astype(np.int64)
    slot = sites.slots(site)
    unknown = slot < 0
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
        allowed = linear_blocks(np.asarray(launch["blocks_recorded"], np.int64), grid)
        missing = ~np.isin(linear_blocks(block, grid), allowed)
        if missing.any():
            r = int(np.flatnonzero(missing)[0])
            raise BankismError(
                f"{label}, record {start + r}: block {block[r].tolist()} is not in blocks_recorded"
            )
    threads = launch["block"][0] * launch["block"][1] * launch["block"][2]
    warps = -(-threads // LANES)
    too_far = arrays["warp"] >= warps
    if too_far.any():
        r = int(np.flatnonzero(too_far)[0])
        raise BankismError(
            f"{label}, record {start + r}: warp {int(arrays['warp'][r])} does not exist in a block of "
            f"{threads} threads ({warps} warps)"
        )
    if addresses:
        _check_addresses(launch, arch, arrays, label, start, sites, slot)
    else:
        _check_window_floor(launch, arch, arrays, label, start, sites, slot)


def _lanes_in_use(active: np.ndarray, lanes: np.ndarray) -> np.ndarray:
    """(n, 32) bool: the active lanes that carry an address (all 32, or 8 per matrix for matrix ops)."""
    masks = (active.astype(np.int64) & lanes).astype("<u4")
    return np.unpackbits(masks.view(np.uint8).reshape(-1, 4), axis=1, bitorder="little").view(bool)


def _check_window_floor(
    launch: dict[str, Any], arch: str, arrays: dict[str, np.ndarray], label: str, start: int,
    sites: SiteTable, slot: np.ndarray,
) -> None:
    """No active lane's address below the block's shared memory (the window's reserved bytes): one
    reduction over the chunk, the lanes of the few records it flags looked at one by one."""
    base = window_base(arch)
    addresses = arrays["addresses"]
    if addresses.size == 0:
        return
    rows = np.flatnonzero(addresses.min(axis=1) < base)
    if rows.size == 0:
        return
    used = _lanes_in_use(arrays["active"][rows], sites.lanes[slot[rows]])
    low = np.flatnonzero((used & (addresses[rows] < base)).any(axis=1))
    if low.size:
        r = int(rows[low[0]])
        lane = int(np.flatnonzero(used[low[0]] & (addresses[r] < base))[0])
        raise address_error(launch, arch, label, start + r, lane, addresses[r], int(sites.width[slot[r]]),
                            int(arrays["site"][r]), "below")


def _check_addresses(
    launch: dict[str, Any], arch: str, arrays: dict[str, np.ndarray], label: str, start: int,
    sites: SiteTable, slot: np.ndarray,
) -> None:
    """Per-record reductions first (one temporary), then the failing lane of the first bad record."""
    _check_window_floor(launch, arch, arrays, label, start, sites, slot)
    site = arrays["site"]
    used = _lanes_in_use(arrays["active"], sites.lanes[slot])
    addresses = arrays["addresses"]
    width = sites.width[slot]
    in_use = np.where(used, addresses, 0)
    end = window_end(launch, arch)
    beyond = np.flatnonzero(in_use.max(axis=1, initial=0) + width > end)
    if beyond.size:
        r = int(beyond[0])
        lane = int(np.flatnonzero(used[r] & (addresses[r] + width[r] > end))[0])
        raise address_error(launch, arch, label, start + r, lane, addresses[r], int(width[r]), int(site[r]),
                            "range")
    misaligned = np.flatnonzero(np.bitwise_or.reduce(in_use, axis=1) & (width - 1))
    if misaligned.size:
        r = int(misaligned[0])
        lane = int(np.flatnonzero(used[r] & ((addresses[r] & (width[r] - 1)) != 0))[0])
        raise address_error(launch, arch, label, start + r, lane, addresses[r], int(width[r]), int(site[r]),
                            "align")


def address_error(
    launch: dict[str, Any], arch: str, label: str, record: int, lane: int, row: np.ndarray, width: int,
    site: int, reason: str,
) -> BankismError:
    """The error for an active lane's bad address: "negative", "range" (past the launch's shared
    memory) or "align" (not aligned to the site's width); ``row`` holds the record's 32 addresses."""
    address = int(row[lane])
    if reason == "negative":
        return BankismError(f"{label}, record {record}: addresses {row.tolist()} is out of range")
    if reason == "below":
        return BankismError(
            f"{label}, record {record}: lane {lane} address {address} is below the block's shared memory, "
            f"which starts at byte {window_base(arch)} of the shared window (the bytes before it are "
            "reserved)"
        )
    if reason == "range":
        return BankismError(
            f"{label}, record {record}: lane {lane} address {address} is outside {_window_text(launch, arch)}"
        )
    return BankismError(
        f"{label}, record {record}: lane {lane} address {address} is not aligned "
        f"to the {width}-byte access width of site {site}"
    )


def validate(doc: dict[str, Any], source: str = "trace") -> None:
    """Check a whole trace whose records are inline (lists or arrays): schema, records, addresses.

    Launches that still point to a ``records_file`` are checked up to their header only; their
    records are checked as they are read (``iter_records``, ``load``).
    """
    validate_document(doc, source)
    for _ in checked_inline_records(doc, source):
        pass


def checked_inline_records(
    doc: dict[str, Any], source: str
) -> Iterator[tuple[dict[str, Any], dict[str, np.ndarray]]]:
    """(launch, checked record arrays) for every launch whose records are inline in the document."""
    arch = doc["environment"]["arch"]
    for launch in doc["launches"]:
        if "records" in launch:
            label = f"{source}: launch {launch['index']}"
            arrays = checked_arrays(launch["records"], label, 0)
            check_records(launch, arch, arrays, label, 0, SiteTable.of(launch))
            yield launch, arrays

