"""Values global memory holds when the user states them (`explain --data`): uniform random numbers, one
constant or the bytes of a file, per kernel pointer or for all of them.

Without ``--data`` a value read from global memory is unknown, and an address or a condition that depends
on it refuses the kernel. With it, each element of a matrix has one value, the same for every thread and
block that reads it (a hash of the seed, the matrix's name and the element's index), so a histogram or a
sort runs on that input. The answer then holds for those values only; the report says so. Limits: a read of
another width than the matrix's elements, at an address bankism does not know, or past the end of a file's
bytes stays unknown.
"""

from __future__ import annotations

import io
import re
import zlib
from dataclasses import dataclass, field

import numpy as np

from bankism.errors import BankismError
from bankism.explain.simt.ctype import CType
from bankism.inputs import read_bytes

#: Integer and float ranges of ``random`` without bounds.
DEFAULT_INT_RANGE = (0, 255)
DEFAULT_FLOAT_RANGE = (0.0, 1.0)
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_SPEC = re.compile(rf"(?:random(?::(?P<low>{_NUMBER}):(?P<high>{_NUMBER}))?|(?P<value>{_NUMBER}))")
_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


@dataclass(frozen=True)
class DataRule:
    """What one matrix (or every kernel pointer) holds: uniform random values in [low, high] (integers,
    both ends included; floats, high excluded), the constant ``value``, or the bytes of file ``path``
    (raw, or a NumPy .npy array), element i at byte i * sizeof(element)."""

    low: float | None = None
    high: float | None = None
    value: float | None = None
    path: str | None = None
    content: bytes = field(default=b"", repr=False)

    def describe(self, t: CType) -> str:
        """``uniform random integers in [0, 255]``, ``the constant 0``, for elements of type ``t``."""
        if self.path is not None:
            return f"the {len(self.content):,} bytes of {self.path} as {t.name} elements"
        if self.value is not None:
            return f"the constant {_number(self.value)}"
        low, high = self.bounds(t)
        if t.kind == "float":
            return f"uniform random {t.name} values in [{_number(low)}, {_number(high)})"
        return f"uniform random integers in [{_number(low)}, {_number(high)}]"

    def bounds(self, t: CType) -> tuple[float, float]:
        """The range for elements of type ``t``: the given one, else the default of its kind."""
        if self.low is not None and self.high is not None:
            return self.low, self.high
        return DEFAULT_FLOAT_RANGE if t.kind == "float" else DEFAULT_INT_RANGE


@dataclass
class GlobalData:
    """The ``--data`` rules of one explain run: per matrix name, and a default for kernel pointers
    (key None); ``read`` collects what was read under which rule, for the report's assumptions."""

    rules: dict[str | None, DataRule] = field(default_factory=dict)
    seed: int = 0
    read: dict[str, tuple[str, bool]] = field(default_factory=dict)

    def rule_for(self, name: str, parameter: bool) -> DataRule | None:
        """The rule of the matrix ``name``: its own, else the default where it is a kernel pointer."""
        return self.rules.get(name) or (self.rules.get(None) if parameter else None)

    def values(self, name: str, rule: DataRule, elements: np.ndarray,
               t: CType) -> tuple[np.ndarray, np.ndarray]:
        """The values of ``elements`` (indices in units of ``t``) of matrix ``name``, as ``t``'s dtype, and
        where they are known (a file's bytes end somewhere)."""
        self.read.setdefault(name, (rule.describe(t), rule.path is None and rule.value is None))
        everywhere = np.ones(elements.shape, bool)
        if rule.path is not None:
            return _file_values(rule.content, elements, t)
        if rule.value is not None:
            return np.full(elements.shape, rule.value).astype(t.dtype), everywhere
        low, high = rule.bounds(t)
        bits = _hash(elements, _key(self.seed, name))
        if t.kind == "float":
            unit = (bits >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))
            return (low + unit * (high - low)).astype(t.dtype), everywhere
        span = int(high) - int(low) + 1
        drawn = (bits % np.uint64(span)).astype(np.int64) + int(low)
        return drawn.astype(t.dtype), everywhere  # wraps to the type as a C conversion does

    def notes(self) -> list[str]:
        """One assumption per matrix read under a rule."""
        return [f"values read from global memory ({name}) are {what} (--data{seeded}): the counts "
                "hold for these values, not for every input" for name, (what, random) in self.read.items()
                for seeded in [f", seed {self.seed}" if random else ""]]


def parse_data(texts: list[str]) -> dict[str | None, DataRule]:
    """``--data`` options: ``[NAME=]random``, ``[NAME=]random:LOW:HIGH``, ``[NAME=]NUMBER`` or
    ``[NAME=]file:PATH`` (the file is read here, within the ``data`` cap of bankism.inputs)."""
    rules: dict[str | None, DataRule] = {}
    for text in texts:
        name, equals, spec = text.partition("=")
        if not equals or text.startswith("file:"):  # a path may hold '='
            name, spec = "", text
        elif not _NAME.fullmatch(name):
            raise BankismError(f"--data {text!r}: {name!r} is not a kernel pointer's name")
        if spec.startswith("file:"):
            rules[name or None] = _file_rule(spec[len("file:"):], text)
            continue
        match = _SPEC.fullmatch(spec.strip())
        if not match:
            raise BankismError(f"--data {text!r}: expected [NAME=]random, [NAME=]random:LOW:HIGH, "
                               "[NAME=]NUMBER or [NAME=]file:PATH")
        if match["value"] is not None:
            rule = DataRule(value=_finite(match["value"], text))
        elif match["low"] is not None:
            low, high = _finite(match["low"], text), _finite(match["high"], text)
            if not low <= high:
                raise BankismError(f"--data {text!r}: LOW must not exceed HIGH")
            rule = DataRule(low, high)
        else:
            rule = DataRule()
        rules[name or None] = rule
    return rules


def _file_rule(path: str, option: str) -> DataRule:
    """The bytes of ``path``: raw, or the array of a .npy file in C order."""
    if not path:
        raise BankismError(f"--data {option!r}: file: needs a path")
    content = read_bytes(path, "data", f"--data {path}")
    if path.endswith(".npy"):
        try:
            array = np.load(io.BytesIO(content), allow_pickle=False)
        except (ValueError, OSError, EOFError) as error:
            raise BankismError(f"--data {path}: not a NumPy .npy array ({error})") from None
        content = np.ascontiguousarray(array).tobytes()
    return DataRule(path=path, content=content)


def _file_values(content: bytes, elements: np.ndarray, t: CType) -> tuple[np.ndarray, np.ndarray]:
    """Element ``i`` of type ``t`` at bytes ``i * size``; known where the file holds all its bytes."""
    size = t.size
    count = len(content) // size
    elements = np.asarray(elements, np.int64)
    known = (elements >= 0) & (elements < count)
    if not count:
        return np.zeros(elements.shape, t.dtype), known
    table = np.frombuffer(content, dtype=t.dtype, count=count)
    return np.where(known, table[np.clip(elements, 0, count - 1)], 0).astype(t.dtype), known


def _finite(text: str, option: str) -> float:
    value = float(text)
    if not np.isfinite(value) or abs(value) >= 2.0**63:
        raise BankismError(f"--data {option!r}: {text} is out of range")
    return int(value) if value == int(value) and not re.search(r"[.eE]", text) else value


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _key(seed: int, name: str) -> np.uint64:
    return np.uint64((seed * 0x9E3779B1 + zlib.crc32(name.encode())) & 0xFFFFFFFFFFFFFFFF)


def _hash(elements: np.ndarray, key: np.uint64) -> np.ndarray:
    """splitmix64 of each element index mixed with ``key``: one 64-bit pattern per element."""
    with np.errstate(over="ignore"):
        z = np.asarray(elements, np.int64).astype(np.uint64) ^ key
        z = z + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))
