"""Trace I/O (format v1): a JSON document plus an optional ``.npz`` sibling of record arrays.

``format`` holds the format's constants and schema, ``validate`` its checks, ``read`` and ``write`` the
I/O, ``views`` typed views of launches and sites. ``docs/trace-format.md`` describes the format.
"""

from bankism.trace.format import (
    DEFAULT_CHUNK,
    DYNAMIC_ALIGNMENT_ALLOWANCE,
    FORMAT,
    INLINE_RECORD_LIMIT,
    RECORD_FIELDS,
    RECORD_LAYOUT,
    SHARED_WINDOW_BASE,
    VERSION,
    RecordChunk,
    schema,
)
from bankism.trace.read import Trace, iter_records, load, open_trace
from bankism.trace.validate import blocks_recorded_count, validate, validate_document, window_end
from bankism.trace.write import save

__all__ = [
    "DEFAULT_CHUNK",
    "DYNAMIC_ALIGNMENT_ALLOWANCE",
    "FORMAT",
    "INLINE_RECORD_LIMIT",
    "RECORD_FIELDS",
    "RECORD_LAYOUT",
    "SHARED_WINDOW_BASE",
    "VERSION",
    "RecordChunk",
    "Trace",
    "blocks_recorded_count",
    "iter_records",
    "load",
    "open_trace",
    "save",
    "schema",
    "validate",
    "validate_document",
    "window_end",
]
