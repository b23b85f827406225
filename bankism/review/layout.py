"""Shared-array layouts of a review: element type, shape, padding and CuTe-style XOR swizzles."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from bankism.arch import ARCHITECTURES
from bankism.errors import BankismError

#: Element offsets are int64: a swizzle may move bits 0..OFFSET_BITS - 1 only.
OFFSET_BITS = 62
#: An array larger than any shared memory is still described (``check`` then says it does not fit)
#: up to this many elements; past it laying it out (layout functions, swizzles) would only fill memory.
MAX_ELEMENTS = 1 << 22

_DTYPE_ALIASES = {
    "float": "float32", "fp32": "float32", "f32": "float32",
    "double": "float64", "fp64": "float64", "f64": "float64",
    "half": "float16", "__half": "float16", "fp16": "float16", "f16": "float16",
    "bf16": "bfloat16", "__nv_bfloat16": "bfloat16", "nv_bfloat16": "bfloat16",
    "int": "int32", "unsigned": "uint32", "unsigned int": "uint32",
    "char": "int8", "signed char": "int8", "unsigned char": "uint8",
    "short": "int16", "unsigned short": "uint16",
    "long long": "int64", "unsigned long long": "uint64",
}
_ITEMSIZES = {
    "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "float16": 2, "bfloat16": 2,
    "int32": 4, "uint32": 4, "float32": 4, "int64": 8, "uint64": 8, "float64": 8,
}
_CUDA_NAMES = {
    "int8": "signed char", "uint8": "unsigned char", "int16": "short", "uint16": "unsigned short",
    "float16": "half", "bfloat16": "__nv_bfloat16", "int32": "int", "uint32": "unsigned int",
    "float32": "float", "int64": "long long", "uint64": "unsigned long long", "float64": "double",
}




@dataclass(frozen=True)
class Swizzle:
    """CuTe's ``Swizzle<bits, base, shift>`` on element offsets: ZZZ ^= YYY.

    The ``bits`` bits starting at bit ``base + max(0, shift)`` (YYY) are xor-ed into the
    ``bits`` bits starting at bit ``base - min(0, shift)`` (ZZZ); for shift >= 0 this is
    ``offset ^ ((offset >> shift) & (((1 << bits) - 1) << base))``, exactly as
    ``cute::Swizzle::apply`` in cutlass/include/cute/swizzle.hpp.
    """

    bits: int
    base: int
    shift: int

    def __post_init__(self) -> None:
        for name in ("bits", "base", "shift"):
            value = getattr(self, name)
            if not is_whole(value):
                raise BankismError(f"Swizzle: {name}={value!r} must be an integer")
            object.__setattr__(self, name, int(value))
        if self.bits < 0 or self.base < 0:
            raise BankismError(f"Swizzle<{self.bits},{self.base},{self.shift}>: bits and base must be >= 0")
        if abs(self.shift) < self.bits:
            raise BankismError(
                f"Swizzle<{self.bits},{self.base},{self.shift}>: |shift| must be >= bits, as CuTe requires"
            )
        top = self.bits + self.base + abs(self.shift)
        if top > OFFSET_BITS:
            raise BankismError(
                f"Swizzle<{self.bits},{self.base},{self.shift}>: moves bit {top - 1} of the element offset; "
                f"offsets are 64-bit (bits + base + |shift| must be at most {OFFSET_BITS})"
            )

    @property
    def yyy_mask(self) -> int:
        """The source bits (CuTe's yyy_msk)."""
        return ((1 << self.bits) - 1) << (self.base + max(0, self.shift))

    @property
    def zzz_mask(self) -> int:
        """The bits that get flipped (CuTe's zzz_msk)."""
        return ((1 << self.bits) - 1) << (self.base - min(0, self.shift))

    def __call__(self, offset):
        """The swizzled offset (an int or an integer array), like ``cute::Swizzle::apply``; a negative
        or non-integer offset is refused."""
        if is_whole(offset):
            if offset < 0:
                raise BankismError(f"{self}: offset {offset} is negative; element offsets are >= 0")
        else:
            try:
                array = None if isinstance(offset, str | bytes) else np.asarray(offset)
            except (TypeError, ValueError):  # a ragged list
                array = None
            if array is None or array.dtype.kind not in "iu":
                raise BankismError(f"{self}: offset {offset!r:.60} is not an integer (or an integer array)")
            if array.size and array.min() < 0:
                raise BankismError(f"{self}: offset {int(array.min())} is negative; element offsets are >= 0")
            offset = array
        source = offset & self.yyy_mask
        moved = source >> self.shift if self.shift >= 0 else source << -self.shift
        return offset ^ moved

    def __str__(self) -> str:
        return f"Swizzle<{self.bits},{self.base},{self.shift}>"


def _canonical_dtype(dtype: object) -> str:
    """The dtype's canonical name ("float32", "float16", ...), accepting CUDA and NumPy spellings."""
    if dtype is None:  # np.dtype(None) would be float64
        raise BankismError("element type None: give one such as 'float', 'half' or np.float32")
    if isinstance(dtype, str):
        name = _DTYPE_ALIASES.get(dtype.strip(), dtype.strip())
        if name in _ITEMSIZES:
            return name
    try:
        name = np.dtype(dtype).name
    except TypeError:
        name = None
    if name in _ITEMSIZES:
        return name
    known = ", ".join(sorted(set(_ITEMSIZES) | set(_DTYPE_ALIASES)))
    raise BankismError(f"unknown element type {dtype!r}: expected one of {known}")


def is_whole(value: object) -> bool:
    """An integer (Python's or NumPy's); never a float (32.0 is refused, not rounded), a string or a bool."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


def shape_items(value: object) -> tuple:
    """A shape given as a sequence, as a tuple; () for anything else (then refused)."""
    if isinstance(value, str | bytes):
        return ()
    try:
        return tuple(value)  # type: ignore[arg-type]
    except TypeError:
        return ()


def positive_shape(shape: object, where: str) -> tuple[int, ...]:
    """``shape`` (a sequence) as positive integers of at most MAX_ELEMENTS elements, or one line naming
    ``where``: checked before anything of that shape is laid out."""
    dims = shape_items(shape)
    if not dims or any(not is_whole(n) or n < 1 for n in dims):
        raise BankismError(f"{where} {shape!r}: expected positive integers such as 64,64")
    dims = tuple(int(n) for n in dims)
    if math.prod(dims) > MAX_ELEMENTS:
        raise BankismError(f"{where} {list(dims)}: {math.prod(dims):,} elements; bankism lays out at most "
                           f"{MAX_ELEMENTS:,}")
    return dims


def check_itemsize(itemsize: object) -> None:
    """Refuse (one line) an element size that no element type of bankism has."""
    if not is_whole(itemsize) or itemsize not in set(_ITEMSIZES.values()):
        raise BankismError(f"element size {itemsize!r}: expected one of 1, 2, 4 or 8 bytes")


@dataclass(frozen=True, repr=False)
class SharedArray:
    """A ``__shared__`` array: element type, shape, row padding, base byte offset and swizzle.

    Element ``[i0]...[in]`` lives at the element offset of the row-major layout whose last
    dimension is ``shape[-1] + pad`` long; a ``Swizzle`` is applied to that element offset
    (as CuTe composes a swizzle with a layout); a function ``(row, col) -> element offset``
    (any rank: one argument per dimension) replaces the layout altogether. Its bytes start
    at ``base`` in the shared-memory window.
    """

    dtype: str
    shape: tuple[int, ...]
    pad: int = 0
    base: int = 0
    swizzle: Swizzle | Callable | None = None
    name: str = "smem"

    def __post_init__(self) -> None:
        object.__setattr__(self, "dtype", _canonical_dtype(self.dtype))
        shape = (self.shape,) if isinstance(self.shape, int | np.integer) else shape_items(self.shape)
        if not shape or any(not is_whole(n) or n < 1 for n in shape):
            raise BankismError(f"shared array {self.name}: shape {self.shape!r} must be positive integers")
        object.__setattr__(self, "shape", tuple(int(n) for n in shape))
        if math.prod(self.shape) > MAX_ELEMENTS:
            largest = max(arch.shared_bytes for arch in ARCHITECTURES.values())
            raise BankismError(
                f"shared array {self.name}: shape {self.shape} has {math.prod(self.shape):,} elements; no "
                f"GPU bankism models has more than {largest:,} bytes of shared memory (bankism lays out at "
                f"most {MAX_ELEMENTS:,} elements)"
            )
        if not is_whole(self.pad) or self.pad < 0:
            raise BankismError(f"shared array {self.name}: pad={self.pad!r} must be an integer >= 0")
        if self.pad and len(self.shape) < 2:
            raise BankismError(f"shared array {self.name}: pad applies to rows; a 1-D array has none")
        if not is_whole(self.base) or self.base < 0 or self.base % self.itemsize:
            raise BankismError(
                f"shared array {self.name}: base={self.base!r} must be a byte offset >= 0 "
                f"aligned to its {self.itemsize}-byte elements"
            )
        if self.swizzle is not None and not isinstance(self.swizzle, Swizzle) and not callable(self.swizzle):
            raise BankismError(
                f"shared array {self.name}: swizzle must be a Swizzle or a function of the indices"
            )
        if callable(self.swizzle) and not isinstance(self.swizzle, Swizzle):
            if self.pad:
                raise BankismError(
                    f"shared array {self.name}: give pad= or a layout function, not both: the function "
                    "decides every offset"
                )
            _check_layout_function(self)

    @property
    def itemsize(self) -> int:
        """Bytes per element."""
        return _ITEMSIZES[self.dtype]

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        """Number of elements (padding excluded)."""
        return math.prod(self.shape)

    @property
    def pitch(self) -> int:
        """Elements from the start of one row to the start of the next (``shape[-1] + pad``)."""
        return self.shape[-1] + self.pad

    @property
    def strides(self) -> tuple[int, ...]:
        """Element strides of the padded row-major layout, before any swizzle."""
        strides = [1]
        extent = self.pitch
        for n in reversed(self.shape[:-1]):
            strides.append(extent)
            extent *= n
        return tuple(reversed(strides))

    @property
    def nbytes(self) -> int:
        """Shared memory the declaration takes, padding included."""
        allocated = math.prod(self.shape[:-1]) * self.pitch
        return max(allocated, _max_offset(self) + 1) * self.itemsize

    @property
    def dense_nbytes(self) -> int:
        """Bytes of the same array with no padding."""
        return self.size * self.itemsize

    @property
    def extra_bytes(self) -> int:
        """Shared memory spent on padding (or on a layout function's holes)."""
        return self.nbytes - self.dense_nbytes

    @property
    def cuda_type(self) -> str:
        return _CUDA_NAMES[self.dtype]

    @property
    def declaration(self) -> str:
        """The CUDA declaration of this array, padding included (a swizzle is in the indexing)."""
        if callable(self.swizzle) and not isinstance(self.swizzle, Swizzle):
            return f"__shared__ {self.cuda_type} {self.name}[{self.nbytes // self.itemsize}];"
        dims = "".join(f"[{n}]" for n in self.shape[:-1]) + f"[{self.pitch}]"
        return f"__shared__ {self.cuda_type} {self.name}{dims};"

    def with_layout(self, pad: int = 0, swizzle: Swizzle | Callable | None = None) -> SharedArray:
        """The same array with another padding and swizzle (base and name kept)."""
        return replace(self, pad=pad, swizzle=swizzle)

    def element_offsets(self, *indices: np.ndarray) -> np.ndarray:
        """Element offsets of the elements at ``indices`` (one integer array per dimension)."""
        if callable(self.swizzle) and not isinstance(self.swizzle, Swizzle):
            return np.asarray(self.swizzle(*indices), dtype=np.int64)
        if len(indices) != len(self.shape):
            raise BankismError(f"{self.name}: {len(indices)} index array(s) for a {len(self.shape)}-D array")
        try:
            arrays = [np.asarray(index, np.int64) for index in indices]
            offsets = np.zeros(np.broadcast_shapes(*(a.shape for a in arrays)), np.int64)
        except (TypeError, ValueError) as error:
            raise BankismError(f"{self.name}: the indices must be integer arrays of one shape ({error})"
                               ) from None
        for index, stride in zip(arrays, self.strides, strict=True):
            offsets = offsets + index * stride
        if isinstance(self.swizzle, Swizzle):
            offsets = self.swizzle(offsets)
        return offsets

    def byte_addresses(self, *indices: np.ndarray) -> np.ndarray:
        """Byte offsets in the shared-memory window of the elements at ``indices``."""
        return self.base + self.element_offsets(*indices) * self.itemsize

    def __str__(self) -> str:
        dims = "".join(f"[{n}]" for n in self.shape)
        text = f"{self.cuda_type} {self.name}{dims}"
        if self.pad:
            text += f" (rows padded to {self.pitch})"
        if isinstance(self.swizzle, Swizzle):
            text += f" with {self.swizzle}"
        elif self.swizzle is not None:
            text += f" with layout {getattr(self.swizzle, '__name__', 'function')}"
        return text

    def __repr__(self) -> str:
        parts = [repr(self.dtype), repr(self.shape)]
        if self.pad:
            parts.append(f"pad={self.pad}")
        if self.base:
            parts.append(f"base={self.base}")
        if self.swizzle is not None:
            parts.append(f"swizzle={self.swizzle!r}")
        if self.name != "smem":
            parts.append(f"name={self.name!r}")
        return f"SharedArray({', '.join(parts)})"


def all_indices(array: SharedArray) -> tuple[np.ndarray, ...]:
    """Index arrays of every element, in row-major order."""
    return tuple(axis.reshape(-1) for axis in np.indices(array.shape, dtype=np.int64))


def _check_layout_function(array: SharedArray) -> None:
    """A layout function must give every element its own non-negative integer offset."""
    indices = all_indices(array)
    try:
        offsets = np.asarray(array.swizzle(*indices))
    except Exception as error:
        raise BankismError(
            f"shared array {array.name}: the layout function failed on index arrays ({error}); "
            "write it with NumPy operations"
        ) from None
    if offsets.shape != indices[0].shape or offsets.dtype.kind not in "iu":
        raise BankismError(
            f"shared array {array.name}: the layout function must return one integer offset per element"
        )
    if offsets.min() < 0:
        at = int(np.argmin(offsets))
        raise BankismError(
            f"shared array {array.name}: the layout function puts {_index_text(indices, at)} at negative "
            f"offset {int(offsets[at])}"
        )
    order = np.argsort(offsets, kind="stable")
    same = np.flatnonzero(offsets[order][1:] == offsets[order][:-1])
    if same.size:
        first, second = order[same[0]], order[same[0] + 1]
        raise BankismError(
            f"shared array {array.name}: the layout function puts {_index_text(indices, first)} and "
            f"{_index_text(indices, second)} at the same offset {int(offsets[first])}"
        )


def _index_text(indices: tuple[np.ndarray, ...], at: int) -> str:
    return "".join(f"[{int(axis[at])}]" for axis in indices)


@functools.lru_cache(maxsize=256)
def _max_offset(array: SharedArray) -> int:
    """The largest element offset any element of ``array`` takes."""
    if array.swizzle is None:
        return sum((n - 1) * s for n, s in zip(array.shape, array.strides, strict=True))
    return int(array.element_offsets(*all_indices(array)).max())


