"""Asynchronous copies into shared memory written in C++, and the objects that order them:
``cuda::memcpy_async`` (with a ``cuda::pipeline`` or a ``cuda::barrier``),
``cooperative_groups::memcpy_async`` / ``wait`` / ``wait_prior``, and the primitives
``__pipeline_memcpy_async`` / ``__pipeline_commit`` / ``__pipeline_wait_prior``.

Each copy is recorded as the instructions nvcc 13.0 emits for it on sm_90 (read from SASS,
traces/wmma_sass/memcpy_async.sass.txt, and traced on the H100, traces/memcpy_async_tiles.json),
following the libcu++ and cooperative-groups headers of CUDA 13.0:

* ``cuda::memcpy_async([group,] dst, src, size, sync)``: alignment ``A`` = the larger of
  ``alignof(T)`` and ``N`` of a ``cuda::aligned_size_t<N>`` size. With a shared ``cuda::barrier``
  and ``A >= 16``, thread 0 of the group issues one bulk copy (``UBLKCP``: listed under
  ``unmodelled``); otherwise, with ``A >= 4``, ``cp.async`` of ``min(A, 16)`` bytes (``LDGSTS``,
  ``.cg`` for 16) at byte offsets ``rank * w + i * size(group) * w``; below 4, plain loads and
  stores of ``A`` bytes at the same offsets.
* ``cooperative_groups::memcpy_async(group, dst, src, bytes)``: ``cp.async`` of the alignment
  ``aligned_size_t<N>`` or ``alignof(T)`` gives (4, 8 or 16 bytes), element ``rank + i * size``;
  a tile's copy ends with one round in which every thread copies one of the remaining
  elements (``min(rank, remaining - 1)``). 1- and 2-byte alignments, where the header picks
  the copy width from the runtime addresses, are refused.
* ``__pipeline_memcpy_async(dst, src, size[, zfill])``: one ``cp.async`` of ``size`` bytes.

The data arrive at once (explain does not model the wait); pipeline and barrier operations
(``producer_acquire``, ``consumer_wait``, ``arrive_and_wait``, ``init``, ...) touch no data
explain counts (``mbarrier`` objects live in shared memory, as in docs/explain.md, "Inline PTX")."""

from __future__ import annotations

import numpy as np

from bankism.explain.cuda.builtins import BUILTINS
from bankism.explain.cuda.groups import group_rank
from bankism.explain.frontend import syntax as S
from bankism.explain.simt import ctype as C
from bankism.explain.simt.bindings import OBJECT_METHODS, OBJECT_TYPES, MemLV
from bankism.explain.simt.ctype import CType
from bankism.explain.simt.machine import SimtMachine
from bankism.explain.simt.memory import GlobalMatrix, SharedVariable, global_load
from bankism.explain.simt.values import (
    Failure,
    Group,
    Mask,
    Pointer,
    Scalar,
    Value,
    all_known,
    constant,
    per_thread,
    require_known_offset,
)

PIPELINE = CType("cuda::pipeline", "sync")
BARRIER = CType("cuda::barrier", "sync", 8, 8)
#: A TMA descriptor (``CUtensorMap``, 128 bytes aligned to 64): passed to ``cp.async.bulk.tensor`` by address,
#: never read by explain (the copy's shared side is what is counted, ptx_shared.py).
TENSOR_MAP = CType("CUtensorMap", "sync", 128, 64)
ARRIVAL_TOKEN = CType("cuda::barrier::arrival_token", "sync", 8, 8)


class SyncObject:
    """A ``cuda::pipeline`` (a thread's or a block's) as a value: nothing explain tracks."""

    __slots__ = ("type",)

    def __init__(self, type: CType) -> None:
        self.type = type


def sync_type(machine: SimtMachine, type_name: S.TypeName) -> CType | None:
    """``cuda::barrier<...>`` (8 bytes), ``cuda::pipeline<...>``, and
    ``cuda::pipeline_shared_state<scope, N>`` (8 + 16 N bytes, measured with nvcc 13.0)."""
    base, scope = type_name.base, type_name.scope
    if base in machine.program.structs and not scope.endswith("cuda"):
        return None
    if base in ("CUtensorMap", "CUtensorMap_st") and not scope:
        return TENSOR_MAP
    if base == "arrival_token":  # `cuda::barrier<...>::arrival_token`: what arrive() returns, wait() takes
        return ARRIVAL_TOKEN
    if base == "barrier" and (scope.endswith("cuda") or type_name.args):
        return BARRIER
    if base == "pipeline" and (scope.endswith("cuda") or type_name.args):
        return PIPELINE
    if base == "pipeline_shared_state" and type_name.args and len(type_name.args) == 2:
        full = Mask(np.ones(machine.threads, bool), True, False)
        stages = machine.template_value(type_name.args[1], full)
        return CType(f"cuda::pipeline_shared_state<{stages}>", "sync", 8 + 16 * stages, 8)
    return None


OBJECT_TYPES.append(sync_type)


def _method(machine: SimtMachine, target, expr: S.MethodCall, mask: Mask) -> Value:  # noqa: ANN001
    """A pipeline's or barrier's member function: no shared-memory access explain counts."""
    known = ("producer_acquire", "producer_commit", "consumer_wait", "consumer_wait_for",
             "consumer_wait_until", "consumer_release", "quit", "arrive_and_wait", "arrive", "wait",
             "arrive_and_drop", "wait_parity", "try_wait", "try_wait_parity")
    if expr.method not in known and not expr.method.startswith("~"):  # (a destructor, by any alias)
        raise Failure(expr, f"unsupported construct: {expr.method}() of {_type_of(machine, target)}")
    return SyncObject(ARRIVAL_TOKEN) if expr.method == "arrive" else constant(C.INT, 0)


def _type_of(machine: SimtMachine, target) -> CType:  # noqa: ANN001
    return target.type if isinstance(target, MemLV) else machine.lvalue_type(target)


OBJECT_METHODS["sync"] = _method


def _make_pipeline(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    return SyncObject(PIPELINE)


def _no_op(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    """init(&bar, n), pipeline_consumer_wait_prior<N>(pipe), __pipeline_commit(), ...: no data."""
    return constant(C.INT, 0)


# --- the copies -----------------------------------------------------------------------------


def _pointer(machine: SimtMachine, expr: S.Expr, mask: Mask) -> Pointer:
    value = machine.eval(expr, mask)
    if not isinstance(value, Pointer):
        raise Failure(expr, "an asynchronous copy needs pointers")
    return value


def _size(machine: SimtMachine, expr: S.Expr, mask: Mask) -> tuple[int, int]:
    """(bytes, N of cuda::aligned_size_t<N>, else 1); the size must be known and uniform."""
    hint = 1
    if isinstance(expr, S.Call) and expr.function == "aligned_size_t" and expr.template_args:
        hint = machine.template_value(expr.template_args[0], mask)
        if len(expr.args) != 1:
            raise Failure(expr, "aligned_size_t takes one size")
        expr = expr.args[0]
    return machine.integer_constant(expr, mask, "the size of an asynchronous copy"), hint


def _alignof(pointer: Pointer) -> int:
    pointee = pointer.type.elem
    return 1 if pointee is None or pointee.kind == "void" else max(1, pointee.align)


def _rank_and_size(machine: SimtMachine, group: Group | None) -> tuple[np.ndarray, int]:
    if group is None:
        return np.zeros(machine.threads, np.int64), 1
    return np.asarray(group_rank(machine, group), np.int64), group.size


def _copy(machine: SimtMachine, expr: S.Call, mask: Mask, dst: Pointer, src: Pointer,
          offsets: list[np.ndarray], width: int, how: str) -> None:
    """Record and perform the copies: per round, the threads of ``mask`` whose offset is not
    negative copy ``width`` bytes at ``offsets[round]`` (bytes from dst and src); ``how`` is
    ``ldgsts``, ``bulk`` or ``plain``."""
    if not isinstance(dst.region, SharedVariable):
        if how != "plain":
            raise Failure(expr, "an asynchronous copy whose destination is not shared memory")
        return
    region = dst.region
    require_known_offset(dst, mask, expr)
    base = per_thread(np.asarray(dst.offset, np.int64), machine.threads) + region.base
    source = per_thread(np.asarray(src.offset, np.int64), machine.threads)
    for offset in offsets:
        running = Mask.of(mask.arr & (offset >= 0))
        if running.none:
            continue
        addresses = base + np.maximum(offset, 0)
        machine.shared_region_of(addresses, running.arr, width if how != "bulk" else 1, expr)
        t = C.UCHAR if width == 1 else C.USHORT if width == 2 else CType(
            f"unsigned charx{width}", "vec", width, min(16, width), None, False, 0, C.UCHAR, width)
        op = {"ldgsts": "ldgsts", "bulk": "bulk", "plain": "store"}[how]
        machine.require_certain(expr, running)
        machine.recorder.record(expr, op, t, region, addresses, running, machine.context.block_index,
                                span=machine.span, calls=tuple(machine.call_stack))
        _write(machine, addresses, source + np.maximum(offset, 0), width, src, running)


def _write(machine: SimtMachine, addresses: np.ndarray, source: np.ndarray, width: int, src: Pointer,
           mask: Mask) -> None:
    """The copied bytes carry the global elements' provenance (as cp.async in inline PTX)."""
    lanes = mask.arr
    if not isinstance(src.region, GlobalMatrix):
        machine.store.store(addresses[lanes], C.UCHAR, np.zeros(lanes.sum(), np.uint8),
                            np.zeros(lanes.sum(), bool), np.full(lanes.sum(), -1, np.int64))
        return
    element = src.type.elem.scalar if src.type.elem is not None and src.type.elem.kind != "void" else C.UCHAR
    step = element.size if element.size and width % element.size == 0 else 1
    element = element if step == element.size else C.UCHAR
    for k in range(0, width, step):
        value = global_load(src.region, source + k, element)
        codes = value.src if value.src is not None else -1
        src_codes = per_thread(np.asarray(codes, np.int64), machine.threads)
        machine.store.store(addresses[lanes] + k, element, np.zeros(lanes.sum(), element.dtype),
                            np.zeros(lanes.sum(), bool), src_codes[lanes])


def _rounds(rank: np.ndarray, size: int, bytes_: int, width: int) -> list[np.ndarray]:
    """Byte offsets per round of ``for (o = rank * w; o < bytes; o += size * w)``; -1 where a
    thread has finished."""
    out = []
    start = rank * width
    step = size * width
    rounds = -(-bytes_ // step) if step else 0
    for i in range(rounds):
        offset = start + i * step
        out.append(np.where(offset < bytes_, offset, -1))
    return out


def _cuda_memcpy_async(machine: SimtMachine, expr: S.Call, mask: Mask, group: Group | None,
                       args: list[S.Expr]) -> Value:
    dst, src = _pointer(machine, args[0], mask), _pointer(machine, args[1], mask)
    size, hint = _size(machine, args[2], mask)
    sync = _sync_kind(machine, args[3], mask)
    align = max(_alignof(dst), hint)
    rank, count = _rank_and_size(machine, group)
    if sync == "barrier" and align >= 16 and isinstance(dst.region, SharedVariable):
        first = Mask.of(mask.arr & (rank == 0))
        if not first.none:
            _copy(machine, expr, first, dst, src, [np.zeros(machine.threads, np.int64)], size, "bulk")
        return constant(C.INT, 0)
    width = min(align, 16)
    how = "ldgsts" if align >= 4 and isinstance(dst.region, SharedVariable) else "plain"
    _copy(machine, expr, mask, dst, src, _rounds(rank, count, size, width), width, how)
    return constant(C.INT, 0)


def _sync_kind(machine: SimtMachine, expr: S.Expr, mask: Mask) -> str:
    target = machine.lvalue(expr, mask) if not isinstance(expr, S.Call) else None
    t = _type_of(machine, target) if target is not None else machine.eval(expr, mask).type
    if t.kind != "sync":
        raise Failure(expr, "memcpy_async needs a cuda::pipeline or cuda::barrier")
    return "barrier" if t is BARRIER or t.name == BARRIER.name else "pipeline"


def _cg_memcpy_async(machine: SimtMachine, expr: S.Call, mask: Mask, group: Group,
                     args: list[S.Expr]) -> Value:
    """cooperative_groups::memcpy_async(group, dst, src, bytes) and (group, dst, dst_count,
    src, src_count)."""
    dst = _pointer(machine, args[0], mask)
    if len(args) == 4:
        src = _pointer(machine, args[2], mask)
        count_d, hint = _size(machine, args[1], mask)
        count_s, _ = _size(machine, args[3], mask)
        elem = max(1, dst.type.elem.size) if dst.type.elem is not None else 1
        bytes_, hint = min(count_d, count_s) * elem, max(hint, _alignof(dst))
    else:
        src = _pointer(machine, args[1], mask)
        bytes_, hint = _size(machine, args[2], mask)
        if hint == 1:
            hint = _alignof(dst)
    width = min(hint, 16)
    if width < 4:
        raise Failure(expr, "unsupported construct: cooperative_groups::memcpy_async with "
                            f"{width}-byte alignment (the header picks the copy width from the runtime "
                            "addresses; give cuda::aligned_size_t<16>)")
    count = bytes_ // width
    rank, size = _rank_and_size(machine, group)
    if group.kind == "tile" and size > 1:
        full = count & ~(size - 1)
        rounds = [(rank + i) * width for i in range(0, full, size)]
        rest = count & (size - 1)
        if rest:
            rounds.append((full + np.minimum(rank, rest - 1)) * width)
    else:
        rounds = [np.where(rank + i < count, (rank + i) * width, -1) for i in range(0, count, size)]
    how = "ldgsts" if isinstance(dst.region, SharedVariable) else "plain"
    _copy(machine, expr, mask, dst, src, rounds, width, how)
    return constant(C.INT, 0)


def _memcpy_async(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    """Both libraries' memcpy_async, told apart by their arguments."""
    args = expr.args
    first = machine.eval(args[0], mask) if args else None
    if isinstance(first, Group):
        if len(args) == 5 and _is_sync(machine, args[4], mask):
            return _cuda_memcpy_async(machine, expr, mask, first, args[1:])
        if len(args) in (4, 5):
            return _cg_memcpy_async(machine, expr, mask, first, args[1:])
    elif len(args) == 4:
        return _cuda_memcpy_async(machine, expr, mask, None, args)
    raise Failure(expr, "unsupported construct: this form of memcpy_async")


def _is_sync(machine: SimtMachine, expr: S.Expr, mask: Mask) -> bool:
    try:
        _sync_kind(machine, expr, mask)
    except Failure:
        return False
    return True


def _pipeline_memcpy_async(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    """__pipeline_memcpy_async(dst, src, size[, zfill]): cp.async of size bytes (4, 8, 16)."""
    if len(expr.args) not in (3, 4):
        raise Failure(expr, "__pipeline_memcpy_async() takes 3 or 4 arguments")
    dst, src = _pointer(machine, expr.args[0], mask), _pointer(machine, expr.args[1], mask)
    size = machine.integer_constant(expr.args[2], mask, "the size of __pipeline_memcpy_async")
    if size not in (4, 8, 16):
        raise Failure(expr, "__pipeline_memcpy_async: the size must be 4, 8 or 16")
    _copy(machine, expr, mask, dst, src, [np.zeros(machine.threads, np.int64)], size, "ldgsts")
    if len(expr.args) == 4:
        zfill = machine.eval(expr.args[3], mask)
        if not isinstance(zfill, Scalar) or not all_known(zfill.known, mask) or np.any(zfill.data):
            _zero_tail(machine, expr, mask, dst, size, zfill)
    return constant(C.INT, 0)


def _zero_tail(machine: SimtMachine, expr: S.Call, mask: Mask, dst: Pointer, size: int,
               zfill: Value) -> None:
    """The last ``zfill`` bytes of the copy are zeros (unknown when zfill is not known)."""
    if not isinstance(dst.region, SharedVariable) or not isinstance(zfill, Scalar):
        return
    require_known_offset(dst, mask, expr)
    base = per_thread(np.asarray(dst.offset, np.int64), machine.threads) + dst.region.base
    fill = per_thread(np.asarray(zfill.data, np.int64), machine.threads)
    known = per_thread(np.asarray(zfill.known, bool), machine.threads)
    for k in range(size):
        lanes = mask.arr & (k >= size - fill)
        unsure = mask.arr & ~known
        if lanes.any():
            machine.store.store(base[lanes] + k, C.UCHAR, np.zeros(lanes.sum(), np.uint8),
                                np.ones(lanes.sum(), bool), np.full(lanes.sum(), -1, np.int64))
        if unsure.any():
            machine.store.store(base[unsure] + k, C.UCHAR, np.zeros(unsure.sum(), np.uint8),
                                np.zeros(unsure.sum(), bool), np.full(unsure.sum(), -1, np.int64))


BUILTINS["memcpy_async"] = _memcpy_async
BUILTINS["__pipeline_memcpy_async"] = _pipeline_memcpy_async
BUILTINS["make_pipeline"] = _make_pipeline
for _name in ("init", "__pipeline_commit", "__pipeline_wait_prior", "__pipeline_arrive_on",
              "pipeline_consumer_wait_prior", "pipeline_producer_commit", "wait", "wait_prior"):
    BUILTINS[_name] = _no_op
