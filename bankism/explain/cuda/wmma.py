"""WMMA (``nvcuda::wmma``) in explain: fragment types, and ``load_matrix_sync`` /
``store_matrix_sync`` from and to shared memory as the LDSM/LDS/STS instructions nvcc emits
for them, with the lanes' addresses; ``fill_fragment`` and ``mma_sync`` touch no memory.

The instruction sequences below were read from the SASS of nvcc 13.0 (``-arch=sm_90 -O3``)
for every fragment and layout of m16n16k16 with ldm 16, 24 and 40 (traces/wmma_sass/), and
the lane addresses checked against an H100 trace (traces/wmma_tiles.json):

* ``matrix_a``/``matrix_b`` (half or bf16): one ``LDSM.16.M88.4`` (a row-major, b col-major)
  or ``LDSM.16.MT88.4`` (a col-major, b row-major); lane ``l`` gives the row address of
  8x8 matrix ``l // 8``;
* float accumulator: row-major, 4 ``LDS.64``/``STS.64``; col-major, 8 ``LDS``/``STS``;
* half accumulator: row-major, 4 32-bit ``LDS``/``STS``; col-major, 4 32-bit ``LDS``/``STS``
  (with ``MOVM`` transposes in registers).

Other shapes and element types are refused with a one-line error."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
from tree_sitter import Node

from bankism.arch import LANES
from bankism.explain.cuda.builtins import BUILTINS
from bankism.explain.frontend import syntax as S
from bankism.explain.frontend.treesitter import node_text
from bankism.explain.simt import ctype as C
from bankism.explain.simt.bindings import Variable, VarLV
from bankism.explain.simt.ctype import CType
from bankism.explain.simt.machine import SimtMachine
from bankism.explain.simt.memory import GlobalMatrix, SharedVariable
from bankism.explain.simt.values import (
    Failure,
    Mask,
    Pointer,
    Scalar,
    Value,
    all_known,
    constant,
    convert,
    per_thread,
)

_FRAGMENT = re.compile(r"^(?:nvcuda::)?(?:wmma::)?fragment\s*<(.*)>$", re.S)


@dataclass(frozen=True)
class FragmentSpec:
    use: str          # matrix_a, matrix_b, accumulator
    m: int
    n: int
    k: int
    element: str      # half, float, __nv_bfloat16, ...
    layout: str       # row_major, col_major, or "" (accumulator)


@dataclass(frozen=True, eq=False)
class FragmentType(CType):
    """``wmma::fragment<...>``: a warp's registers; ``spec`` says which."""

    spec: FragmentSpec | None = None


class Fragment:
    """A fragment's value: explain tracks only a uniform fill (``fill_fragment``)."""

    __slots__ = ("type", "fill")

    def __init__(self, type: FragmentType, fill: Scalar | None) -> None:
        self.type = type
        self.fill = fill


def type_name(node: Node) -> str | None:
    """The canonical name of a ``wmma::fragment<...>`` type node, else None."""
    text = " ".join(node_text(node).split())
    match = _FRAGMENT.match(text)
    if match is None:
        return None
    args = [a.strip().split("::")[-1] for a in match.group(1).split(",")]
    return "wmma::fragment<" + ",".join(args) + ">"


def fragment_type(name: str) -> FragmentType | None:
    """The FragmentType a canonical name from ``type_name`` denotes (None if not one)."""
    if not name.startswith("wmma::fragment<"):
        return None
    args = name[len("wmma::fragment<"):-1].split(",")
    if len(args) not in (5, 6):
        return None
    use, m, n, k, element = args[:5]
    layout = args[5] if len(args) == 6 else ""
    try:
        spec = FragmentSpec(use, int(m), int(n), int(k), element, layout)
    except ValueError:
        return None
    return FragmentType(name, "wmma", 0, 1, None, False, 0, None, 1, spec=spec)


# --- the instructions nvcc emits ------------------------------------------------------------

_HALVES = ("half", "__half", "__nv_bfloat16", "nv_bfloat16", "bfloat16")


@dataclass(frozen=True)
class _Access:
    """One instruction of a load/store: width, the engine op, and each lane's (row, col)."""

    width: int
    op: str
    rows: np.ndarray
    cols: np.ndarray
    matrices: int | None = None


def _matrix_lanes(across_first: bool) -> tuple[np.ndarray, np.ndarray]:
    """(stored row, stored column) of each lane's 16-byte row address for LDSM x4 of a
    16x16 tile in memory: lane l gives row l % 8 of 8x8 matrix l // 8, and the four matrices
    go down the stored rows first (row 0-7, 8-15 of column block 0, then of block 1) or,
    ``across_first``, along the stored row first."""
    lane = np.arange(LANES)
    matrix, i = lane // 8, lane % 8
    if across_first:
        return i + 8 * (matrix // 2), 8 * (matrix % 2)
    return i + 8 * (matrix % 2), 8 * (matrix // 2)


def _accesses(spec: FragmentSpec, layout: str, node: S.Node) -> tuple[list[_Access], int, bool]:
    """The instructions of one load/store of a fragment: (accesses, element size, column-major)."""
    if (spec.m, spec.n, spec.k) != (16, 16, 16):
        raise Failure(node, f"unsupported construct: WMMA shape m{spec.m}n{spec.n}k{spec.k} (explain models "
                            "m16n16k16)")
    lane = np.arange(LANES)
    if spec.use in ("matrix_a", "matrix_b"):
        if spec.element not in _HALVES:
            raise Failure(node, f"unsupported construct: WMMA {spec.use} of {spec.element} (explain models "
                                "half and bf16)")
        # Stored rows are A's rows (row-major a), k (col-major a, row-major b) or B's columns
        # (col-major b); the fragment's matrix order puts k blocks last for a, first for b.
        rows, cols = _matrix_lanes(spec.layout == "col_major")
        return [_Access(16, "ldmatrix", rows, cols, 4)], 2, False
    if spec.use != "accumulator":
        raise Failure(node, f"unsupported construct: WMMA fragment use {spec.use}")
    col_major = layout == "mem_col_major"
    blocks = [(0, 0), (8, 0), (0, 8), (8, 8)]
    if spec.element == "float":
        r, c = lane // 4, 2 * (lane % 4)
        if not col_major:
            return [_Access(8, "", r + dr, c + dc) for dr, dc in blocks], 4, False
        return [_Access(4, "", r + dr, c + dc + j) for dr, dc in blocks for j in (0, 1)], 4, True
    if spec.element in ("half", "__half"):
        if not col_major:
            return [_Access(4, "", lane // 4 + dr, 2 * (lane % 4) + dc) for dr, dc in blocks], 2, False
        # col-major: each lane reads two halves down a column (MOVM transposes them).
        return [_Access(4, "", 2 * (lane % 4) + dr, lane // 4 + dc) for dr, dc in blocks], 2, True
    raise Failure(node, f"unsupported construct: WMMA accumulator of {spec.element} (explain models float "
                        "and half)")


# --- the built-ins --------------------------------------------------------------------------


def _fragment_target(machine: SimtMachine, expr: S.Expr, mask: Mask) -> tuple[Variable, FragmentType]:
    target = machine.lvalue(expr, mask)
    if not isinstance(target, VarLV) or not isinstance(target.var.type, FragmentType):
        raise Failure(expr, "expected a wmma::fragment variable")
    return target.var, target.var.type


def _layout_argument(expr: S.Call, index: int) -> str:
    if len(expr.args) <= index:
        return ""
    arg = expr.args[index]
    name = arg.name if isinstance(arg, S.Name) else arg.text.split("::")[-1].strip()
    if name not in ("mem_row_major", "mem_col_major"):
        raise Failure(arg, "the layout must be wmma::mem_row_major or wmma::mem_col_major")
    return name


def _ldm(machine: SimtMachine, expr: S.Expr, mask: Mask) -> int:
    value = machine.eval(expr, mask)
    if not isinstance(value, Scalar) or not value.type.is_integer or not all_known(value.known, mask):
        raise Failure(expr, "ldm must be a known integer")
    data = per_thread(np.asarray(value.data, np.int64), machine.threads)[mask.arr]
    if data.size and not (data == data[0]).all():
        raise Failure(expr, "ldm differs between threads")
    return int(data[0]) if data.size else 0


def _transfer(machine: SimtMachine, expr: S.Call, mask: Mask, load: bool) -> Value:
    """load_matrix_sync(frag, ptr, ldm[, layout]) / store_matrix_sync(ptr, frag, ldm, layout)."""
    if len(expr.args) not in (3, 4):
        raise Failure(expr, f"{expr.function}() takes 3 or 4 arguments")
    frag_expr, pointer_expr = (expr.args[0], expr.args[1]) if load else (expr.args[1], expr.args[0])
    variable, t = _fragment_target(machine, frag_expr, mask)
    spec = t.spec
    layout = _layout_argument(expr, 3)
    if spec.use == "accumulator" and not layout:
        raise Failure(expr, f"{expr.function}() of an accumulator needs wmma::mem_row_major or mem_col_major")
    pointer = machine.eval(pointer_expr, mask)
    ldm = _ldm(machine, expr.args[2], mask)
    if not isinstance(pointer, Pointer):
        raise Failure(pointer_expr, f"{expr.function}() needs a pointer")
    accesses, element, col_major = _accesses(spec, layout, expr)
    if isinstance(pointer.region, SharedVariable):
        region = pointer.region
        base = per_thread(np.asarray(pointer.offset, np.int64), machine.threads) + region.base
        lane = machine.lanes % LANES
        for access in accesses:
            rows, cols = access.rows[lane], access.cols[lane]
            offsets = (cols * ldm + rows) * element if col_major else (rows * ldm + cols) * element
            addresses = base + offsets
            op = access.op or ("load" if load else "store")
            machine.shared_region_of(addresses, mask.arr, access.width, expr)
            recorded = C.VECTORS["uint4"] if access.width == 16 else _WIDTH_TYPES[access.width]
            extra = {"matrices": access.matrices} if access.matrices else {}
            machine.recorder.record(expr, op, recorded, region, addresses, mask, machine.context.block_index,
                                    span=machine.span, calls=tuple(machine.call_stack), **extra)
            if not load:
                _store(machine, addresses, access.width, variable, element, mask)
    elif not isinstance(pointer.region, GlobalMatrix):
        raise Failure(pointer_expr, f"{expr.function}() through this pointer")
    if load:
        variable.value = Fragment(t, None)
    return constant(C.INT, 0)


_WIDTH_TYPES = {4: C.UINT, 8: C.VECTORS["uint2"]}


def _store(machine: SimtMachine, addresses: np.ndarray, width: int, variable: Variable, element: int,
           mask: Mask) -> None:
    fragment = variable.value
    fill = fragment.fill if isinstance(fragment, Fragment) else None
    t = {2: C.HALF, 4: C.FLOAT}[element]
    lanes = mask.arr
    for k in range(0, width, element):
        at = addresses[lanes] + k
        if fill is not None and all_known(fill.known, mask):
            data = np.full(at.size, convert(fill, t).data, t.dtype)
            machine.store.store(at, t, data, np.ones(at.size, bool), np.full(at.size, -1, np.int64))
        else:
            machine.store.store(at, t, np.zeros(at.size, t.dtype), np.zeros(at.size, bool),
                                np.full(at.size, -1, np.int64))


def _load_matrix(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    return _transfer(machine, expr, mask, True)


def _store_matrix(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    return _transfer(machine, expr, mask, False)


def _fill(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    if len(expr.args) != 2:
        raise Failure(expr, "fill_fragment() takes 2 arguments")
    variable, t = _fragment_target(machine, expr.args[0], mask)
    value = machine.eval(expr.args[1], mask)
    if not isinstance(value, Scalar):
        raise Failure(expr.args[1], "fill_fragment() needs a number")
    uniform = np.asarray(value.data)
    running = uniform[mask.arr] if uniform.ndim else uniform
    known = all_known(value.known, mask) and (uniform.ndim == 0 or bool((running == running[0]).all()))
    variable.value = Fragment(t, value if known else None)
    return constant(C.INT, 0)


def _mma(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    if len(expr.args) not in (4, 5):
        raise Failure(expr, f"{expr.function}() takes 4 arguments")
    variable, t = _fragment_target(machine, expr.args[0], mask)
    for arg in expr.args[1:4]:
        _fragment_target(machine, arg, mask)
    variable.value = Fragment(t, None)
    return constant(C.INT, 0)


BUILTINS["load_matrix_sync"] = _load_matrix
BUILTINS["store_matrix_sync"] = _store_matrix
BUILTINS["fill_fragment"] = _fill
BUILTINS["mma_sync"] = _mma
BUILTINS["bmma_sync"] = _mma

