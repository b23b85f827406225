"""Which shared-memory instructions nvcc emits for a WMMA ``load_matrix_sync`` /
``store_matrix_sync``, and each lane's address in each, per fragment shape, element type and
layout (data, no interpreter).

Read from the SASS of nvcc 13.0 (``-arch=sm_90 -O3``) for every fragment and layout with
several ``ldm`` (traces/wmma_sass/: ``wmma_cases.cu`` for m16n16k16, ``wmma_shapes_cases.cu`` for
the others), and checked lane by lane against H100 traces (traces/wmma_tiles.json,
traces/wmma_shapes.json). Lane ``l`` has ``g = l / 4``, ``t = l % 4``, ``c = 2 t``; "stored"
rows and columns are those of the tile in memory (a col-major tile's stored rows are its
columns), so every address is ``base + (stored_row * ldm + stored_col) * element``:

* half operands: ``LDSM.16.M88``/``MT88`` .x4 per 16x16 block, .x2 per 16x8 or 8x16 block.
  The four 8x8 matrices of an x4 go first along M (matrix_a) or K (matrix_b) - "down" the
  stored rows when those are M (a row-major) or K (b row-major), "across" otherwise; lane
  ``l`` gives the row address of matrix ``l / 8``; an x2 reads lanes 0-15 and nvcc gives
  lanes 16-31 the addresses of lanes 0-15. m8n32k16 is the transpose of m32n8k16: its
  matrix_a (b) row-major compiles exactly as m32n8k16's matrix_b (a) col-major, and so on;
  its accumulators row-major as m32n8k16's col-major.
* float accumulators (``.shared``): per 8x8 block, row-major one ``LDS.64``/``STS.64`` at
  ``(g, c)``, col-major two ``LDS``/``STS`` at ``(c + k, g)``; half accumulators one 32-bit
  ``LDS``/``STS`` per block at ``(g, c)`` (row-major) or ``(g, c)`` of the stored tile
  (col-major, with ``MOVM`` transposes in registers).
* bf16 operands, all tf32 and all double fragments are loaded and stored with *generic*
  ``LD``/``ST`` (NVVM gives these ``wmma.load``/``wmma.store`` no ``.shared``): bf16, one
  32-bit ``LD`` per 8x8 block of the stored tile at ``(g, c)``; tf32 operands four 32-bit
  ``LD`` at ``(g + 8i, t + 4j)``, or ``(t + 4j, g + 8i)`` where the stored rows are K; tf32
  accumulators as float ones (``LD.E.64`` / ``LD.E``); double operands one ``LD.E.64`` at
  ``(g, t)`` or ``(t, g)``; double accumulators row-major one ``LD.E.128`` at ``(g, c)``,
  col-major two ``LD.E.64`` at ``(c + k, g)``.

Integer and sub-byte fragments are not modelled (``Unmodelled``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bankism.arch import LANES

HALVES = ("half", "__half")
BF16 = ("__nv_bfloat16", "nv_bfloat16", "bfloat16")
TF32 = ("tf32", "precision::tf32", "wmma::precision::tf32")

#: num_elements of each fragment (``__frag_base<T, N>`` in CUDA 13.0's crt/mma.h), keyed by
#: (use, shape, element family).
_ELEMENTS = {
    ("matrix_a", "m16n16k16", "half"): 16, ("matrix_b", "m16n16k16", "half"): 16,
    ("accumulator", "m16n16k16", "half"): 8, ("accumulator", "m16n16k16", "float"): 8,
    ("matrix_a", "m32n8k16", "half"): 16, ("matrix_b", "m32n8k16", "half"): 16,
    ("accumulator", "m32n8k16", "half"): 8, ("accumulator", "m32n8k16", "float"): 8,
    ("matrix_a", "m8n32k16", "half"): 16, ("matrix_b", "m8n32k16", "half"): 16,
    ("accumulator", "m8n32k16", "half"): 8, ("accumulator", "m8n32k16", "float"): 8,
    ("matrix_a", "m16n16k16", "bf16"): 8, ("matrix_b", "m16n16k16", "bf16"): 8,
    ("matrix_a", "m32n8k16", "bf16"): 16, ("matrix_b", "m32n8k16", "bf16"): 4,
    ("matrix_a", "m8n32k16", "bf16"): 4, ("matrix_b", "m8n32k16", "bf16"): 16,
    ("matrix_a", "m16n16k8", "tf32"): 4, ("matrix_b", "m16n16k8", "tf32"): 4,
    ("accumulator", "m16n16k8", "float"): 8,
    ("matrix_a", "m8n8k4", "double"): 1, ("matrix_b", "m8n8k4", "double"): 1,
    ("accumulator", "m8n8k4", "double"): 2,
}


class Unmodelled(Exception):
    """A fragment explain has no instruction table for (the message says which)."""


@dataclass(frozen=True)
class FragmentSpec:
    """``wmma::fragment<use, m, n, k, element[, layout]>``."""

    use: str          # matrix_a, matrix_b, accumulator
    m: int
    n: int
    k: int
    element: str      # half, float, __nv_bfloat16, tf32, double, ...
    layout: str       # row_major, col_major, or "" (accumulator)

    @property
    def family(self) -> str:
        """half, bf16, tf32, float, double, or the element's own name."""
        if self.element in HALVES:
            return "half"
        if self.element in BF16:
            return "bf16"
        if self.element in TF32:
            return "tf32"
        return self.element

    @property
    def shape(self) -> str:
        return f"m{self.m}n{self.n}k{self.k}"

    @property
    def num_elements(self) -> int | None:
        return _ELEMENTS.get((self.use, self.shape, self.family))


@dataclass(frozen=True)
class Access:
    """One instruction of a fragment load/store: width in bytes, ``ldmatrix`` (with
    ``matrices``) or a plain load/store, whether it is a generic (LD/ST) instruction, and
    each lane's stored row and column."""

    width: int
    rows: np.ndarray
    cols: np.ndarray
    matrices: int | None = None
    generic: bool = False

    @property
    def op(self) -> str:
        return "ldmatrix" if self.matrices else ""


@dataclass(frozen=True)
class Plan:
    """The instructions of one load/store, the element size in bytes, and the SASS name."""

    accesses: list[Access]
    element: int
    sass: str


_LANE = np.arange(LANES)
#: m8n32k16 compiles as the transpose of m32n8k16 (SASS: the same instructions).
TRANSPOSED = "m8n32k16"
_G, _T = _LANE // 4, _LANE % 4


def _ldsm(row0: int, col0: int, across: bool, count: int) -> Access:
    """LDSM .x4 (count 4) of the 16x16 block at stored (row0, col0), or .x2 (count 2) of its
    first 16x8 (down) or 8x16 (across) part; matrix m = lane / 8 (lanes 16-31 repeat 0-15 in
    an x2)."""
    lane = _LANE if count == 4 else _LANE % 16
    matrix, i = lane // 8, lane % 8
    if across:
        return Access(16, row0 + i + 8 * (matrix // 2), col0 + 8 * (matrix % 2), count)
    return Access(16, row0 + i + 8 * (matrix % 2), col0 + 8 * (matrix // 2), count)


def _blocks(rows: int, cols: int) -> list[tuple[int, int]]:
    """The 8x8 blocks of a rows x cols tile, down each column of blocks first."""
    return [(r, c) for c in range(0, cols, 8) for r in range(0, rows, 8)]


def _half_operand(spec: FragmentSpec) -> list[Access]:
    """LDSM instructions of a half operand: matrices go "down" the stored rows
    first when the tile is row-major (a: along M, b: along K), "across" when col-major."""
    m, n, use, layout = spec.m, spec.n, spec.use, spec.layout
    if spec.shape == TRANSPOSED:  # the transpose of m32n8k16: a <-> b, row <-> col
        m, n = n, m
        use = "matrix_b" if use == "matrix_a" else "matrix_a"
        layout = "col_major" if layout == "row_major" else "row_major"
    down = layout == "row_major"
    if use == "matrix_a":
        if m == 16:
            return [_ldsm(0, 0, not down, 4)]
        # m32: a second x4 16 rows of A further (stored rows when row-major, columns else)
        return [_ldsm(s, 0, False, 4) if down else _ldsm(0, s, True, 4) for s in (0, 16)]
    return [_ldsm(0, 0, not down, 4 if n == 16 else 2)]


def _accumulator(spec: FragmentSpec, col_major: bool, generic: bool) -> list[Access]:
    m, n = spec.m, spec.n
    if spec.shape == TRANSPOSED:
        m, n, col_major = n, m, not col_major
    c = 2 * _T
    if spec.family == "half":
        if col_major:
            return [Access(4, _G + dc, c + dr) for dr, dc in _blocks(m, n)]
        return [Access(4, _G + dr, c + dc) for dr, dc in _blocks(m, n)]
    if col_major:
        return [Access(4, c + dc + j, _G + dr, generic=generic) for dr, dc in _blocks(m, n) for j in (0, 1)]
    return [Access(8, _G + dr, c + dc, generic=generic) for dr, dc in _blocks(m, n)]


def _stored_shape(spec: FragmentSpec) -> tuple[int, int, bool]:
    """(stored rows, stored columns, whether the stored rows run along K) of an operand."""
    rows, cols = (spec.m, spec.k) if spec.use == "matrix_a" else (spec.k, spec.n)
    if spec.layout == "col_major":
        rows, cols = cols, rows
    k_rows = (spec.use == "matrix_a") == (spec.layout == "col_major")
    return rows, cols, k_rows


def plan(spec: FragmentSpec, memory_layout: str) -> Plan:
    """The instructions of a load/store of ``spec`` (``memory_layout`` is ``mem_row_major`` or
    ``mem_col_major`` for an accumulator, else ignored)."""
    family = spec.family
    if spec.num_elements is None:
        raise Unmodelled(f"WMMA fragment {spec.use} m{spec.m}n{spec.n}k{spec.k} of {spec.element} (explain "
                         "models half and bf16 m16n16k16/m32n8k16/m8n32k16, tf32 m16n16k8 and double m8n8k4)")
    col_major = memory_layout == "mem_col_major"
    if spec.use == "accumulator":
        if family == "double":
            if col_major:
                return Plan([Access(8, 2 * _T + j, _G, generic=True) for j in (0, 1)], 8, "LD.E.64/ST.E.64")
            return Plan([Access(16, _G, 2 * _T, generic=True)], 8, "LD.E.128/ST.E.128")
        generic = family == "float" and spec.shape == "m16n16k8"
        accesses = _accumulator(spec, col_major, generic)
        element = 2 if family == "half" else 4
        if generic:
            return Plan(accesses, element, "LD.E/ST.E" if col_major else "LD.E.64/ST.E.64")
        return Plan(accesses, element, "")
    if spec.layout not in ("row_major", "col_major"):
        raise Unmodelled(f"WMMA {spec.use} with layout {spec.layout!r}")
    rows, cols, k_rows = _stored_shape(spec)
    if family == "half":
        return Plan(_half_operand(spec), 2, "")
    if family == "bf16":
        return Plan([Access(4, _G + r, 2 * _T + c, generic=True) for r, c in _blocks(rows, cols)], 2, "LD.E")
    if family == "tf32":
        down, across = (_T, _G) if k_rows else (_G, _T)
        steps = [(4 * j, 8 * i) if k_rows else (8 * i, 4 * j) for i in (0, 1) for j in (0, 1)]
        return Plan([Access(4, down + dr, across + dc, generic=True) for dr, dc in steps], 4, "LD.E")
    if family == "double":
        rows_of, cols_of = (_T, _G) if k_rows else (_G, _T)
        return Plan([Access(8, rows_of, cols_of, generic=True)], 8, "LD.E.64")
    raise Unmodelled(f"WMMA {spec.use} of {spec.element}")
