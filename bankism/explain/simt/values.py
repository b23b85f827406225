"""Values of the SIMT interpreter: one entry per thread of the block, with C semantics.

A ``Scalar`` holds a NumPy array with one value per thread (or one NumPy scalar when all
threads agree, which keeps uniform loop counters cheap). Values read from global memory
are not known: they carry ``known=False`` and, while they are only copied, their
provenance ``src`` (which matrix element they came from). ``Pointer`` is a region plus a
byte offset per thread; ``Vector`` is a CUDA vector type as a list of scalars.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bankism.explain.simt import ctype as C
from bankism.explain.simt.ctype import CType

Data = np.ndarray | np.generic
Flags = np.ndarray | bool

#: Provenance codes: matrix id in the high bits, element index (in scalar units) below.
SRC_SHIFT = 44
SRC_MASK = (1 << SRC_SHIFT) - 1


class Failure(Exception):
    """An error tied to a syntax node; the interpreter adds file and line and re-raises it as
    a BankismError."""

    def __init__(self, node: object, message: str) -> None:
        super().__init__(message)
        self.node = node
        self.message = message


class UnknownAddress(Failure):
    """A shared-memory access explain cannot count (its addresses, or whether it runs, are not known):
    listed at a site of its own (``Recorder.record_unknown``); a caller that can go on without its addresses
    catches it (the value read is unknown, a store or atomic leaves the array unknown), any other refuses
    with its message. ``why`` is what the listed site says."""

    def __init__(self, node: object, why: str) -> None:
        super().__init__(node, f"{why}, which bankism does not know")
        self.why = why


@dataclass(slots=True)
class Mask:
    """The threads that execute a statement: ``arr`` (bool per thread) plus cached facts."""

    arr: np.ndarray
    full: bool
    none: bool

    @staticmethod
    def of(arr: np.ndarray) -> Mask:
        full = bool(arr.all())
        if full and arr.size:  # a non-empty full mask has a running thread: skip the second pass
            return Mask(arr, True, False)
        return Mask(arr, full, not bool(arr.any()))

    def __and__(self, other: Data) -> Mask:
        if isinstance(other, np.ndarray):
            return Mask.of(self.arr & other)
        return self if bool(other) else Mask(np.zeros_like(self.arr), False, True)

    def without(self, other: Mask | np.ndarray) -> Mask:
        arr = other.arr if isinstance(other, Mask) else other
        return Mask.of(self.arr & ~arr)

    def __or__(self, other: Mask) -> Mask:
        if other.none:
            return self
        if self.none:
            return other
        return Mask.of(self.arr | other.arr)


class Scalar:
    """An arithmetic value per thread: data, whether it is known, provenance and why unknown."""

    __slots__ = ("type", "data", "known", "src", "taint")

    def __init__(self, type: CType, data: Data, known: Flags = True, src: Data | None = None,
                 taint: str | None = None) -> None:
        self.type = type
        self.data = data
        self.known = known
        self.src = src
        self.taint = taint


class Pointer:
    """A pointer: the memory region it points into and a byte offset per thread. ``known``
    says where the offset is known (an offset computed from unknown values is allowed into
    global memory, whose content bankism does not know anyway; ``taint`` says why)."""

    __slots__ = ("type", "region", "offset", "known", "taint")

    def __init__(self, type: CType, region: object, offset: Data, known: Flags = True,
                 taint: str | None = None) -> None:
        self.type = type
        self.region = region
        self.offset = offset
        self.known = known
        self.taint = taint


class Vector:
    """A CUDA vector value (float4, int2, ...): one Scalar per component."""

    __slots__ = ("type", "comps")

    def __init__(self, type: CType, comps: list[Scalar]) -> None:
        self.type = type
        self.comps = comps


class Struct:
    """A struct/class/union value: one value per data member (arrays as per-thread local
    arrays)."""

    __slots__ = ("type", "fields")

    def __init__(self, type: CType, fields: dict[str, object]) -> None:
        self.type = type
        self.fields = fields


class Group:
    """A cooperative group: the block, a tile of ``size`` threads, the coalesced threads of
    a warp (``members``: the lanes active when it was made), the grid or the cluster."""

    __slots__ = ("type", "kind", "size", "members", "parent_size")

    def __init__(self, type: CType, kind: str, size: int, members: np.ndarray | None = None,
                 parent_size: int = 0) -> None:
        self.type = type
        self.kind = kind
        self.size = size
        self.members = members
        self.parent_size = parent_size


class Closure:
    """A device lambda and the scopes it sees."""

    __slots__ = ("type", "function", "scopes", "this")

    def __init__(self, type: CType, function: object, scopes: list[dict], this: object = None) -> None:
        self.type = type
        self.function = function
        self.scopes = scopes
        self.this = this


class Functor:
    """A function object of cooperative groups (``cg::plus<float>()``)."""

    __slots__ = ("type", "op")

    def __init__(self, type: CType, op: str) -> None:
        self.type = type
        self.op = op


class FunctionName:
    """A function named as a value (``thread_reduce(fmaxf, ...)``, a template's ``F f``): a call
    through it is a call of that function."""

    __slots__ = ("type", "name")

    def __init__(self, type: CType, name: str) -> None:
        self.type = type
        self.name = name


Value = Scalar | Pointer | Vector | Struct | Group | Closure | Functor | FunctionName


def constant(t: CType, value: int | float) -> Scalar:
    """A uniform known value of type ``t`` (integers wrap to its width, as in C)."""
    if t.kind == "int" and isinstance(value, int):
        bits = t.size * 8
        value &= (1 << bits) - 1
        if t.signed and value >= 1 << (bits - 1):
            value -= 1 << bits
    return Scalar(t, t.dtype.type(value))


def unknown(t: CType, taint: str, size: int | None = None) -> Scalar:
    """A value bankism does not know (``taint`` says why), per thread when ``size`` is given."""
    data = t.dtype.type(0) if size is None else np.zeros(size, t.dtype)
    return Scalar(t, data, False, None, taint)


def settled(flags: Flags) -> Flags:
    """``flags``, or True where every thread's value is known (a pointer whose offset is known compares
    equal to one made without flags)."""
    return True if flags is True or bool(np.all(flags)) else flags


def require_known_offset(pointer: Pointer, mask: Mask, node: object) -> None:
    """Refuse ``pointer`` where its offset is not known in a thread of ``mask`` (its target is needed)."""
    if not all_known(pointer.known, mask):
        raise Failure(node, f"the address depends on {pointer.taint}, which bankism does not know")


def all_known(flags: Flags, mask: Mask) -> bool:
    """Whether the value is known in every thread of ``mask``."""
    if isinstance(flags, bool):
        return flags
    if isinstance(flags, np.bool_):
        return bool(flags)
    return bool(flags[mask.arr].all())


def and_flags(a: Flags, b: Flags) -> Flags:
    if a is True:
        return b
    if b is True:
        return a
    if a is False or b is False:
        return False
    return np.logical_and(a, b)


def convert(value: Scalar, t: CType) -> Scalar:
    """``value`` converted to arithmetic type ``t`` the way C converts (truncation toward
    zero from floating types, wrap-around between integer types); provenance is kept."""
    if value.type is t or value.type == t:
        return value
    data = value.data
    if t.kind == "bool":
        out = data != 0
    elif t.kind == "int" and value.type.kind == "float":
        out = _float_to_int(data, t)
    elif t.kind == "int" and value.type.kind in ("int", "bool"):
        out = _int_to_int(data, t)
    else:
        out = data.astype(t.dtype) if isinstance(data, np.ndarray) else t.dtype.type(data)
        rounding = C.ROUNDING.get(t.name) if t.kind == "float" else None
        if rounding is not None:
            rounded = rounding(out)
            out = rounded if isinstance(data, np.ndarray) else t.dtype.type(rounded)
    return Scalar(t, out, value.known, value.src, value.taint)


def _int_to_int(data: Data, t: CType) -> Data:
    if isinstance(data, np.ndarray):
        return data.astype(t.dtype)
    return data.astype(t.dtype) if isinstance(data, np.generic) else np.array(data).astype(t.dtype)[()]


def _float_to_int(data: Data, t: CType) -> Data:
    truncated = np.trunc(np.nan_to_num(np.asarray(data, np.float64), nan=0.0, posinf=0.0, neginf=0.0))
    info = np.iinfo(t.dtype)
    clipped = np.clip(truncated, info.min, info.max).astype(t.dtype)
    return clipped if isinstance(data, np.ndarray) else clipped[()]


_ARITH = {
    "+": np.add, "-": np.subtract, "*": np.multiply, "&": np.bitwise_and, "|": np.bitwise_or,
    "^": np.bitwise_xor,
}
_BITWISE = frozenset(("&", "|", "^"))
_INT_RANK = C.INT.rank
_COMPARE = {
    "==": np.equal, "!=": np.not_equal, "<": np.less, ">": np.greater, "<=": np.less_equal,
    ">=": np.greater_equal,
}


def binary(op: str, a: Scalar, b: Scalar, mask: Mask, node: object) -> Scalar:
    """``a op b`` with C's conversions, integer division toward zero and wrap-around."""
    ta = a.type
    if ta is b.type and (ta.kind == "float" or (ta.kind == "int" and ta.rank >= _INT_RANK)):
        # Fast path (most operators of a kernel): equal types that need no conversion, so
        # the common type is that type (what the general path below computes, without it).
        fn = _ARITH.get(op)
        if fn is not None and (ta.kind == "int" or op not in _BITWISE):
            return Scalar(ta, _typed(fn(a.data, b.data), ta), and_flags(a.known, b.known), None,
                          a.taint or b.taint)
        fn = _COMPARE.get(op)
        if fn is not None:
            return Scalar(C.BOOL, fn(a.data, b.data), and_flags(a.known, b.known), None, a.taint or b.taint)
    known = and_flags(a.known, b.known)
    taint = a.taint or b.taint
    if op in ("<<", ">>"):
        if not (a.type.is_integer and b.type.is_integer):
            raise Failure(node, f"operator {op} needs integer operands, not {a.type} and {b.type}")
        t = C.promote(a.type)
        x, y = convert(a, t).data, convert(b, t).data
        out = np.left_shift(x, y) if op == "<<" else np.right_shift(x, y)
        return Scalar(t, _typed(out, t), known, None, taint)
    t = C.common_type(a.type, b.type)
    x, y = convert(a, t).data, convert(b, t).data
    if op in _COMPARE:
        return Scalar(C.BOOL, _COMPARE[op](x, y), known, None, taint)
    if op in _ARITH:
        if op in ("&", "|", "^") and t.kind == "float":
            raise Failure(node, f"operator {op} needs integer operands, not {t}")
        return Scalar(t, _typed(_ARITH[op](x, y), t), known, None, taint)
    if op in ("/", "%"):
        if t.kind == "float":
            if op == "%":
                raise Failure(node, "operator % needs integer operands")
            return Scalar(t, _typed(np.divide(x, y), t), known, None, taint)
        return Scalar(t, _int_divide(op, x, y, t, a, b, mask, node), known, None, taint)
    raise Failure(node, f"operator {op} is not supported")


def _typed(data: Data, t: CType) -> Data:
    """NumPy may widen (bool & bool, uint8 + uint8 scalars); bring the result back to ``t``."""
    if getattr(data, "dtype", None) == t.dtype:
        return data
    return np.asarray(data).astype(t.dtype) if isinstance(data, np.ndarray) else np.asarray(data).astype(
        t.dtype)[()]


def _int_divide(op: str, x: Data, y: Data, t: CType, a: Scalar, b: Scalar, mask: Mask, node: object) -> Data:
    """C integer / and %: truncation toward zero; division by zero in a thread that runs it
    (with known operands) is an error, never a silent value."""
    zero = np.asarray(y) == 0
    if zero.any():
        active = mask.arr if zero.ndim else mask.arr.any()
        known = np.asarray(and_flags(a.known, b.known))
        hit = zero & active & known
        if np.any(hit):
            raise Failure(node, "integer division by zero")
        y = np.where(zero, t.dtype.type(1), y)
    if t.signed:
        quotient = np.floor_divide(x, y)
        remainder = np.subtract(x, np.multiply(quotient, y))
        fix = (remainder != 0) & ((np.asarray(x) < 0) != (np.asarray(y) < 0))
        quotient = np.add(quotient, fix.astype(t.dtype))
    else:
        quotient = np.floor_divide(x, y)
    if op == "/":
        return _typed(quotient, t)
    return _typed(np.subtract(x, np.multiply(quotient, y)), t)


def negate(a: Scalar) -> Scalar:
    t = C.promote(a.type)
    return Scalar(t, _typed(np.negative(convert(a, t).data), t), a.known, None, a.taint)


def bit_not(a: Scalar, node: object) -> Scalar:
    if not a.type.is_integer:
        raise Failure(node, f"operator ~ needs an integer operand, not {a.type}")
    t = C.promote(a.type)
    return Scalar(t, np.invert(convert(a, t).data), a.known, None, a.taint)


def logical_not(a: Scalar) -> Scalar:
    return Scalar(C.BOOL, np.logical_not(a.data), a.known, None, a.taint)


def select(mask: Mask, new: Value, old: Value | None, node: object) -> Value:
    """``new`` in the threads of ``mask`` and ``old`` elsewhere (a masked assignment)."""
    if mask.full or old is None:
        return new
    if isinstance(new, Scalar) and isinstance(old, Scalar):
        old = convert(old, new.type)
        return Scalar(
            new.type, np.where(mask.arr, new.data, old.data), _select_flags(mask, new.known, old.known),
            _select_src(mask, new.src, old.src), new.taint or old.taint,
        )
    if isinstance(new, Vector) and isinstance(old, Vector):
        return Vector(new.type, [select(mask, n, o, node) for n, o in zip(new.comps, old.comps, strict=True)])
    if isinstance(new, Pointer) and isinstance(old, Pointer):
        if new.region is not old.region:
            raise Failure(node, "a pointer that points into different arrays in different threads")
        known = True if new.known is True and old.known is True else np.where(mask.arr, new.known, old.known)
        return Pointer(new.type, new.region, np.where(mask.arr, new.offset, old.offset), known,
                       new.taint or old.taint)
    if isinstance(new, Struct) and isinstance(old, Struct) and new.type == old.type:
        fields = {}
        for name, value in new.fields.items():
            previous = old.fields.get(name)
            fields[name] = value if previous is None or not isinstance(value, Value) else select(
                mask, value, previous, node)
        return Struct(new.type, fields)
    if type(new) is type(old) and isinstance(new, Group | Closure | Functor):
        return new
    if type(new) is type(old) and getattr(getattr(new, "type", None), "kind", None) == "sync":
        return new  # a synchronisation object (a barrier's arrival token): no data to select
    raise Failure(node, "a variable that holds values of different kinds in different threads")


def forget(value: Value, lanes: np.ndarray, why: str) -> Value:
    """``value`` with the lanes of ``lanes`` no longer known (a store whose execution in those
    lanes depends on ``why``)."""
    if isinstance(value, Scalar):
        known = flags_per_thread(value.known, lanes.size) & ~lanes
        data = per_thread(value.data, lanes.size)
        return Scalar(value.type, data, known, value.src, value.taint or why)
    if isinstance(value, Vector):
        return Vector(value.type, [forget(c, lanes, why) for c in value.comps])
    if isinstance(value, Pointer):
        known = flags_per_thread(value.known, lanes.size) & ~lanes
        return Pointer(value.type, value.region, per_thread(np.asarray(value.offset, np.int64), lanes.size),
                       known, value.taint or why)
    if isinstance(value, Struct):
        return Struct(value.type, {k: forget(v, lanes, why) if isinstance(v, Value) else v
                                   for k, v in value.fields.items()})
    return value


def _select_flags(mask: Mask, new: Flags, old: Flags) -> Flags:
    if new is True and old is True:
        return True
    return np.where(mask.arr, new, old)


def _select_src(mask: Mask, new: Data | None, old: Data | None) -> Data | None:
    if new is None and old is None:
        return None
    return np.where(mask.arr, -1 if new is None else new, -1 if old is None else old)


def per_thread(data: Data, size: int) -> np.ndarray:
    """``data`` as an array with one entry per thread."""
    if isinstance(data, np.ndarray) and data.shape == (size,):
        return data
    return np.broadcast_to(np.asarray(data), (size,)).copy()


def flags_per_thread(flags: Flags, size: int) -> np.ndarray:
    return np.full(size, bool(flags)) if isinstance(flags, bool | np.bool_) else flags


def src_per_thread(src: Data | None, size: int) -> np.ndarray:
    if src is None:
        return np.full(size, -1, np.int64)
    return per_thread(np.asarray(src, np.int64), size)


def gather_lanes(value: Value, index: np.ndarray) -> Value:
    """Thread ``i`` of the result holds thread ``index[i]``'s value (shuffles; a struct member by
    member, as CUB shuffles a struct word by word)."""
    if isinstance(value, Vector):
        return Vector(value.type, [gather_lanes(c, index) for c in value.comps])
    if isinstance(value, Struct):
        if not all(isinstance(v, Scalar | Vector | Pointer | Struct) for v in value.fields.values()):
            raise Failure(None, f"unsupported construct: shuffling a {value.type} (it has an array member)")
        return Struct(value.type, {name: gather_lanes(v, index) for name, v in value.fields.items()})
    if isinstance(value, Pointer):
        known = (value.known if isinstance(value.known, bool)
                 else flags_per_thread(value.known, index.size)[index])
        return Pointer(
            value.type, value.region, per_thread(value.offset, index.size)[index], known, value.taint
        )
    size = index.size
    src = None if value.src is None else src_per_thread(value.src, size)[index]
    known = value.known if isinstance(value.known, bool) else flags_per_thread(value.known, size)[index]
    return Scalar(value.type, per_thread(value.data, size)[index], known, src, value.taint)
