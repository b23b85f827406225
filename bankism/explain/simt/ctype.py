"""C/CUDA types as the interpreter sees them: size, alignment, NumPy dtype and the rules
C uses to convert between them (integer promotion, usual arithmetic conversions)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class CType:
    """One C type. ``kind`` is "int", "float", "bool", "vec", "ptr", "array", "void",
    "struct" (structs, classes and unions), "group" (cooperative groups), "closure"
    (lambdas) or "functor" (cooperative groups' function objects).

    ``elem`` is the component type of a vector, the pointee of a pointer and the element
    type of an array; ``count`` is the number of vector components or array elements.
    """

    name: str
    kind: str
    size: int = 0
    align: int = 1
    dtype: np.dtype | None = None
    signed: bool = True
    rank: int = 0
    elem: CType | None = None
    count: int = 1
    #: Structs: (member name, type, byte offset) per data member, and the instantiation
    #: record (definition and template bindings) the interpreter keeps.
    fields: tuple = ()
    info: object = None

    def __str__(self) -> str:
        return self.name

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        return isinstance(other, CType) and self.name == other.name and self.kind == other.kind

    def __hash__(self) -> int:
        return hash((self.name, self.kind))

    @property
    def is_arithmetic(self) -> bool:
        return self.kind in ("int", "float", "bool")

    @property
    def is_integer(self) -> bool:
        return self.kind in ("int", "bool")

    @property
    def scalar(self) -> CType:
        """The scalar type at the bottom of arrays and vectors (float for float4[8])."""
        t = self
        while t.kind in ("array", "vec"):
            t = t.elem
        return t


def _int(name: str, dtype: type, rank: int) -> CType:
    d = np.dtype(dtype)
    return CType(name, "int", d.itemsize, d.itemsize, d, d.kind == "i", rank)


def _float(name: str, dtype: type, rank: int) -> CType:
    d = np.dtype(dtype)
    return CType(name, "float", d.itemsize, d.itemsize, d, True, rank)


VOID = CType("void", "void")
BOOL = CType("bool", "bool", 1, 1, np.dtype(np.bool_), False, 0)
CHAR = _int("char", np.int8, 1)
SCHAR = _int("signed char", np.int8, 1)
UCHAR = _int("unsigned char", np.uint8, 1)
SHORT = _int("short", np.int16, 2)
USHORT = _int("unsigned short", np.uint16, 2)
INT = _int("int", np.int32, 3)
UINT = _int("unsigned int", np.uint32, 3)
LONG = _int("long", np.int64, 4)
ULONG = _int("unsigned long", np.uint64, 4)
LLONG = _int("long long", np.int64, 5)
ULLONG = _int("unsigned long long", np.uint64, 5)
HALF = _float("__half", np.float16, 1)
FLOAT = _float("float", np.float32, 2)
DOUBLE = _float("double", np.float64, 3)
#: bfloat16 and the fp8 types: values held as float32 (NumPy has no such dtypes), rounded to
#: the type's precision on every conversion (``ROUNDING``); ``size`` is the type's own.
BF16 = CType("__nv_bfloat16", "float", 2, 2, np.dtype(np.float32), True, 1)
FP8_E4M3 = CType("__nv_fp8_e4m3", "float", 1, 1, np.dtype(np.float32), True, 0)
FP8_E5M2 = CType("__nv_fp8_e5m2", "float", 1, 1, np.dtype(np.float32), True, 0)


def _round_bf16(data: np.ndarray) -> np.ndarray:
    """Round float32 values to bfloat16 (round to nearest even), kept as float32."""
    values = np.asarray(data, np.float32)
    bits = values.view(np.uint32).astype(np.uint64)
    rounded = (((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16) & 0xFFFFFFFF
    out = rounded.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(values), values, out)


def _fp8_rounder(mantissa_bits: int, min_exponent: int, largest: float):  # noqa: ANN202
    """Rounding to an fp8 format (nearest even, subnormals, saturation to the largest finite
    value as the __nv_fp8 constructors do)."""

    def round_fp8(data: np.ndarray) -> np.ndarray:
        values = np.asarray(data, np.float64)
        magnitude = np.abs(values)
        exponent = np.maximum(np.floor(np.log2(np.where(magnitude > 0, magnitude, 1.0))), min_exponent)
        quantum = np.exp2(exponent - mantissa_bits)
        rounded = np.minimum(np.round(magnitude / quantum) * quantum, largest)
        return np.where(np.isnan(values), values, np.copysign(rounded, values)).astype(np.float32)

    return round_fp8


ROUNDING = {"__nv_bfloat16": _round_bf16, "__nv_fp8_e4m3": _fp8_rounder(3, -6, 448.0),
            "__nv_fp8_e5m2": _fp8_rounder(2, -14, 57344.0)}

SCALARS: dict[str, CType] = {
    "void": VOID, "bool": BOOL, "_Bool": BOOL,
    "char": CHAR, "signed char": SCHAR, "unsigned char": UCHAR,
    "short": SHORT, "short int": SHORT, "signed short": SHORT, "unsigned short": USHORT,
    "unsigned short int": USHORT,
    "int": INT, "signed": INT, "signed int": INT, "unsigned": UINT, "unsigned int": UINT,
    "long": LONG, "long int": LONG, "signed long": LONG, "unsigned long": ULONG,
    "unsigned long int": ULONG, "long unsigned int": ULONG,
    "long long": LLONG, "long long int": LLONG, "signed long long": LLONG,
    "unsigned long long": ULLONG, "unsigned long long int": ULLONG,
    "size_t": ULONG, "uint": UINT, "ushort": USHORT, "ulong": ULONG, "uchar": UCHAR,
    "ptrdiff_t": LONG, "intptr_t": LONG, "uintptr_t": ULONG, "clock_t": LONG,
    "int8_t": SCHAR, "uint8_t": UCHAR, "int16_t": SHORT, "uint16_t": USHORT,
    "int32_t": INT, "uint32_t": UINT, "int64_t": LONG, "uint64_t": ULONG,
    "half": HALF, "__half": HALF, "cudaTextureObject_t": ULLONG, "cudaSurfaceObject_t": ULLONG,
    "__nv_bfloat16": BF16, "nv_bfloat16": BF16, "__nv_fp8_e4m3": FP8_E4M3, "__nv_fp8_e5m2": FP8_E5M2,
    "float": FLOAT, "double": DOUBLE,
}

#: CUDA vector types: base name -> component type; alignments follow vector_types.h.
_VECTOR_BASES = {
    "char": SCHAR, "uchar": UCHAR, "short": SHORT, "ushort": USHORT, "int": INT, "uint": UINT,
    "long": LONG, "ulong": ULONG, "longlong": LLONG, "ulonglong": ULLONG,
    "float": FLOAT, "double": DOUBLE,
}


def _vector_align(component: CType, count: int) -> int:
    """Alignment of a CUDA vector type (vector_types.h): 1- and 3-vectors align like their
    component, 2-vectors to twice it, 4-vectors to four times it, at most 16 bytes."""
    if count in (1, 3):
        return component.align
    return min(16, component.size * count)


def _vector(name: str, component: CType, count: int) -> CType:
    align = _vector_align(component, count)
    size = -(-component.size * count // align) * align
    return CType(name, "vec", size, align, None, component.signed, 0, component, count)


VECTORS: dict[str, CType] = {}
for _base, _component in _VECTOR_BASES.items():
    for _count in (1, 2, 3, 4):
        _name = f"{_base}{_count}"
        VECTORS[_name] = _vector(_name, _component, _count)
VECTORS["half2"] = CType("__half2", "vec", 4, 4, None, True, 0, HALF, 2)
VECTORS["__half2"] = VECTORS["half2"]
VECTORS["__nv_bfloat162"] = CType("__nv_bfloat162", "vec", 4, 4, None, True, 0, BF16, 2)
VECTORS["nv_bfloat162"] = VECTORS["__nv_bfloat162"]
for _fp8 in (FP8_E4M3, FP8_E5M2):
    for _count in (2, 4):
        _name = _fp8.name.replace("fp8_", f"fp8x{_count}_")
        VECTORS[_name] = CType(_name, "vec", _count, _count, None, True, 0, _fp8, _count)
VECTORS["dim3"] = VECTORS["uint3"]

#: Cooperative groups' types (the namespace is dropped): what each group is.
GROUP_TYPES = {
    "thread_block": "block",
    "thread_group": "any",
    "thread_block_tile": "tile",
    "coalesced_group": "coalesced",
    "grid_group": "grid",
    "cluster_group": "cluster",
    "multi_grid_group": "grid",
}
GROUP = CType("cooperative group", "group")
CLOSURE = CType("lambda", "closure")
FUNCTOR = CType("function object", "functor")
FUNCTION = CType("function", "functor")

UNSUPPORTED_TYPES = ("__nv_bfloat16_raw", "__nv_fp8_storage_t", "__nv_fp8x2_storage_t")


def lookup(name: str) -> CType | None:
    """The scalar or vector type spelled ``name`` (words separated by single spaces), or None."""
    return SCALARS.get(name) or VECTORS.get(name)


def pointer_to(pointee: CType) -> CType:
    """The type 'pointer to ``pointee``' (8 bytes); built once per pointee (a hot path of the
    interpreter: every array access decays an array to a pointer)."""
    cached = _POINTERS.get(id(pointee))
    if cached is not None and cached[0] is pointee:
        return cached[1]
    t = CType(f"{pointee.name}*", "ptr", 8, 8, np.dtype(np.int64), False, 0, pointee)
    if len(_POINTERS) > 4096:
        _POINTERS.clear()
    _POINTERS[id(pointee)] = (pointee, t)  # the pointee is kept, so its id is not reused
    return t


#: id(pointee) -> (pointee, pointer type); id(a), id(b) -> (a, b, common type).
_POINTERS: dict[int, tuple[CType, CType]] = {}
_COMMON: dict[tuple[int, int], tuple[CType, CType, CType]] = {}


def array_of(element: CType, count: int) -> CType:
    """The type '``element``[``count``]'."""
    return CType(
        f"{element.name}[{count}]",
        "array",
        element.size * count,
        element.align,
        None,
        False,
        0,
        element,
        count,
    )


def array_shape(t: CType) -> tuple[list[int], CType]:
    """The dimensions of a (possibly nested) array type and its non-array element type."""
    dims = []
    while t.kind == "array":
        dims.append(t.count)
        t = t.elem
    return dims, t


def promote(t: CType) -> CType:
    """C integer promotion: bool, char and short become int."""
    if t.kind == "bool" or (t.kind == "int" and t.rank < INT.rank):
        return INT
    return t


def common_type(a: CType, b: CType) -> CType:
    """The usual arithmetic conversions of C for a binary operator on ``a`` and ``b``
    (memoised per pair of type objects: the interpreter asks for every binary operator)."""
    cached = _COMMON.get((id(a), id(b)))
    if cached is not None and cached[0] is a and cached[1] is b:
        return cached[2]
    t = _common_type(a, b)
    if len(_COMMON) > 4096:
        _COMMON.clear()
    _COMMON[(id(a), id(b))] = (a, b, t)
    return t


def _common_type(a: CType, b: CType) -> CType:
    if a.kind == "float" or b.kind == "float":
        if a.kind == "float" and b.kind == "float":
            return a if a.rank >= b.rank else b
        floating = a if a.kind == "float" else b
        return FLOAT if floating.size < FLOAT.size else floating
    a, b = promote(a), promote(b)
    if a == b:
        return a
    if a.signed == b.signed:
        return a if a.rank >= b.rank else b
    unsigned, signed = (a, b) if not a.signed else (b, a)
    if unsigned.rank >= signed.rank:
        return unsigned
    if signed.size > unsigned.size:
        return signed
    return _UNSIGNED_OF[signed.name]


_UNSIGNED_OF = {"int": UINT, "long": ULONG, "long long": ULLONG}


def integer_literal_type(digits: int, suffix: str, decimal: bool) -> CType:
    """The type C gives an integer literal: the first of int, long, ... that holds it."""
    suffix = suffix.lower()
    unsigned = "u" in suffix
    longs = suffix.count("l")
    candidates = [INT, LONG, LLONG] if longs == 0 else [LONG, LLONG] if longs == 1 else [LLONG]
    for t in candidates:
        unsigned_candidate = _UNSIGNED_OF[t.name]
        if not unsigned and digits <= np.iinfo(t.dtype).max:
            return t
        if (unsigned or not decimal) and digits <= np.iinfo(unsigned_candidate.dtype).max:
            return unsigned_candidate
    return ULLONG


def argument_fit(param: CType, arg: CType) -> int:
    """How well an argument of type ``arg`` fits a parameter of type ``param``: 8 the same type, 4 the
    same kind; a reference to an array (``float (&c)[4]``) taking an array, which reaches here decayed
    to a pointer, by its element type (6 the same, 3 the same kind)."""
    if param == arg:
        return 8
    if param.kind == "array" and arg.kind in ("ptr", "array") and None not in (param.elem, arg.elem):
        return 6 if param.elem == arg.elem else 3 if param.elem.kind == arg.elem.kind else 0
    return 4 if param.kind == arg.kind else 0
