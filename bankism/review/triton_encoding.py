"""Triton's shared and blocked encodings as values (``SharedEncoding``, ``Blocked``) and read from TTGIR text
(``parse_encoding``, ``encodings_in``); where an element of an encoded tile lives (triton_shared.py's
docstring gives the formulas and their source). Every impossible attribute is one error line naming it."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from bankism.arch import LANES, MAX_THREADS_PER_BLOCK
from bankism.errors import BankismError
from bankism.review.layout import (
    MAX_ELEMENTS,
    check_itemsize,
    is_whole,
    shape_items,
)


@dataclass(frozen=True)
class SharedEncoding:
    """A Triton shared encoding of a 2-D (or higher) tile: swizzling parameters and dimension order."""

    vec: int = 1
    per_phase: int = 1
    max_phase: int = 1
    order: tuple[int, ...] = (1, 0)
    nvmma_bytes: int | None = None  # swizzlingByteWidth of an nvmma_shared encoding (0, 32, 64, 128)

    def __post_init__(self) -> None:
        for name, attribute in (("vec", "vec"), ("per_phase", "perPhase"), ("max_phase", "maxPhase")):
            value = getattr(self, name)
            if not is_whole(value) or value < 1 or value & (value - 1) or value > MAX_ELEMENTS:
                raise BankismError(f"shared encoding: {attribute}={value!r} must be a power of two from 1 to "
                                   f"{MAX_ELEMENTS:,} (the most elements bankism lays out)")
            object.__setattr__(self, name, int(value))
        order = shape_items(self.order)
        if any(not is_whole(d) for d in order):
            raise BankismError(f"shared encoding: order={self.order!r} must be a list of dimensions")
        object.__setattr__(self, "order", tuple(int(d) for d in order))
        if sorted(self.order) != list(range(len(self.order))) or len(self.order) < 2:
            raise BankismError(f"shared encoding: order={list(self.order)} must list the dimensions once")
        width = self.nvmma_bytes
        if width is not None and (not is_whole(width) or not 0 <= width <= 128 or width & (width - 1)):
            raise BankismError(f"nvmma_shared: swizzlingByteWidth={width!r}: 0 or a power of two <= 128")

    @classmethod
    def nvmma(cls, swizzle_bytes: int, element_bits: int, transposed: bool = False) -> SharedEncoding:
        """Triton's NVMMASharedEncodingAttr (getVec/getPerPhase/getMaxPhase)."""
        if not is_whole(swizzle_bytes) or swizzle_bytes not in (0, 32, 64, 128):
            raise BankismError(f"nvmma_shared: swizzlingByteWidth={swizzle_bytes!r} must be 0, 32, 64 or 128")
        element_widths = (4, 8, 16, 32, 64)  # a 16-byte vector holds a whole number of them
        if not is_whole(element_bits) or element_bits not in element_widths:
            raise BankismError(f"nvmma_shared: elementBitWidth={element_bits!r} must be one of "
                               f"{', '.join(map(str, element_widths))}")
        order = (0, 1) if transposed else (1, 0)
        if swizzle_bytes == 0:
            return cls(1, 1, 1, order, 0)
        return cls(128 // element_bits, 128 // swizzle_bytes, swizzle_bytes // 16, order, swizzle_bytes)

    def offsets(self, shape: tuple[int, ...], itemsize: int, *indices: np.ndarray) -> np.ndarray:
        """Element offsets of the elements at ``indices`` (one array per dimension) in a tile of ``shape``."""
        column_dim, row_dim = self.order[0], self.order[1]
        columns, rows = shape[column_dim], shape[row_dim]
        r = np.asarray(indices[row_dim], np.int64)
        c = np.asarray(indices[column_dim], np.int64)
        phase = (self.vec * ((r // self.per_phase) % self.max_phase))
        if self.nvmma_bytes:
            check_itemsize(itemsize)
            block = max(16, self.nvmma_bytes) // itemsize  # columns per core-matrix block
            if columns % block:
                raise BankismError(f"{self}: {columns} columns are not a multiple of the {block}-column "
                                   "block")
            inner = c % block
            swizzled = inner ^ (phase % block)
            offset = (c // block) * (rows * block) + r * block + swizzled
        else:
            offset = r * columns + (c ^ (phase % columns))
        stride = rows * columns
        for dim in self.order[2:]:
            offset = offset + np.asarray(indices[dim], np.int64) * stride
            stride *= shape[dim]
        return offset

    def __str__(self) -> str:
        order = ", ".join(str(d) for d in self.order)
        if self.nvmma_bytes is not None:
            transposed = "true" if self.order[0] == 0 else "false"
            return (f"#ttg.nvmma_shared<{{swizzlingByteWidth = {self.nvmma_bytes}, "
                    f"transposed = {transposed}}}>")
        return (f"#ttg.swizzled_shared<{{vec = {self.vec}, perPhase = {self.per_phase}, "
                f"maxPhase = {self.max_phase}, order = [{order}]}}>")


_BLOCKED_FIELDS = (("size_per_thread", "sizePerThread"), ("threads_per_warp", "threadsPerWarp"),
                   ("warps_per_cta", "warpsPerCTA"), ("order", "order"))


@dataclass(frozen=True)
class Blocked:
    """Triton's ``#blocked`` register layout: which thread holds which elements."""

    size_per_thread: tuple[int, ...]
    threads_per_warp: tuple[int, ...]
    warps_per_cta: tuple[int, ...]
    order: tuple[int, ...]

    def __post_init__(self) -> None:
        for name, attribute in _BLOCKED_FIELDS:
            least = 0 if name == "order" else 1  # every count positive; order lists dimensions from 0
            if any(not is_whole(v) or v < least for v in shape_items(getattr(self, name))):
                raise BankismError(f"#blocked: {attribute} = {getattr(self, name)!r} must list integers >= "
                                   f"{least}")
            object.__setattr__(self, name, tuple(int(v) for v in shape_items(getattr(self, name))))
        rank = len(self.order)
        if not (len(self.size_per_thread) == len(self.threads_per_warp) == len(self.warps_per_cta) == rank):
            raise BankismError(f"{self}: sizePerThread, threadsPerWarp, warpsPerCTA and order need one "
                               "entry per dimension")
        if math.prod(self.threads_per_warp) != LANES:
            raise BankismError(f"{self}: threadsPerWarp = {list(self.threads_per_warp)} must multiply to the "
                               f"{LANES} lanes of a warp")
        if self.warps * LANES > MAX_THREADS_PER_BLOCK:
            raise BankismError(f"{self}: warpsPerCTA = {list(self.warps_per_cta)} makes a CTA of "
                               f"{self.warps * LANES:,} threads; a block has at most {MAX_THREADS_PER_BLOCK}")
        if sorted(self.order) != list(range(rank)):
            raise BankismError(f"{self}: order must list the dimensions once")

    @property
    def warps(self) -> int:
        return math.prod(self.warps_per_cta)

    def __str__(self) -> str:
        def text(values):
            return "[" + ", ".join(str(v) for v in values) + "]"
        return (f"#ttg.blocked<{{sizePerThread = {text(self.size_per_thread)}, threadsPerWarp = "
                f"{text(self.threads_per_warp)}, warpsPerCTA = {text(self.warps_per_cta)}, order = "
                f"{text(self.order)}}}>")


# ---------------------------------------------------------------------------------------------
# TTGIR text
# ---------------------------------------------------------------------------------------------

# An attribute's body holds no braces: ``[^{}]*`` (not ``.*?``) keeps each search linear in the text.
_ATTRIBUTE = re.compile(
    r"#(?:ttg|triton_gpu)\.(swizzled_shared|shared|nvmma_shared|blocked)\s*<\s*\{([^{}]*)\}\s*>")


def _fields(body: str) -> dict[str, str]:
    found = {}
    for match in re.finditer(r"(\w+)\s*=\s*(\[[^\]]*\]|-?[\w.]+)", body):
        found[match.group(1)] = match.group(2)
    return found


def _ints(text: str, what: str) -> tuple[int, ...]:
    try:
        return tuple(int(v) for v in text.strip("[] ").split(",") if v.strip())
    except ValueError:
        raise BankismError(f"{what}: {text!r} is not a list of integers") from None


def _int(body: dict[str, str], key: str, where: str, default: int | None = None) -> int:
    """The integer attribute ``key`` (``vec = 8``), or one line naming it."""
    if key not in body and default is None:
        raise BankismError(f"{where}: missing {key}")
    try:
        return int(body.get(key, default))  # type: ignore[arg-type]
    except ValueError:
        raise BankismError(f"{where}: {key} = {body[key]!r} is not an integer") from None


def parse_encoding(text: str, element_bits: int = 16) -> SharedEncoding | Blocked:
    """One encoding from TTGIR text: ``#ttg.swizzled_shared<{...}>``, ``#ttg.nvmma_shared<{...}>``
    (its own elementBitWidth wins over ``element_bits``), ``#triton_gpu.shared<{...}>`` or
    ``#ttg.blocked``."""
    match = _ATTRIBUTE.search(text)
    if match is None:
        raise BankismError(f"no Triton shared or blocked encoding in {text.strip()[:80]!r}")
    kind, body = match.group(1), _fields(match.group(2))
    where = f"#{kind}"
    try:
        if kind == "blocked":
            return Blocked(*(_ints(body[key], f"{where}: {key}") for key in
                             ("sizePerThread", "threadsPerWarp", "warpsPerCTA", "order")))
        if kind == "nvmma_shared":
            transposed = body.get("transposed", "false")
            if transposed not in ("true", "false"):
                raise BankismError(f"{where}: transposed = {transposed!r} must be true or false")
            bits = _int(body, "elementBitWidth", where, element_bits)
            return SharedEncoding.nvmma(_int(body, "swizzlingByteWidth", where), bits, transposed == "true")
        return SharedEncoding(_int(body, "vec", where), _int(body, "perPhase", where),
                              _int(body, "maxPhase", where), _ints(body["order"], f"{where}: order"))
    except KeyError as missing:
        raise BankismError(f"{where}: missing {missing.args[0]}") from None


def encodings_in(text: str) -> dict[str, SharedEncoding | Blocked]:
    """The named encodings a TTGIR module defines (``#shared = #ttg.swizzled_shared<...>``)."""
    found = {}
    definition = r"^[ \t]*(#\w+)[ \t]*=\s*(#(?:ttg|triton_gpu)\.(\w+)\s*<\s*\{[^{}]*\}\s*>)"
    for match in re.finditer(definition, text, re.M):
        if match.group(3) in ("swizzled_shared", "shared", "nvmma_shared", "blocked"):
            found[match.group(1)] = parse_encoding(match.group(2))
    return found
