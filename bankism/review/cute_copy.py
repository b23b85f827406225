"""CuTe copy atoms and tiled copies: which shared-memory element each lane's instruction starts at.

A copy atom is data, transcribed from CUTLASS's ``cute/atom/copy_traits_sm75.hpp`` (ldmatrix),
``copy_traits_sm90.hpp`` (stmatrix), ``copy_traits_sm80.hpp`` (cp.async) and ``copy_traits.hpp``
(``UniversalCopy``): its thread count and its source, destination and reference layouts, in bits. A
tiled copy is a ``TiledLayout_TV`` ((thread, value) -> index in the ``Tiler_MN`` tile) over an atom,
built by ``make_tiled_copy(atom, thr_layout, val_layout)`` or given as ``print(tiled_copy)`` shows it.

The shared-memory side of each thread follows CuTe's ``TiledCopy::tile2thrfrg``: the reference
(register) side of the TV layout is turned into the shared side through
``right_inverse(AtomLayoutRef) o AtomLayoutSrc`` (or ``...Dst``), computed here on the layouts'
tables. Limits: a ``Tiler_MN`` given as a shape (not a tuple of layouts); tensors whose extents are
multiples of the tiler; the tiled copy's threads numbered as the kernel's ``threadIdx.x``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from bankism.arch import LANES, MAX_THREADS_PER_BLOCK
from bankism.errors import BankismError
from bankism.review.cute import CuteLayout, as_layout, complement, flatten, parse_layout, tuple_text
from bankism.review.layout import MAX_ELEMENTS, positive_shape

_BITS = {f"uint{8 * n}_t": 8 * n for n in (1, 2, 4, 8, 16)}  # the types CuTe's copies move, in bits


@dataclass(frozen=True)
class CopyAtom:
    """One CuTe copy atom: its layouts in bits, which side is shared memory, and the engine's op."""

    name: str
    threads: int
    src: str
    dst: str
    ref: str  # "src" or "dst": the register side CuTe's TiledLayout_TV refers to
    smem: str  # "src" or "dst": the side in shared memory
    op: str  # the engine's op for the shared side
    matrices: int | None = None
    trans: bool = False

    def bits(self, side: str) -> CuteLayout:
        return parse_layout(self.src if side == "src" else self.dst)

    @property
    def instruction(self) -> str:
        """The PTX instruction, as people call it."""
        if self.op in ("ldmatrix", "stmatrix"):
            return f"{self.op}.x{self.matrices}" + (".trans" if self.trans else "")
        width = self.bits(self.smem).mode(1)[0]
        width = math.prod(flatten(width)) // 8
        return {"ldgsts": f"cp.async {width} B", "load": f"ld.shared {width} B",
                "store": f"st.shared {width} B"}[self.op]


def _ldsm(name: str, src: str, dst: str, matrices: int, trans: bool) -> CopyAtom:
    return CopyAtom(name, LANES, src, dst, "dst", "src", "ldmatrix", matrices, trans)


def _stsm(name: str, src: str, dst: str, matrices: int, trans: bool) -> CopyAtom:
    return CopyAtom(name, LANES, src, dst, "src", "dst", "stmatrix", matrices, trans)


_X1 = "((8,4),128):((128,0),1)"
_X2 = "((16,2),128):((128,0),1)"
_X4 = "(32,128):(128,1)"
_N1, _N2, _N4 = "(32,32):(32,1)", "(32,(32,2)):(32,(1,1024))", "(32,(32,4)):(32,(1,1024))"
_T1 = "((4,8),(16,2)):((256,16),(1,128))"
_T2 = "((4,8),(16,2,2)):((256,16),(1,128,1024))"
_T4 = "((4,8),(16,2,4)):((256,16),(1,128,1024))"

#: The copy atoms by CuTe's name (copy_traits_sm75/sm90: ldmatrix, stmatrix).
ATOMS: dict[str, CopyAtom] = {
    atom.name: atom for atom in (
        _ldsm("SM75_U32x1_LDSM_N", _X1, _N1, 1, False),
        _ldsm("SM75_U32x2_LDSM_N", _X2, _N2, 2, False),
        _ldsm("SM75_U32x4_LDSM_N", _X4, _N4, 4, False),
        _ldsm("SM75_U16x2_LDSM_T", _X1, _T1, 1, True),
        _ldsm("SM75_U16x4_LDSM_T", _X2, _T2, 2, True),
        _ldsm("SM75_U16x8_LDSM_T", _X4, _T4, 4, True),
        _stsm("SM90_U32x1_STSM_N", _N1, _X1, 1, False),
        _stsm("SM90_U32x2_STSM_N", _N2, _X2, 2, False),
        _stsm("SM90_U32x4_STSM_N", _N4, _X4, 4, False),
        _stsm("SM90_U16x2_STSM_T", _T1, _X1, 1, True),
        _stsm("SM90_U16x4_STSM_T", _T2, _X2, 2, True),
        _stsm("SM90_U16x8_STSM_T", _T4, _X4, 4, True),
    )
}

#: Short names: ldmatrix.x4.trans -> SM75_U16x8_LDSM_T, and so on.
ALIASES = {
    f"{op}.x{m}{'.trans' if t else ''}": a.name
    for a in ATOMS.values() for op, m, t in [(a.op, a.matrices, a.trans)]
}


def _single(name: str, bits: int, smem: str, op: str) -> CopyAtom:
    layout = f"(1,{bits}):(0,1)"
    return CopyAtom(name, 1, layout, layout, "src", smem, op)


def copy_atom(name: str, side: str | None = None) -> CopyAtom:
    """The atom called ``name``: a CuTe name (``SM75_U16x8_LDSM_T``, ``UniversalCopy<uint128_t>``,
    ``SM80_CP_ASYNC_CACHEALWAYS<uint128_t>``) or a short one (``ldmatrix.x4.trans``, ``stmatrix.x2``,
    ``u32``/``u64``/``u128`` (universal copy), ``cp.async.4``/``.8``/``.16``). A universal copy reads
    shared memory unless ``side="dst"`` (it writes it)."""
    text = name.strip().replace(" ", "")
    text = ALIASES.get(text, text)
    if text in ATOMS:
        return ATOMS[text]
    short = {"u32": "uint32_t", "u64": "uint64_t", "u128": "uint128_t"}
    if text in short:
        text = f"UniversalCopy<{short[text]}>"
    if text.startswith("cp.async."):
        size = text.split(".")[-1]
        bits = {"4": "uint32_t", "8": "uint64_t", "16": "uint128_t"}.get(size)
        if bits is None:
            raise BankismError(f"copy atom {name!r}: cp.async moves 4, 8 or 16 bytes")
        text = f"SM80_CP_ASYNC_CACHEALWAYS<{bits}>"
    families = (("UniversalCopy<", None, "src"), ("SM80_CP_ASYNC_CACHEALWAYS<", "ldgsts", "dst"),
                ("SM80_CP_ASYNC_CACHEGLOBAL<", "ldgsts", "dst"))
    for prefix, op, default in families:
        if text.startswith(prefix) and text.endswith(">"):
            kind = text[len(prefix):-1].split(",")[0]
            if kind not in _BITS:
                raise BankismError(f"copy atom {name!r}: unknown type {kind!r} (expected one of "
                                   f"{', '.join(_BITS)})")
            bits = _BITS[kind]
            if op == "ldgsts" and bits // 8 not in (4, 8, 16):
                raise BankismError(f"copy atom {name!r}: cp.async moves 4, 8 or 16 bytes")
            smem = side or default
            if op == "ldgsts" and smem != "dst":
                raise BankismError(f"copy atom {name!r}: cp.async writes shared memory; it cannot read it")
            if smem not in ("src", "dst"):
                raise BankismError(f"copy atom {name!r}: side must be 'src' or 'dst'")
            return _single(text, bits, smem, op or ("load" if smem == "src" else "store"))
    known = ", ".join([*ALIASES, "u32", "u64", "u128", "cp.async.4", "cp.async.8", "cp.async.16"])
    raise BankismError(f"unknown copy atom {name!r}: expected a CuTe atom name or one of {known}")


def recast(layout: CuteLayout, bits: int) -> CuteLayout:
    """CuTe's ``recast_layout<uint1_t, T>``: a layout in bits as a layout in ``bits``-bit values."""

    def leaf(extent: int, stride: int) -> tuple[int, int]:
        if stride == 0:
            return extent, 0
        if stride % bits == 0:
            return extent, stride // bits
        if bits % stride == 0 and (extent * stride) % bits == 0:
            return extent * stride // bits, 1
        raise BankismError(f"layout {layout}: cannot be read in {bits}-bit elements")

    def walk(shape, stride):
        if isinstance(shape, tuple):
            pairs = [walk(a, b) for a, b in zip(shape, stride, strict=True)]
            return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)
        return leaf(shape, stride)

    shape, stride = walk(layout.shape, layout.stride)
    return CuteLayout(shape, stride)


def _table(layout: CuteLayout, shape: tuple[int, ...]) -> np.ndarray:
    """The layout's values over the index grid ``shape`` (one index per top-level mode)."""
    grids = np.indices(shape, dtype=np.int64)
    return layout(*grids) if len(shape) > 1 else layout(grids[0])


@dataclass(frozen=True)
class TiledCopy:
    """A tiled copy: the atom, ``tv[thread, value]`` (index in the tile, column-major), the tile."""

    atom: CopyAtom
    tv: np.ndarray
    tiler: tuple[int, ...]
    description: str

    @property
    def threads(self) -> int:
        return int(self.tv.shape[0])

    def smem_coordinates(self, element_bits: int) -> tuple[np.ndarray, int]:
        """Tile coordinates (1-D, column-major in ``tiler``) of every shared-side value: array
        (threads, instructions per tile, values per instruction), and the values per instruction."""
        atom = self.atom
        ref = recast(atom.bits(atom.ref), element_bits)
        side = recast(atom.bits(atom.smem), element_bits)
        ref_threads, ref_values = _mode_size(ref, 0), _mode_size(ref, 1)
        side_threads, side_values = _mode_size(side, 0), _mode_size(side, 1)
        if ref_threads != atom.threads or side_threads != atom.threads:
            raise BankismError(f"copy atom {atom.name}: {element_bits}-bit elements do not fit its layouts")
        threads, values = self.tv.shape
        if threads % ref_threads or values % ref_values:
            raise BankismError(
                f"tiled copy {self.description}: {threads} threads x {values} values do not divide into "
                f"{atom.name} atoms of {ref_threads} threads x {ref_values} values")
        ref_offsets = _table(ref, (ref_threads, ref_values)).reshape(-1, order="F")
        inverse = np.full(int(ref_offsets.max()) + 1, -1, np.int64)
        inverse[ref_offsets] = np.arange(ref_offsets.size)
        side_offsets = _table(side, (side_threads, side_values))  # [trg_t, trg_v]
        ref_index = inverse[side_offsets]
        if (ref_index < 0).any():
            raise BankismError(f"copy atom {atom.name}: its shared side reaches bits its register side lacks")
        atom_t, atom_v = ref_index % ref_threads, ref_index // ref_threads
        rest_t = np.arange(threads // ref_threads)
        rest_v = np.arange(values // ref_values)
        # thread s = trg_t + side_threads * rest_t; value = trg_v + side_values * rest_v
        t = atom_t[None, :, None, :] + ref_threads * rest_t[:, None, None, None]
        v = atom_v[None, :, None, :] + ref_values * rest_v[None, None, :, None]
        coords = self.tv[t, v]  # (rest_t, trg_t, rest_v, trg_v)
        coords = coords.reshape(threads, len(rest_v), side_values)
        return coords, side_values

    def __str__(self) -> str:
        return self.description


def _mode_size(layout: CuteLayout, k: int) -> int:
    return math.prod(flatten(layout.mode(k)[0]))


def check_tile(tiler: object, extents: tuple[int, ...] | None, where: str) -> tuple[int, ...]:
    """The tile ``tiler`` as positive integers, at most MAX_ELEMENTS elements and, when the layout's
    ``extents`` are given, of their rank and dividing them; checked before any table is built."""
    sizes = positive_shape(tiler, f"{where}: tile")
    if extents is not None and len(extents) != len(sizes):
        raise BankismError(f"{where}: a rank-{len(sizes)} tile {tuple_text(sizes)} for a rank-{len(extents)} "
                           f"layout of extents {tuple_text(tuple(extents))}")
    if extents is not None and any(e % t for e, t in zip(extents, sizes, strict=True)):
        raise BankismError(f"{where}: the layout's extents {tuple_text(tuple(extents))} are not multiples of "
                           f"the tile {tuple_text(sizes)}")
    return sizes


def _check_threads(threads: int, where: str) -> None:
    if threads > MAX_THREADS_PER_BLOCK:
        raise BankismError(f"{where}: {threads:,} threads; a block has at most {MAX_THREADS_PER_BLOCK}")


def tiled_copy(
    atom: CopyAtom | str, layout_tv: object, tiler: tuple[int, ...], extents: tuple[int, ...] | None = None,
) -> TiledCopy:
    """A tiled copy as ``print(tiled_copy)`` shows it: ``TiledLayout_TV`` and ``Tiler_MN`` (checked
    against the layout's ``extents`` when given)."""
    atom = atom if isinstance(atom, CopyAtom) else copy_atom(atom)
    tv_layout = as_layout(layout_tv)
    if tv_layout.rank != 2 or tv_layout.swizzle is not None:
        raise BankismError(f"TiledLayout_TV {tv_layout}: expected a (thread, value) layout")
    tiler = check_tile(tiler, extents, f"TiledLayout_TV {tv_layout}")
    threads, values = tv_layout.mode_sizes
    _check_threads(threads, f"TiledLayout_TV {tv_layout}")
    if threads * values > MAX_ELEMENTS:
        raise BankismError(f"TiledLayout_TV {tv_layout}: {threads * values:,} (thread, value) pairs; bankism "
                           f"lays out at most {MAX_ELEMENTS:,}")
    table = _table(tv_layout, tv_layout.mode_sizes)
    if table.max() >= math.prod(tiler):
        raise BankismError(f"TiledLayout_TV {tv_layout} reaches index {int(table.max())}, outside the tile "
                           f"{tuple_text(tiler)}")
    return TiledCopy(atom, table, tiler, f"{atom.name}, TV {tv_layout}, tile {tuple_text(tiler)}")


def make_tiled_copy(
    atom: CopyAtom | str, thr_layout: object, val_layout: object = "1:0",
    extents: tuple[int, ...] | None = None,
) -> TiledCopy:
    """CuTe's ``make_tiled_copy(atom, thr_layout, val_layout)``: ``raked_product(thr, val)`` gives the
    (M,N) -> (thread, value) layout; its inverse, shaped (threads, values), is the TV layout. The threads
    (at most MAX_THREADS_PER_BLOCK) and the tile (against the layout's ``extents`` when given) are checked
    before any table is built."""
    atom = atom if isinstance(atom, CopyAtom) else copy_atom(atom)
    thr, val = as_layout(thr_layout), as_layout(val_layout)
    rank = max(thr.rank, val.rank)
    thr_modes = [thr.mode(k) if k < thr.rank else (1, 0) for k in range(rank)]
    val_modes = [val.mode(k) if k < val.rank else (1, 0) for k in range(rank)]
    thr_full = CuteLayout(tuple(s for s, _ in thr_modes), tuple(d for _, d in thr_modes))
    val_full = CuteLayout(tuple(s for s, _ in val_modes), tuple(d for _, d in val_modes))
    thr_sizes, val_sizes = thr_full.mode_sizes, val_full.mode_sizes
    threads, values = thr_full.size, val_full.size
    where = f"make_tiled_copy({atom.name}, {thr}, {val})"
    _check_threads(threads, where)
    tiler = check_tile(tuple(t * v for t, v in zip(thr_sizes, val_sizes, strict=True)), extents, where)
    filler = complement(thr_full, threads * val_full.cosize())
    grids = np.indices(tiler, dtype=np.int64)  # coordinate m_i = v_i + V_i * t_i (raked)
    thread_part = thr_full(*[g // v for g, v in zip(grids, val_sizes, strict=True)])
    value_part = filler(val_full(*[g % v for g, v in zip(grids, val_sizes, strict=True)]))
    target = (thread_part + value_part).reshape(-1, order="F")
    if sorted(target.tolist()) != list(range(threads * values)):
        raise BankismError(f"make_tiled_copy({atom.name}, {thr}, {val}): the thread and value layouts do not "
                           "cover each (thread, value) once; give the TiledLayout_TV instead")
    tv = np.empty(threads * values, np.int64)
    tv[target] = np.arange(target.size)
    description = f"make_tiled_copy({atom.name}, {thr}, {val})"
    return TiledCopy(atom, tv.reshape(threads, values, order="F"), tiler, description)
