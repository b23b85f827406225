"""A per-thread local array read or written as another type (``reinterpret_cast<float4*>(h)``
on a ``half h[8]``, ``half (&r)[4] = reinterpret_cast<half(&)[4]>(u32)``, a ``half*`` into a
``float`` array): the bytes are modelled exactly, little-endian as on the GPU.

A ``LocalArray`` keeps one row per storage unit (``unit``, at first its element type). A write
narrower than the unit first splits every unit into pieces of the written type (bit-exact),
so whether a byte is known is always tracked per unit and a narrower write never makes its
neighbours unknown. Reads and writes wider than the unit join or split the units' bits.
Values are encoded as the GPU holds them: IEEE half/float/double, bfloat16 as the top half of
a float, fp8 e4m3/e5m2 by their codes, integers in two's complement. Provenance (which global
element a value came from) survives only a read of the very type and place that was written.
"""

from __future__ import annotations

import numpy as np

from bankism.explain.simt import ctype as C
from bankism.explain.simt.ctype import CType
from bankism.explain.simt.memory import LocalArray
from bankism.explain.simt.values import (
    Data,
    Failure,
    Mask,
    Scalar,
    flags_per_thread,
    per_thread,
    src_per_thread,
)

_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_SINT = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}


def _fp8_table(exponent_bits: int, mantissa_bits: int, bias: int, ieee: bool) -> np.ndarray:
    """The float32 value of each of the 256 codes of an fp8 format (NaN where the code is one)."""
    values = np.zeros(256, np.float32)
    top = (1 << exponent_bits) - 1
    for code in range(256):
        sign = -1.0 if code & 0x80 else 1.0
        exponent = (code >> mantissa_bits) & top
        fraction = code & ((1 << mantissa_bits) - 1)
        if ieee and exponent == top:
            value = float("inf") if fraction == 0 else float("nan")
        elif not ieee and exponent == top and fraction == (1 << mantissa_bits) - 1:
            value = float("nan")
        elif exponent == 0:
            value = fraction / (1 << mantissa_bits) * 2.0 ** (1 - bias)
        else:
            value = (1 + fraction / (1 << mantissa_bits)) * 2.0 ** (exponent - bias)
        values[code] = sign * value
    return values


#: fp8 codes -> values (e4m3 has no infinity; e5m2 is IEEE-like).
_FP8 = {"__nv_fp8_e4m3": _fp8_table(4, 3, 7, False), "__nv_fp8_e5m2": _fp8_table(5, 2, 15, True)}
_FP8_NAN = {"__nv_fp8_e4m3": 0x7F, "__nv_fp8_e5m2": 0x7F}


def to_bits(data: np.ndarray | np.generic, t: CType) -> np.ndarray:
    """The bits of values of scalar type ``t`` as the GPU stores them, as uint64."""
    values = np.asarray(data)
    if t.kind in ("int", "bool"):
        typed = values.astype(_SINT[t.size] if t.signed else _UINT[t.size])
        return typed.view(_UINT[t.size]).astype(np.uint64)
    if t.name == "__nv_bfloat16":
        return (values.astype(np.float32).view(np.uint32) >> np.uint32(16)).astype(np.uint64)
    if t.name in _FP8:
        return _fp8_codes(values.astype(np.float32), t.name).astype(np.uint64)
    return values.astype(t.dtype).view(_UINT[t.size]).astype(np.uint64)


def from_bits(bits: np.ndarray, t: CType) -> np.ndarray:
    """Values of scalar type ``t`` whose stored bits are ``bits`` (uint64, low ``t.size`` bytes)."""
    raw = (bits & np.uint64((1 << (8 * t.size)) - 1)).astype(_UINT[t.size])
    if t.kind == "bool":
        return raw != 0
    if t.kind == "int":
        return raw.view(_SINT[t.size]).astype(t.dtype) if t.signed else raw.astype(t.dtype)
    if t.name == "__nv_bfloat16":
        return (raw.astype(np.uint32) << np.uint32(16)).view(np.float32)
    if t.name in _FP8:
        return _FP8[t.name][raw]
    return raw.view(t.dtype)


def _fp8_codes(values: np.ndarray, name: str) -> np.ndarray:
    table = _FP8[name]
    finite = ~np.isnan(table)
    keys = table[finite].view(np.uint32)
    codes = np.flatnonzero(finite)
    order = np.argsort(keys)
    wanted = values.view(np.uint32)
    at = np.clip(np.searchsorted(keys[order], wanted), 0, len(order) - 1)
    found = keys[order][at] == wanted
    out = np.where(found, codes[order][at], _FP8_NAN[name])
    if not (found | np.isnan(values)).all():
        raise ValueError(f"a value that is not a {name}")
    return out.astype(np.uint8)


def reinterpreted(array_unit: CType, t: CType) -> bool:
    """Whether reading or writing scalar type ``t`` in storage of ``array_unit`` needs the bytes
    (not just C's conversion between two integer types of one size)."""
    if t is array_unit or t == array_unit:
        return False
    return not (t.kind == "int" and array_unit.kind == "int" and t.size == array_unit.size)


def _offsets(array: LocalArray, offsets: Data, size: int, mask: Mask, node: object) -> np.ndarray:
    """Per-thread byte offsets, checked in the running threads (others read slot 0)."""
    n = array.threads
    offs = per_thread(np.asarray(offsets, np.int64), n).astype(np.int64)
    offs = np.where(mask.arr, offs, 0)
    if ((offs < 0) | (offs + size > array.type.size)).any():
        raise Failure(node, f"index out of bounds of local array {array.name}")
    if (offs % min(size, array.unit.size)).any():
        raise Failure(node, f"unsupported construct: a misaligned {size}-byte access into local array "
                            f"{array.name}")
    return offs


def refine(array: LocalArray, unit: CType) -> None:
    """Split every storage unit of ``array`` into pieces of the narrower type ``unit``."""
    old, k = array.unit, array.unit.size // unit.size
    rows, n = array.data.shape
    bits = to_bits(array.data, old)
    data = np.zeros((rows * k, n), unit.dtype)
    for i in range(k):
        data[i::k] = from_bits(bits >> np.uint64(8 * unit.size * i), unit)
    array.data = data
    array.known = np.repeat(array.known, k, axis=0)
    array.src = np.full((rows * k, n), -1, np.int64)
    array.unit = unit


def read_as(array: LocalArray, offsets: Data, t: CType, mask: Mask, node: object) -> Scalar:
    """A read of scalar type ``t`` at byte ``offsets`` of ``array``, from its bytes."""
    unit = array.unit
    u, s = unit.size, t.size
    offs = _offsets(array, offsets, s, mask, node)
    lanes = np.arange(array.threads)
    first = offs // u
    if s < u:
        bits = to_bits(array.data[first, lanes], unit) >> (8 * (offs % u)).astype(np.uint64)
        known = array.known[first, lanes]
    else:
        bits = np.zeros(array.threads, np.uint64)
        known = np.ones(array.threads, bool)
        for i in range(s // u):
            part = to_bits(array.data[first + i, lanes], unit)
            bits |= part << np.uint64(8 * u * i)
            known &= array.known[first + i, lanes]
    src = array.src[first, lanes] if s == u and unit == t else np.full(array.threads, -1, np.int64)
    return Scalar(t, from_bits(bits, t), known, src, None if known.all() else "values not known")


def write_as(array: LocalArray, offsets: Data, value: Scalar, mask: Mask, node: object) -> None:
    """A write of ``value`` (a scalar of its own type) at byte ``offsets`` of ``array``."""
    t = value.type
    if t.size < array.unit.size:
        refine(array, C.UCHAR if t.kind == "bool" else t)
    unit = array.unit
    u, s = unit.size, t.size
    offs = _offsets(array, offsets, s, mask, node)
    n = array.threads
    try:
        bits = to_bits(per_thread(value.data, n), t)
    except ValueError as error:
        raise Failure(node, str(error)) from None
    known = flags_per_thread(value.known, n)
    same = s == u and unit == t
    src = src_per_thread(value.src, n) if same else np.full(n, -1, np.int64)
    lanes = np.flatnonzero(mask.arr)
    first = offs[lanes] // u
    for i in range(s // u):
        part = from_bits(bits[lanes] >> np.uint64(8 * u * i), unit)
        array.data[first + i, lanes] = part
        array.known[first + i, lanes] = known[lanes]
        array.src[first + i, lanes] = src[lanes]

