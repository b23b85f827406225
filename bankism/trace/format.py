"""The trace format (v1): its name, version, record layout, JSON Schema and shared-window constants.

``docs/trace-format.md`` describes the format; ``bankism/schemas/trace.schema.json`` is its JSON Schema.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from bankism.arch import ARCHITECTURES, LANES

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
    "addresses": (np.int32, (LANES,)),  # shared-window offsets: int32 from file to engine, never widened
}

#: Byte offset at which a block's own shared memory starts in the shared window, per architecture
#: (``Architecture.reserved_shared_bytes``, measured: 1024 on the H100). Kept for scripts: the rule is
#: ``bankism.arch.window_base``.
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


def empty_records(field: str) -> np.ndarray:
    """A zero-length array of record field ``field``, with its dtype and per-record shape."""
    dtype, shape = RECORD_LAYOUT[field]
    return np.zeros((0, *shape), dtype)

