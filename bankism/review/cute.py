"""CuTe layouts as CuTe prints them: ``Sw<3,3,3> o _0 o ((8,8),(8,8)):((64,8),(1,512))``.

A CuTe layout is a function from a coordinate to an offset: a (nested) shape, a (nested) stride of the
same profile, and for a swizzled shared-memory layout a ``Swizzle<B,M,S>`` and an offset composed
after it (CuTe's ``ComposedLayout``: ``swizzle(offset + layout(coord))``). This module parses the
printed notation (``print(layout)`` in C++, ``str(layout)`` in pycute and the CuTe DSL), accepts pycute
``Layout``/``ComposedLayout`` objects, and evaluates a layout on NumPy index arrays, exactly as CuTe's
``crd2idx`` does: the 1-D index of a mode is split over its leaves column-major (first leaf fastest).

No layout algebra is re-derived here beyond evaluation and ``complement`` (for ``make_tiled_copy``);
``cute_copy`` works on the functions' tables, which is exact for the finite tiles of shared memory.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from bankism.errors import BankismError
from bankism.inputs import limit
from bankism.review.layout import MAX_ELEMENTS, OFFSET_BITS, Swizzle, is_whole

IntTuple = int | tuple  # an int, or a tuple of IntTuples


def flatten(value: IntTuple) -> tuple[int, ...]:
    """The leaves of a nested tuple, left to right."""
    if isinstance(value, tuple):
        return tuple(leaf for item in value for leaf in flatten(item))
    return (value,)


def product(value: IntTuple) -> int:
    return math.prod(flatten(value))


def _congruent(shape: IntTuple, stride: IntTuple) -> bool:
    if isinstance(shape, tuple) != isinstance(stride, tuple):
        return False
    if isinstance(shape, tuple):
        return len(shape) == len(stride) and all(_congruent(a, b) for a, b in zip(shape, stride, strict=True))
    return True


def column_major_strides(shape: IntTuple, start: int = 1) -> IntTuple:
    """CuTe's default (compact column-major) stride of a shape."""
    if isinstance(shape, tuple):
        strides = []
        for item in shape:
            strides.append(column_major_strides(item, start))
            start *= product(item)
        return tuple(strides)
    return start


def tuple_text(value: IntTuple) -> str:
    """``(8,(4,2))``: CuTe's spelling without the underscores of static integers."""
    if isinstance(value, tuple):
        return "(" + ",".join(tuple_text(v) for v in value) + ")"
    return str(value)


@dataclass(frozen=True)
class CuteLayout:
    """``swizzle o offset o shape:stride``: CuTe's Layout, or its ComposedLayout with a Swizzle.

    Calling it with one integer index array per top-level mode (each the 1-D index of that mode)
    gives the offsets; with a single array on a layout of rank > 1, that array is the 1-D index
    of the whole layout (column-major over the modes), as ``layout(i)`` in CuTe.
    """

    shape: IntTuple
    stride: IntTuple
    swizzle: Swizzle | None = None
    offset: int = 0

    def __post_init__(self) -> None:
        if not _congruent(self.shape, self.stride):
            raise BankismError(f"layout {tuple_text(self.shape)}:{tuple_text(self.stride)}: shape and stride "
                               "must have the same nesting")
        leaves = (*flatten(self.shape), *flatten(self.stride), self.offset)
        if not all(is_whole(n) for n in leaves):
            bad = next(n for n in leaves if not is_whole(n))
            raise BankismError(f"layout {tuple_text(self.shape)}:{tuple_text(self.stride)}: {bad!r} is "
                               "not an integer")
        if self.swizzle is not None and not isinstance(self.swizzle, Swizzle):
            raise BankismError(f"layout {self}: the swizzle must be a Swizzle")
        if any(n < 1 for n in flatten(self.shape)):
            raise BankismError(f"layout {self}: every extent must be >= 1")
        if any(d < 0 for d in flatten(self.stride)):
            raise BankismError(f"layout {self}: negative strides are not supported")
        if self.offset < 0:
            raise BankismError(f"layout {self}: the offset must be >= 0")
        # Offsets are int64 and a swizzle moves bits below OFFSET_BITS: past that they would wrap silently.
        if self.size > 1 << OFFSET_BITS or self._largest_offset() >= 1 << OFFSET_BITS:
            raise BankismError(f"layout {self}: its size or largest offset is past 2^{OFFSET_BITS}; "
                               "offsets are 64-bit")

    def _largest_offset(self) -> int:
        """The largest offset before any swizzle (every stride is >= 0)."""
        pairs = zip(flatten(self.shape), flatten(self.stride), strict=True)
        return self.offset + sum((n - 1) * d for n, d in pairs)

    @property
    def rank(self) -> int:
        return len(self.shape) if isinstance(self.shape, tuple) else 1

    def mode(self, k: int) -> tuple[IntTuple, IntTuple]:
        """(shape, stride) of top-level mode ``k``."""
        if not isinstance(self.shape, tuple):
            return self.shape, self.stride
        return self.shape[k], self.stride[k]

    @property
    def mode_sizes(self) -> tuple[int, ...]:
        """Number of coordinates of each top-level mode: the tile's extents, ``(M, N)`` for a 2-D tile."""
        return tuple(product(self.mode(k)[0]) for k in range(self.rank))

    @property
    def size(self) -> int:
        return product(self.shape)

    @property
    def unswizzled(self) -> CuteLayout:
        return CuteLayout(self.shape, self.stride)

    def cosize(self) -> int:
        """One past the largest offset (the elements of memory the layout spans)."""
        if self.swizzle is None:
            return self._largest_offset() + 1
        if self.size > MAX_ELEMENTS:
            raise BankismError(f"layout {self}: {self.size:,} coordinates; bankism lays out at most "
                               f"{MAX_ELEMENTS:,}")
        return int(self(np.arange(self.size)).max()) + 1

    def __call__(self, *indices) -> np.ndarray:
        """Offsets of the coordinates given as one index array per mode (or one 1-D index array)."""
        if len(indices) == 1 and self.rank > 1:
            modes = [(self.shape, self.stride)]
        elif len(indices) == self.rank:
            modes = [self.mode(k) for k in range(self.rank)]
        else:
            raise BankismError(f"layout {self}: {len(indices)} coordinates for a rank-{self.rank} layout")
        total = None
        for index, (shape, stride) in zip(indices, modes, strict=True):
            part = _mode_offsets(np.asarray(index, dtype=np.int64), shape, stride)
            total = part if total is None else total + part
        total = total + self.offset
        return self.swizzle(total) if self.swizzle is not None else total

    def with_stride(self, stride: IntTuple) -> CuteLayout:
        return CuteLayout(self.shape, stride, self.swizzle, self.offset)

    def __str__(self) -> str:
        text = f"{tuple_text(self.shape)}:{tuple_text(self.stride)}"
        if self.swizzle is None and not self.offset:
            return text
        swizzle = self.swizzle or Swizzle(0, 0, 0)
        return f"Sw<{swizzle.bits},{swizzle.base},{swizzle.shift}> o _{self.offset} o {text}"


def _mode_offsets(index: np.ndarray, shape: IntTuple, stride: IntTuple) -> np.ndarray:
    """CuTe's crd2idx of a 1-D index within one mode: leaves column-major, first fastest."""
    offsets = np.zeros(index.shape, np.int64)
    rest = index
    for extent, step in zip(flatten(shape), flatten(stride), strict=True):
        offsets = offsets + (rest % extent) * step
        rest = rest // extent
    return offsets


# ---------------------------------------------------------------------------------------------
# The printed notation
# ---------------------------------------------------------------------------------------------

_TOKEN = re.compile(r"\s*(?:(?P<int>_?\d+)|(?P<sym>[(),:<>])|(?P<word>[A-Za-z][A-Za-z0-9_]*))")


def _tokens(text: str) -> list[str]:
    found, position = [], 0
    text = text.strip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            rest = text[position:].strip()
            if not rest:
                break
            raise BankismError(f"layout {text!r}: cannot read {rest[:20]!r}")
        found.append(match.group(match.lastgroup))
        position = match.end()
    return found


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.items = _tokens(text)
        self.at = 0
        self.depth = 0

    def peek(self) -> str | None:
        return self.items[self.at] if self.at < len(self.items) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            wanted = f"{expected!r}" if expected else "more"
            raise BankismError(f"layout {self.text!r}: expected {wanted}, found {token or 'the end'}")
        self.at += 1
        return token

    def integer(self) -> int:
        token = self.take()
        if not re.fullmatch(r"_?\d+", token):
            raise BankismError(f"layout {self.text!r}: expected an integer, found {token!r}")
        return int(token.lstrip("_"))

    def int_tuple(self) -> IntTuple:
        if self.peek() != "(":
            return self.integer()
        self.take("(")
        self.depth += 1
        if self.depth > limit("nesting"):
            raise BankismError(f"layout {self.text[:40]!r}...: parentheses nested more than "
                               f"{limit('nesting')} deep")
        items = [self.int_tuple()]
        while self.peek() == ",":
            self.take(",")
            items.append(self.int_tuple())
        self.take(")")
        self.depth -= 1
        return tuple(items)


def _swizzle_word(reader: _Reader) -> Swizzle | None:
    """``Sw<B,M,S>``, ``Swizzle<B,M,S>`` or pycute's ``SW_B_M_S`` at the reader, else None."""
    token = reader.peek()
    if token is None:
        return None
    match = re.fullmatch(r"SW_(\d+)_(\d+)_(-?\d+)", token)
    if match:
        reader.take()
        return Swizzle(*(int(g) for g in match.groups()))
    if token not in ("Sw", "Swizzle"):
        return None
    reader.take()
    reader.take("<")
    bits = reader.integer()
    reader.take(",")
    base = reader.integer()
    reader.take(",")
    shift = reader.integer()
    reader.take(">")
    return Swizzle(bits, base, shift)


def parse_layout(text: str) -> CuteLayout:
    """A layout from CuTe's printed notation.

    Accepted: ``shape:stride`` with nested tuples (``((8,8),(8,8)):((64,8),(1,512))``), a shape alone
    (column-major stride, as ``make_layout(shape)``), CuTe's static integers (``_8``) or plain ones,
    and a composed layout ``Sw<B,M,S> o OFFSET o LAYOUT`` (also ``Swizzle<B,M,S>``, pycute's
    ``SW_B_M_S``, or without the offset). Negative swizzle shifts and other composed layouts are refused.
    """
    if not isinstance(text, str) or not text.strip():
        raise BankismError("layout: expected CuTe's notation, e.g. 'Sw<3,3,3> o _0 o (64,64):(64,1)'")
    parts = [part.strip() for part in re.split(r"\s+o\s+", text.strip())]
    swizzle, offset = None, 0
    if len(parts) > 3:
        raise BankismError(f"layout {text!r}: expected at most 'SWIZZLE o OFFSET o LAYOUT'")
    if len(parts) >= 2:
        reader = _Reader(parts[0])
        swizzle = _swizzle_word(reader)
        if swizzle is None or reader.peek() is not None:
            raise BankismError(f"layout {text!r}: {parts[0]!r} is not a swizzle Sw<B,M,S>")
    if len(parts) == 3:
        reader = _Reader(parts[1])
        offset = reader.integer()
        if reader.peek() is not None:
            raise BankismError(f"layout {text!r}: the offset {parts[1]!r} must be an integer")
    reader = _Reader(parts[-1])
    shape = reader.int_tuple()
    if reader.peek() == ":":
        reader.take(":")
        stride = reader.int_tuple()
    else:
        stride = column_major_strides(shape)
    if reader.peek() is not None:
        raise BankismError(f"layout {text!r}: unexpected {reader.peek()!r} after the layout")
    return CuteLayout(shape, stride, swizzle, offset)


def as_layout(value: object) -> CuteLayout:
    """A ``CuteLayout`` from itself, CuTe's printed notation, or a pycute ``Layout``/``ComposedLayout``."""
    if isinstance(value, CuteLayout):
        return value
    if isinstance(value, str):
        return parse_layout(value)
    layout_a = getattr(value, "layoutA", None)
    if layout_a is not None:  # pycute.ComposedLayout(swizzle, offset, layout)
        inner = as_layout(layout_a)
        outer = getattr(value, "layoutB", None)
        swizzle = None
        if outer is not None and hasattr(outer, "bits"):
            swizzle = Swizzle(outer.bits, getattr(outer, "base", None), getattr(outer, "shift", None))
        elif outer is not None:
            raise BankismError(f"layout {value}: only a Swizzle may be composed outside the layout")
        return CuteLayout(inner.shape, inner.stride, swizzle, getattr(value, "offset", 0) or 0)
    shape, stride = getattr(value, "shape", None), getattr(value, "stride", None)
    if shape is not None and stride is not None:
        return CuteLayout(_ints(shape), _ints(stride))
    raise BankismError(f"cannot read a CuTe layout from {type(value).__name__}: give its printed notation "
                       "or a pycute Layout")


def _ints(value: object) -> IntTuple:
    if isinstance(value, tuple | list):
        return tuple(_ints(v) for v in value)
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise BankismError(f"layout: {value!r} is not an integer")
    return int(value)


def complement(layout: CuteLayout, cotarget: int) -> CuteLayout:
    """CuTe's ``complement(layout, cotarget)`` of an unswizzled layout: the layout that fills the gaps
    of its image up to ``cotarget`` (modes sorted by stride; each new extent the gap before the next)."""
    leaves = sorted((d, s) for s, d in zip(flatten(layout.shape), flatten(layout.stride), strict=True)
                    if s > 1 and d != 0)
    shapes, strides, current = [], [], 1
    for stride, extent in leaves:
        if stride % current:
            raise BankismError(f"complement of {layout}: stride {stride} is not a multiple of {current}")
        shapes.append(stride // current)
        strides.append(current)
        current = stride * extent
    shapes.append(max(1, -(-cotarget // current)))
    strides.append(current)
    kept = [(s, d) for s, d in zip(shapes, strides, strict=True) if s > 1] or [(1, 0)]
    return CuteLayout(tuple(s for s, _ in kept), tuple(d for _, d in kept))
