"""The engine's inputs, checked and packed at the API edge: addresses, active lanes, argument types,
and the width, rule and bank geometry of one instruction kind. A wrong input is a one-line
BankismError here, never an error deep in Numba."""

from __future__ import annotations

import numpy as np

from bankism.arch import (
    FULL_MASK,
    LANES,
    LANES_PER_MATRIX,
    MATRIX_OPS,
    MATRIX_ROW_BYTES,
    Architecture,
    Rule,
    get_arch,
)
from bankism.errors import BankismError


def lanes_used(op: str, matrices: int | None) -> int:
    """Lanes whose addresses count: the warp, or one row address per matrix row."""
    return LANES_PER_MATRIX * matrices if op in MATRIX_OPS and matrices else LANES


def lanes_mask(op: str, matrices: int | None) -> int:
    return (1 << lanes_used(op, matrices)) - 1


def as_addresses(addresses: object) -> np.ndarray:
    """The addresses as a C-contiguous (N, 32) int32/int64 array, or a BankismError."""
    try:
        array = np.asarray(addresses)
    except (ValueError, TypeError) as error:  # rows of different lengths
        raise BankismError(f"addresses must have shape (32,) or (N, 32): {error}") from None
    if array.ndim == 1:
        array = array[np.newaxis, :]
    if array.ndim != 2 or array.shape[1] != LANES:
        raise BankismError(
            f"addresses must have shape (32,) or (N, 32); got {np.asarray(addresses).shape}"
        )
    if array.dtype.kind == "f":
        huge = np.argwhere(np.isfinite(array) & (np.abs(array) >= 2.0**63))
        if huge.size:
            i, lane = huge[0]
            value = float(array[i, lane])
            raise BankismError(f"instruction {i}, lane {lane}: address {value!r} is too large")
        fractional = np.argwhere(array != np.floor(array))
        if fractional.size:
            i, lane = fractional[0]
            raise BankismError(
                f"instruction {i}, lane {lane}: address {array[i, lane]!r} is not an integer"
            )
        array = array.astype(np.int64)
    elif array.dtype.kind == "u":
        if array.dtype.itemsize == 8 and array.size and array.max() > np.iinfo(np.int64).max:
            i, lane = np.unravel_index(int(array.argmax()), array.shape)
            raise BankismError(f"instruction {i}, lane {lane}: address {array[i, lane]} is too large")
        array = array.astype(np.int64)
    elif array.dtype.kind != "i":
        raise BankismError(f"addresses must be integers; got {array.dtype} values")
    if array.dtype not in (np.int32, np.int64):
        array = array.astype(np.int64)
    return np.ascontiguousarray(array)


def as_masks(active: object, n: int) -> np.ndarray:
    """Active lanes as int64 bitmasks: shape (1,) for one mask shared by all, else (N,)."""
    if active is None:
        return np.full(1, FULL_MASK, np.int64)
    array = np.asarray(active)
    if array.dtype == np.bool_:
        if array.ndim == 1:
            array = array[np.newaxis, :]
        if array.shape != (n, LANES):
            raise BankismError(f"active lanes must have shape ({n}, 32) like addresses; got {array.shape}")
        return (array.astype(np.int64) << np.arange(LANES, dtype=np.int64)).sum(axis=1)
    if array.dtype.kind not in "iu":
        raise BankismError(f"active must be None, a bool array or integer bitmasks; got {array.dtype}")
    narrow = array.dtype.kind == "u" and array.dtype.itemsize <= 4
    array = array.astype(np.int64).reshape(-1)
    if array.shape[0] not in (1, n):
        raise BankismError(f"active bitmasks must have shape ({n},); got {np.asarray(active).shape}")
    if narrow:
        return array
    out_of_range = np.flatnonzero((array < 0) | (array > FULL_MASK))
    if out_of_range.size:
        i = int(out_of_range[0])
        raise BankismError(f"instruction {i}: active mask {int(array[i])} is not a 32-bit lane mask")
    return array


def log2_exact(value: int, what: str) -> int:
    if value < 1 or value & (value - 1):
        raise BankismError(f"{what} must be a power of two; got {value}")
    return value.bit_length() - 1


def geometry(arch: Architecture, width: int) -> tuple[int, int]:
    """(log2 unit bytes, log2 bank groups per row) for accesses of ``width`` bytes on ``arch``.

    A unit is the aligned piece one lane occupies in the banks: one bank word, or the whole
    access when it spans several banks; units of one bank group (unit mod groups) share banks.
    """
    unit = max(width, arch.bank_bytes)
    groups = arch.banks * arch.bank_bytes // unit
    if groups < 1:
        raise BankismError(f"{arch.name}: a {width}-byte access is wider than a row of banks")
    return (log2_exact(unit, f"{arch.name}: the unit size"),
            log2_exact(groups, f"{arch.name}: the bank-group count"))


def check_arguments(width: object, op: object, matrices: object, arch: object, atomic_op: object) -> int:
    """The types of simulate's arguments, checked at the API edge so that a wrong type is a one-line
    BankismError instead of an error deep in Numba; returns ``width`` as a plain int."""
    for name, value, optional in (("width", width, False), ("matrices", matrices, True)):
        if value is None and optional:
            continue
        if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
            raise BankismError(f"{name} must be an integer; got {value!r} ({type(value).__name__})")
    for name, value in (("op", op), ("arch", arch), ("atomic_op", atomic_op)):
        if not isinstance(value, str):
            raise BankismError(f"{name} must be a string; got {value!r} ({type(value).__name__})")
    return int(width)  # type: ignore[arg-type]


#: Up to this many instructions, int64 addresses that fit are narrowed to int32 before the kernel
#: runs, so that small calls (explain, review, the CLI) share the one compiled kernel ``analyze``
#: uses; a first call after install then compiles once, not twice. Larger batches keep int64 (no
#: extra pass over the data).
NARROW_LIMIT = 1 << 16


def narrow(rows: np.ndarray) -> np.ndarray:
    if rows.dtype == np.int64 and 0 < rows.shape[0] <= NARROW_LIMIT:
        low, high = int(rows.min()), int(rows.max())
        if low >= -(2**31) and high < 2**31:
            return rows.astype(np.int32)
    return rows


def resolve(width: int, op: str, matrices: int | None, arch: str, atomic_op: str) -> tuple[int, Rule]:
    """The access width the engine uses and the rule of one instruction kind, or a BankismError."""
    architecture = get_arch(arch)
    if op in MATRIX_OPS:
        if matrices not in (1, 2, 4):
            raise BankismError(f"{op} needs matrices=1, 2 or 4; got {matrices!r}")
        if width not in (8, MATRIX_ROW_BYTES):
            raise BankismError(f"{op} moves {MATRIX_ROW_BYTES}-byte rows; width={width!r} does not apply")
        width = MATRIX_ROW_BYTES
    elif matrices is not None:
        raise BankismError(f"matrices= applies to ldmatrix/stmatrix only, not to {op!r}")
    return width, architecture.rule(op, width, atomic_op)
