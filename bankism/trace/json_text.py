"""A trace's JSON text: strict JSON (no NaN or Infinity, numbers within a double's range), and a
faster reader for the large inline address rows ``save`` writes, proven to read what strict JSON reads."""

from __future__ import annotations

import json
import math
import re
import secrets
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from bankism.arch import LANES
from bankism.errors import BankismError
from bankism.inputs import read_bytes


def parse_json(path: Path, progress: Callable[[str], None] | None = None) -> Any:
    """The JSON document of the trace at ``path`` (read under the ``trace`` cap), or one-line errors."""
    note = progress or (lambda _: None)
    note("reading")
    data = read_bytes(path, "trace", str(path))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BankismError(
            f"{path}: not a UTF-8 JSON document ({error.reason} at byte {error.start})"
        ) from None
    del data
    try:
        if len(text) >= FAST_RECORDS_BYTES:
            fast = _parse_with_fast_addresses(text, note)
            if fast is not None:
                return fast
        note("parsing JSON")
        return strict_json(text)
    except RecursionError:
        raise BankismError(f"{path}: JSON nested too deeply to be a bankism document") from None
    except json.JSONDecodeError as error:
        truncated = not text[error.pos:].strip()
        why = "the file ends early (truncated?)" if truncated else error.msg
        raise BankismError(
            f"{path}: line {error.lineno}, column {error.colno}: invalid JSON: {why}"
        ) from None
    except ValueError as error:  # strict_json: NaN, Infinity, a number past a double's range
        raise BankismError(f"{path}: invalid JSON: {error}") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of range for a number")
    return value


def strict_json(text: str) -> Any:
    """``json.loads`` of strict JSON: NaN, Infinity and out-of-range numbers are a ValueError."""
    return json.loads(text, parse_constant=_no_constant, parse_float=_finite)


# --- A faster path for large inline records ------------------------------------------------------
# ``save`` writes inline addresses one record per line; they are most of a large inline trace. Each
# ``"addresses": [[...], ...]`` block made only of integer rows of 32 is read with NumPy (several
# times faster than json.loads and no Python int per value); the rest of the document goes through
# ``strict_json``. The fast path answers only when it provably reads what ``strict_json`` of the whole
# text reads (``_address_rows`` and ``_parse_with_fast_addresses`` say why); otherwise the whole text
# goes through ``strict_json``, whose answer or error is the one reported.

#: Documents at least this large try the fast path.
FAST_RECORDS_BYTES = 1 << 20

_JSON_SPACE = "[ \t\r\n]*"  # JSON's four whitespace characters; regex \s would take Unicode spaces too
_ADDRESSES_KEY = re.compile('"addresses"' + _JSON_SPACE + ":" + _JSON_SPACE + "\\[" + _JSON_SPACE + "(?=\\[)")
_ROWS_END = re.compile("\\]" + _JSON_SPACE + "\\]")
_ROW_CHARACTERS = str.maketrans("", "", "0123456789-,[] \t\r\n")
_DIGITS = "0123456789"
_POWERS_OF_TEN = np.asarray([10**k for k in range(1, 19)], np.int64)


def _address_rows(body: str) -> np.ndarray | None:
    """``[a0,...,a31],[...]`` as an (N, 32) int64 array, or None unless it is exactly what JSON reads.

    Proof of equality with ``strict_json``: the text holds only digits, ``-``, ``,``, brackets and
    JSON whitespace; every row is one ``[``, 31 commas and one ``]`` (rows separated by one comma);
    NumPy reads exactly 32 integers per row (a token it splits or cannot read changes the count or
    fails). A token reads as its value's digits plus any leading zeros, and a ``-`` only where the
    value is negative; so when the digits in the text equal the digits of the values written
    canonically and the ``-`` signs equal the negative values, no token has a leading zero or a
    ``-0``: every token is a JSON integer, and reads as the value JSON gives it.
    """
    if body.translate(_ROW_CHARACTERS):
        return None
    parts = body.split("]")
    if parts[-1].strip(" \t\r\n") or len(parts) < 2:
        return None
    rows = parts[:-1]
    if [part.count("[") for part in rows] != [1] * len(rows):
        return None
    commas = [part.count(",") for part in rows]  # 31 in a row, plus the separator before all but the first
    if commas[0] != LANES - 1 or commas[1:] != [LANES] * (len(rows) - 1):
        return None
    if any(part.split("[")[0].strip(" \t\r\n") not in ("", ",") for part in rows):
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            values = np.fromstring(body.replace("[", " ").replace("]", " "), dtype=np.int64, sep=",")
        except (ValueError, DeprecationWarning):
            return None
    if values.size != LANES * len(rows) or (np.abs(values) >= 2**62).any():
        return None
    canonical_digits = int(values.size + np.searchsorted(_POWERS_OF_TEN, np.abs(values), side="right").sum())
    if sum(body.count(d) for d in _DIGITS) != canonical_digits or body.count("-") != int((values < 0).sum()):
        return None
    return values.reshape(len(rows), LANES)


def _parse_with_fast_addresses(text: str, note: Callable[[str], None]) -> Any:
    """The document with its inline address rows read by NumPy; None when the fast path does not apply.

    Each block is replaced by a placeholder string carrying a fresh random token; the answer stands
    only if ``strict_json`` reads the rest and every placeholder comes back exactly as the
    ``records.addresses`` of a launch, in order: then each replaced text was that value, and nothing
    else in the document changed. Any JSON error is left to the caller's ``strict_json`` of the whole
    text, so that its position is the file's.
    """
    token = secrets.token_hex(16)
    placeholders: list[str] = []
    pieces, arrays, position = [], [], 0
    for found in _ADDRESSES_KEY.finditer(text):
        if found.start() < position:
            continue
        end = _ROWS_END.search(text, found.end())  # the pattern ends at the first row's "["
        if end is None:
            return None
        note(f"reading the addresses of launch record block {len(arrays) + 1}")
        rows = _address_rows(text[found.end():end.start() + 1])
        if rows is None:
            return None
        placeholders.append(f"@@bankism-addresses-{token}-{len(arrays)}@@")
        pieces += [text[position:found.start()], f'"addresses": "{placeholders[-1]}"']
        arrays.append(rows)
        position = end.end()
    if not arrays:
        return None
    pieces.append(text[position:])
    note("parsing JSON")
    try:
        doc = strict_json("".join(pieces))
    except (ValueError, RecursionError):
        return None
    launches = doc.get("launches") if isinstance(doc, dict) else None
    placed = 0
    for launch in launches if isinstance(launches, list) else []:
        records = launch.get("records") if isinstance(launch, dict) else None
        value = records.get("addresses") if isinstance(records, dict) else None
        if isinstance(value, str) and placed < len(arrays) and value == placeholders[placed]:
            records["addresses"] = arrays[placed]
            placed += 1
    return doc if placed == len(arrays) else None
