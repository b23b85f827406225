"""Memory regions the interpreter reads and writes: the block's shared-memory window (with
what every byte holds), global matrices (symbolic: only provenance), and per-thread local
arrays."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bankism.arch import DYNAMIC_SHARED_ALIGN
from bankism.errors import BankismError
from bankism.explain.simt import ctype as C
from bankism.explain.simt.ctype import CType
from bankism.explain.simt.global_data import DataRule, GlobalData
from bankism.explain.simt.values import (
    SRC_MASK,
    SRC_SHIFT,
    Failure,
    Mask,
    Scalar,
    convert,
    flags_per_thread,
    per_thread,
    src_per_thread,
)


@dataclass(eq=False)
class SharedVariable:
    """One __shared__ array: its name, declared type, and place in the shared window."""

    name: str
    type: CType
    base: int
    size: int
    line: int
    extern: bool = False

    @property
    def scalar(self) -> CType:
        return self.type.scalar


@dataclass(eq=False)
class SharedWindow:
    """What a shared-window address (``__cvta_generic_to_shared``) cast to a pointer points into: the
    window itself, offset = the address. Only PTX takes it (as the address of a state-space
    instruction); C cannot read or write through it."""

    name: str = "the shared window"


#: The one shared-window region every such pointer refers to.
SHARED_WINDOW = SharedWindow()


@dataclass(eq=False)
class GlobalMatrix:
    """A global-memory array named after the kernel parameter that points to it."""

    name: str
    pointee: CType
    ident: int
    #: Whether the kernel was given a null pointer (`-D name=0`, or a launch passing nullptr/0), False for
    #: another number, None where not known: a `p != nullptr` guard is then known.
    null: bool | None = None
    #: What the matrix holds where the user said (`explain --data`), else None: its values are unknown.
    rule: DataRule | None = None
    data: GlobalData | None = None


@dataclass(eq=False)
class LocalArray:
    """A per-thread array (registers or local memory): one row of values per storage unit.
    ``unit`` is the element type until the array is written through a narrower type
    (``punning``), then that type."""

    name: str
    type: CType
    threads: int
    data: np.ndarray = field(init=False)
    known: np.ndarray = field(init=False)
    src: np.ndarray = field(init=False)
    unit: CType = field(init=False)

    def __post_init__(self) -> None:
        self.unit = self.type.scalar
        if self.unit.size <= 0:  # an array of objects with no storage explain models (fragments)
            raise BankismError(f"unsupported construct: an array of {self.unit} held as {self.name}")
        slots = self.type.size // self.unit.size
        self.data = np.zeros((slots, self.threads), self.unit.dtype)
        self.known = np.zeros((slots, self.threads), bool)
        self.src = np.full((slots, self.threads), -1, np.int64)

    @property
    def scalar(self) -> CType:
        return self.type.scalar

    def state(self) -> tuple:
        """A copy of what the array holds (for ``restore``)."""
        return (self.data.copy(), self.known.copy(), self.src.copy(), self.unit)

    def restore(self, state: tuple) -> None:
        data, known, src, unit = state
        self.data, self.known, self.src, self.unit = data.copy(), known.copy(), src.copy(), unit

    def copy(self) -> LocalArray:
        twin = LocalArray(self.name, self.type, self.threads)
        twin.restore(self.state())
        return twin


def describe_source(src: int, matrices: list[GlobalMatrix]) -> str | None:
    """``A_mat[4112]`` for a provenance code, in units of the matrix's own element type."""
    if src < 0:
        return None
    matrix = matrices[src >> SRC_SHIFT]
    element = src & SRC_MASK
    pointee = matrix.pointee
    if pointee.kind == "vec":
        return f"{matrix.name}[{element // pointee.count}].{'xyzw'[element % pointee.count]}"
    return f"{matrix.name}[{element}]"


def global_load(matrix: GlobalMatrix, offsets: np.ndarray | np.generic, t: CType) -> Scalar:
    """A read of scalar type ``t`` from ``matrix``: known provenance; the value is unknown unless the
    user stated what the matrix holds (``--data``, elements read at their own width)."""
    unit = matrix.pointee.scalar.size if matrix.pointee.kind != "void" else t.size
    offsets = np.asarray(offsets, np.int64)
    element = offsets // unit
    exact = (offsets % unit == 0) & (element >= 0) & (t.size == unit)
    src = np.where(exact, (matrix.ident << SRC_SHIFT) | (element & SRC_MASK), -1)
    taint = f"values read from global memory ({matrix.name})"
    if matrix.rule is not None and matrix.data is not None and t.is_arithmetic and exact.any():
        values, stated = matrix.data.values(matrix.name, matrix.rule, element, t)
        known = exact & stated
        data = np.where(known, values, 0).astype(t.dtype)
        known = known if offsets.ndim else bool(known)
        return Scalar(t, data if offsets.ndim else data[()], known, src if offsets.ndim else src[()], taint)
    data = np.zeros(offsets.shape, t.dtype) if offsets.ndim else t.dtype.type(0)
    return Scalar(t, data, False, src if offsets.ndim else src[()], taint)


class SharedStore:
    """The bytes of one block's shared window: which store wrote each byte, and what it wrote.

    Every scalar store becomes a record (address, width, type, value bits, known, source);
    each byte remembers the record that last wrote it, so type-punned or partial reads
    are detected instead of guessed.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.owner = np.full(size, -1, np.int64)
        self._types: list[CType] = []
        self._capacity = 1024
        self._count = 0
        self.start = np.zeros(self._capacity, np.int64)
        self.width = np.zeros(self._capacity, np.int64)
        self.type_id = np.zeros(self._capacity, np.int64)
        self.bits = np.zeros(self._capacity, np.int64)
        self.known = np.zeros(self._capacity, bool)
        self.src = np.zeros(self._capacity, np.int64)
        #: while positive (a loop's probe that may be undone holds ``owner`` and the count), no compaction
        self.held = 0

    def grow(self, size: int) -> None:
        """Make room up to byte ``size`` (an extern array placed once the block runs)."""
        if size > self.size:
            owner = np.full(size, -1, np.int64)
            owner[: self.size] = self.owner
            self.owner, self.size = owner, size

    def _type_id(self, t: CType) -> int:
        for i, known in enumerate(self._types):
            if known == t:
                return i
        self._types.append(t)
        return len(self._types) - 1

    def _grow(self, extra: int) -> None:
        need = self._count + extra
        if need <= self._capacity:
            return
        if not self.held:  # drop the records no byte holds any more: a long loop's stores stay bounded
            self._compact()
            need = self._count + extra
            if need <= self._capacity // 2:
                return
        while self._capacity < need:
            self._capacity *= 2
        for name in ("start", "width", "type_id", "bits", "known", "src"):
            old = getattr(self, name)
            new = np.zeros(self._capacity, old.dtype)
            new[: self._count] = old[: self._count]
            setattr(self, name, new)

    def _compact(self) -> None:
        """Keep only the records some byte still points at, renumbered in their order."""
        if not self._count:
            return
        live = np.unique(self.owner[self.owner >= 0])
        renumber = np.full(self._count, -1, np.int64)
        renumber[live] = np.arange(live.size)
        for name in ("start", "width", "type_id", "bits", "known", "src"):
            column = getattr(self, name)
            column[: live.size] = column[live]
        self.owner = np.where(self.owner >= 0, renumber[np.maximum(self.owner, 0)], -1)
        self._count = int(live.size)

    def store(self, addresses: np.ndarray, t: CType, data: np.ndarray, known: np.ndarray,
              src: np.ndarray) -> None:
        """Scalar stores of type ``t``, one per entry of ``addresses`` (later entries win)."""
        n = addresses.size
        if n == 0:
            return
        self._grow(n)
        ids = np.arange(self._count, self._count + n)
        self.start[ids] = addresses
        self.width[ids] = t.size
        self.type_id[ids] = self._type_id(t)
        self.bits[ids] = _to_bits(data, t)
        self.known[ids] = known
        self.src[ids] = src
        self._count += n
        self.owner[addresses[:, None] + np.arange(t.size)] = ids[:, None]

    def forget(self, start: int, size: int) -> None:
        """Bytes ``start`` to ``start + size`` hold something not known (a store at an address not
        known): one record over them all, so every load there reads as unknown and ``cell`` as partial."""
        if size <= 0:
            return
        self._grow(1)
        ident = self._count
        self.start[ident], self.width[ident], self.type_id[ident] = start, size, -1
        self.bits[ident], self.known[ident], self.src[ident] = 0, False, -1
        self._count += 1
        self.owner[start:start + size] = ident

    def load(self, addresses: np.ndarray, t: CType) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(data, known, src) of scalar loads of type ``t``; bytes never written, or written by
        a store of another width or position, read as unknown."""
        ids = self.owner[addresses]
        last = self.owner[addresses + t.size - 1]
        safe = np.maximum(ids, 0)
        exact = (ids >= 0) & (last == ids) & (self.start[safe] == addresses) & (self.width[safe] == t.size)
        data = _from_bits(np.where(exact, self.bits[safe], 0), t)
        known = exact & self.known[safe]
        src = np.where(exact, self.src[safe], -1)
        return data, known, src

    def cell(self, address: int, t: CType) -> tuple[str, int] | None:
        """What the cell of type ``t`` at ``address`` holds: ("src", code), ("value", bits),
        ("computed", 0), ("partial", 0), or None when never written."""
        ident = int(self.owner[address])
        if ident < 0 and not (self.owner[address: address + t.size] >= 0).any():
            return None
        exact = (ident >= 0 and int(self.start[ident]) == address and int(self.width[ident]) == t.size
                 and (self.owner[address: address + t.size] == ident).all())
        if not exact:
            return ("partial", 0)
        if self.src[ident] >= 0:
            return ("src", int(self.src[ident]))
        if self.known[ident]:
            return ("value", int(self.bits[ident]))
        return ("computed", 0)


def _int_type(size: int) -> np.dtype:
    return np.dtype({1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}[size])


def _to_bits(data: np.ndarray, t: CType) -> np.ndarray:
    typed = np.asarray(data).astype(t.dtype, copy=False)
    return typed.view(_int_type(t.dtype.itemsize)).astype(np.int64)


def _from_bits(bits: np.ndarray, t: CType) -> np.ndarray:
    """Values back from stored bits (bf16/fp8 are held as float32 bits: ``dtype`` may be
    wider than the type)."""
    return np.asarray(bits).astype(_int_type(t.dtype.itemsize)).view(t.dtype)


def value_text(bits: int, t: CType) -> str:
    """A known stored value as C would print it (``0``, ``1.5``)."""
    value = _from_bits(np.array([bits]), t)[0]
    if t.kind == "float":
        as_float = float(value)
        return repr(int(as_float)) if as_float.is_integer() else repr(as_float)
    return str(int(value))


def local_slots(array: LocalArray, offsets: np.ndarray | np.generic, t: CType, node: object) -> np.ndarray:
    """The scalar slot(s) an access of type ``t`` at byte ``offsets`` touches in ``array``."""
    unit = array.unit.size
    if t.scalar.size != unit:
        raise Failure(node, f"reading local array {array.name} of {array.unit} as {t}")
    if not isinstance(offsets, np.ndarray) or offsets.ndim == 0:
        offset = int(offsets)
        if offset % unit or offset < 0 or offset + t.size > array.type.size:
            raise Failure(node, f"index out of bounds of local array {array.name}")
        return np.int64(offset // unit)
    offsets = offsets.astype(np.int64, copy=False)
    if (offsets % unit).any() or (offsets < 0).any() or (offsets + t.size > array.type.size).any():
        raise Failure(node, f"index out of bounds of local array {array.name}")
    if (offsets == offsets[0]).all():
        return np.int64(offsets[0] // unit)
    return offsets // unit


def local_load(array: LocalArray, slot: np.ndarray, t: CType, mask: Mask) -> Scalar:
    """Scalar load from slot(s) ``slot`` (uniform: one row; per thread: a gather)."""
    if slot.ndim == 0:
        s = int(slot)
        data, known, src = array.data[s], array.known[s], array.src[s]
    else:
        lanes = np.arange(array.threads)
        data, known, src = array.data[slot, lanes], array.known[slot, lanes], array.src[slot, lanes]
    if t != array.unit:
        return convert(Scalar(array.unit, data.copy(), known.copy(), src.copy(), None), t)
    return Scalar(t, data.copy(), known.copy(), src.copy(), None if known.all() else "values not known")


def local_store(array: LocalArray, slot: np.ndarray, value: Scalar, mask: Mask) -> None:
    """Masked scalar store to slot(s) ``slot``."""
    value = convert(value, array.unit)
    if mask.full and np.ndim(slot) == 0:
        row = int(slot)
        array.data[row] = value.data
        array.known[row] = value.known
        array.src[row] = -1 if value.src is None else value.src
        return
    n = array.threads
    data = per_thread(value.data, n)
    known = flags_per_thread(value.known, n)
    src = src_per_thread(value.src, n)
    lanes = np.flatnonzero(mask.arr)
    rows = np.broadcast_to(slot, (n,))[lanes]
    array.data[rows, lanes] = data[lanes]
    array.known[rows, lanes] = known[lanes]
    array.src[rows, lanes] = src[lanes]


def layout_static(arrays: list[tuple[str, CType, int, int | None]],
                  start: int) -> tuple[list[SharedVariable], int]:
    """Place static __shared__ arrays as nvcc does for sm_90 (measured: docs/explain.md): from
    ``start`` (the window base), in declaration order, each at its natural or declared
    alignment. Returns the arrays and the end of the static part."""
    placed = []
    cursor = start
    for name, t, line, align in arrays:
        alignment = max(t.align, align or 1)
        cursor = -(-cursor // alignment) * alignment
        placed.append(SharedVariable(name, t, cursor, t.size, line))
        cursor += t.size
    return placed, cursor


def dynamic_base(static_end: int, align: int) -> int:
    """Where the extern __shared__ array starts: after the static arrays, 16-byte aligned
    (or more when declared so)."""
    alignment = max(DYNAMIC_SHARED_ALIGN, align)
    return -(-static_end // alignment) * alignment


def type_of_bits(t: CType) -> CType:
    """Integer type with the size of ``t`` (for reinterpreting bits)."""
    return {1: C.CHAR, 2: C.SHORT, 4: C.INT, 8: C.LONG}[t.size]
