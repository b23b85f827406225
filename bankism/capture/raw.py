"""What the tracer writes: the raw record layout (tracer_records.h) and reading a capture folder."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bankism.arch import LANES
from bankism.errors import BankismError

TRACER_NAME = "bankism-sanitizer 1"
#: One raw record as tracer_records.h lays it out (RawRecord, 168 bytes).
RECORD_DTYPE = np.dtype(
    [
        ("pc", "<u8"),
        ("block", "<u4", (3,)),
        ("warp", "<u4"),
        ("active", "<u4"),
        ("flags", "<u4"),
        ("width", "<u2"),
        ("matrices", "<u2"),
        ("kind", "<u4"),
        ("addresses", "<u4", (LANES,)),
    ]
)
assert RECORD_DTYPE.itemsize == 168

FLAG_READ, FLAG_WRITE, FLAG_ATOMSYS = 0x1, 0x2, 0x4
KIND_SHARED, KIND_MATRIX = 1, 2


@dataclass
class RawCapture:
    """The tracer's output directory, parsed: modules, launches (traced or not) and errors."""

    directory: Path
    modules: dict[int, dict[str, Any]] = field(default_factory=dict)
    launches: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    started: bool = False

    def records(self, launch: dict[str, Any]) -> np.ndarray:
        """The raw records of a traced launch as a RECORD_DTYPE array."""
        name = launch.get("records_file")
        if not name:
            return np.zeros(0, RECORD_DTYPE)
        path = self.directory / name
        size = path.stat().st_size
        if size % RECORD_DTYPE.itemsize:
            raise BankismError(
                f"{path}: {size} bytes is not a whole number of {RECORD_DTYPE.itemsize}-byte records"
            )
        return np.fromfile(path, RECORD_DTYPE)


def read_capture(directory: Path) -> RawCapture:
    """Parse manifest.jsonl of a tracer run."""
    capture = RawCapture(Path(directory))
    manifest = capture.directory / "manifest.jsonl"
    if not manifest.is_file():
        raise BankismError(
            f"{manifest}: the tracer wrote nothing; the program did not initialise CUDA, or the Sanitizer "
            "API "
            "could not load (is the GPU supported and CUDA_INJECTION64_PATH honoured?)"
        )
    for number, line in enumerate(manifest.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError as error:
            raise BankismError(f"{manifest}, line {number}: {error.msg}") from None
        kind = event.get("event")
        if kind == "start":
            capture.started = True
            if event.get("record_size") != RECORD_DTYPE.itemsize:
                raise BankismError(
                    f"{manifest}: records are {event.get('record_size')} bytes, this bankism reads "
                    f"{RECORD_DTYPE.itemsize}: tracer and Python side are out of step"
                )
        elif kind == "module":
            capture.modules[int(event["id"])] = event
        elif kind == "launch":
            capture.launches.append(event)
        elif kind == "error":
            capture.errors.append(str(event.get("message")))
        elif kind == "warning":
            capture.warnings.append(str(event.get("message")))
    return capture


