"""Shared tiles of a TTGIR module: each shared encoding with the stores and reads Triton lowers onto it.

Reads the ``#name = #ttg.…<{…}>`` definitions and the ``local_alloc`` / ``local_store`` /
``local_load`` operations of a TTGIR dump (``MLIR_ENABLE_DUMP``, ``kernel.asm["ttgir"]``, or the
``*.ttgir`` file in Triton's cache), in both spellings (``ttg.`` and the older ``triton_gpu.``). A
store from a ``#blocked`` tensor becomes ``blocked_accesses(op="store")``, a load into a ``#ttg.dot_op``
operand the ``ldmatrix`` reads of ``dot_operand_reads``, a load into a ``#blocked`` tensor
``blocked_accesses(op="load")``. Multi-buffered allocations (``2x64x32xf16``) are checked per buffer
(the last two dimensions). Other encodings of the tensor side (``#linear``, ``#mma``) are reported
as not modelled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bankism.errors import BankismError
from bankism.review.triton_shared import (
    Blocked,
    SharedEncoding,
    TritonAccess,
    blocked_accesses,
    dot_operand_reads,
    encodings_in,
    tile_shape,
)

#: TTGIR element types -> bankism dtypes (fp8 and int8 as one byte; only the size matters).
ELEMENT_TYPES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64", "i8": "int8",
                 "i16": "int16", "i32": "int32", "i64": "int64", "f8E4M3FN": "uint8", "f8E5M2": "uint8",
                 "f8E4M3FNUZ": "uint8", "f8E5M2FNUZ": "uint8", "tf32": "float32"}

# ``64x64xf16``: each dimension a number and an x, then the element type (a letter first), so that no
# search backtracks over a long run of digits and x's.
_TYPE = r"<(?P<{n}>(?:\d+x)+)(?P<{t}>[A-Za-z]\w*),\s*(?P<{e}>#[\w.]+(?:<\{{[^}}]*\}}>)?)"
_MEMDESC = re.compile(r"!(?:ttg|tt|triton_gpu)\.memdesc" + _TYPE.format(n="mshape", t="mtype", e="menc"))
_TENSOR = re.compile(r"tensor" + _TYPE.format(n="tshape", t="ttype", e="tenc"))


@dataclass
class SharedTile:
    """One shared allocation (by encoding, shape and type) and the modelled accesses to it."""

    shape: tuple[int, ...]
    dtype: str
    encoding: SharedEncoding
    encoding_name: str
    accesses: list[TritonAccess] = field(default_factory=list)
    not_modelled: list[str] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)


def _dims(text: str, number: int) -> tuple[int, ...]:
    parts = [n for n in text.split("x") if n]
    if any(len(n) > 18 for n in parts):  # past any tile; int() of thousands of digits would be refused
        raise BankismError(f"TTGIR line {number}: dimension {max(parts, key=len)[:20]}... is too large")
    return tuple(int(n) for n in parts)


def shared_tiles(text: str) -> list[SharedTile]:
    """The shared tiles of a TTGIR module, in the order they first appear."""
    names = encodings_in(text)
    tiles: dict[tuple, SharedTile] = {}
    for number, line in enumerate(text.splitlines(), 1):
        operation = re.search(r"\b(?:ttg|triton_gpu)\.(local_alloc|local_store|local_load)\b", line)
        memdesc = _MEMDESC.search(line)
        if operation is None or memdesc is None:
            continue
        encoding = names.get(memdesc.group("menc"))
        if not isinstance(encoding, SharedEncoding):
            continue
        dims = _dims(memdesc.group("mshape"), number)
        shape = dims[-2:] if len(dims) > 2 else dims
        element = memdesc.group("mtype")
        dtype = ELEMENT_TYPES.get(element)
        if dtype is None:
            raise BankismError(f"TTGIR line {number}: element type {element} is not known")
        key = (memdesc.group("menc"), shape, dtype)
        tile = tiles.get(key)
        if tile is None:
            try:
                fitted = _fit(encoding, len(shape))
                tile_shape(shape, fitted)
            except BankismError as error:
                raise BankismError(f"TTGIR line {number}: {error}") from None
            tile = tiles[key] = SharedTile(shape, dtype, fitted, memdesc.group("menc"))
        tile.lines.append(number)
        tensor = _TENSOR.search(line)
        if tensor is None:
            continue  # an allocation with no initial value
        try:
            _add_access(tile, operation.group(1), tensor.group("tenc"), names, number)
        except BankismError as error:
            raise BankismError(f"TTGIR line {number}: {error}") from None
    return list(tiles.values())


def _fit(encoding: SharedEncoding, rank: int) -> SharedEncoding:
    """The encoding of a multi-buffered allocation, restricted to one buffer's two dimensions."""
    if len(encoding.order) == rank:
        return encoding
    kept = tuple(d - (len(encoding.order) - rank) for d in encoding.order if d >= len(encoding.order) - rank)
    return SharedEncoding(encoding.vec, encoding.per_phase, encoding.max_phase, kept, encoding.nvmma_bytes)


def _add_access(tile: SharedTile, operation: str, tensor_encoding: str, names: dict, number: int) -> None:
    from bankism.review.layout import SharedArray

    itemsize = SharedArray(tile.dtype, (1,)).itemsize
    where = f"line {number}"
    if operation == "local_load" and "dot_op" in tensor_encoding:
        access = dot_operand_reads(tile.shape, tile.encoding, itemsize)
        tile.accesses.append(_relabel(access, f"{access.label}, {where}"))
        return
    blocked = names.get(tensor_encoding)
    if isinstance(blocked, Blocked) and len(blocked.order) == len(tile.shape):
        op = "load" if operation == "local_load" else "store"
        access = blocked_accesses(tile.shape, blocked, tile.encoding, itemsize, op)
        tile.accesses.append(_relabel(access, f"{access.label}, {where}"))
        return
    tile.not_modelled.append(f"{where}: {operation} with tensor encoding {tensor_encoding} (not modelled)")


def _relabel(access: TritonAccess, label: str) -> TritonAccess:
    return TritonAccess(label, access.op, access.coords, access.width_elements, access.matrices, access.block)
