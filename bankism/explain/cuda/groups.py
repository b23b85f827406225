"""Cooperative groups (``cooperative_groups.h``) on the SIMT interpreter.

The block- and tile-level API maps onto what the interpreter already does: a thread
block's ``sync()`` is ``__syncthreads()``, a tile of N threads is the N consecutive linear
thread ids ``[k*N, (k+1)*N)`` of the block (as ``tiled_partition`` defines it), its
shuffles and votes are the warp's within segments of N lanes, and ``cg::reduce`` combines
the values of each tile. Grid- and cluster-wide synchronization need other blocks, which a
one-block interpreter does not run: they are refused when executed."""

from __future__ import annotations

import numpy as np

from bankism.arch import LANES
from bankism.explain.cuda.builtins import BUILTINS, Handler, block_barrier, shuffle_source
from bankism.explain.frontend import syntax as S
from bankism.explain.simt import ctype as C
from bankism.explain.simt.machine import SimtMachine
from bankism.explain.simt.values import (
    Failure,
    Functor,
    Group,
    Mask,
    Scalar,
    Value,
    Vector,
    all_known,
    constant,
    flags_per_thread,
    gather_lanes,
    per_thread,
)


def _block(machine: SimtMachine) -> Group:
    return Group(C.GROUP, "block", machine.threads)


def _this_thread_block(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    return _block(machine)


def _this_grid(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    grid = machine.context.grid
    if grid is None:
        raise Failure(expr, "the grid group needs the launch's grid, which is not known: give --grid X,Y,Z")
    return Group(C.GROUP, "grid", grid[0] * grid[1] * grid[2] * machine.threads)


def _this_thread(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    """cg::this_thread(): the calling thread alone, a tile of one of the block."""
    return Group(C.GROUP, "tile", 1, None, machine.threads)


def _this_cluster(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    return Group(C.GROUP, "cluster", machine.threads)


def _coalesced_threads(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    return Group(C.GROUP, "coalesced", LANES, mask.arr.copy(), LANES)


def _tiled_partition(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    if expr.template_args:
        if len(expr.args) != 1:
            raise Failure(expr, "tiled_partition<N>() takes one group")
        size = machine.template_value(expr.template_args[0], mask)
        parent = machine.eval(expr.args[0], mask)
    else:
        if len(expr.args) != 2:
            raise Failure(expr, "tiled_partition() takes a group and a size")
        parent = machine.eval(expr.args[0], mask)
        size = machine.integer_constant(expr.args[1], mask, "tile size")
    if not isinstance(parent, Group) or parent.kind not in ("block", "tile"):
        raise Failure(expr, "unsupported construct: tiled_partition of a group other than a block or a tile")
    # A block whose size is not a multiple of the tile's gets a partial last tile (CUDA allows
    # it: meta_group_size is rounded up, the missing threads simply do not exist).
    partial_ok = parent.kind == "block" and size <= LANES
    if size < 1 or size & (size - 1) or (parent.size % size and not partial_ok) or (
            size > parent.size and not partial_ok):
        raise Failure(expr, f"tiled_partition: a tile of {size} threads of a group of {parent.size}")
    return Group(C.GROUP, "tile", size, None, parent.size)


def _sync(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    if len(expr.args) != 1:
        raise Failure(expr, "sync() takes one group")
    group = machine.eval(expr.args[0], mask)
    if not isinstance(group, Group):
        raise Failure(expr, "sync() needs a cooperative group")
    return _group_sync(machine, group, expr, mask)


def _group_sync(machine: SimtMachine, group: Group, expr: S.Node, mask: Mask) -> Value:
    if group.kind == "grid":
        raise Failure(expr, "unsupported construct: grid-wide synchronization (grid sync): bankism runs one "
                            "thread block at a time")
    if group.kind == "cluster":
        raise Failure(
            expr,
            "unsupported construct: cluster-wide synchronization (cluster sync): bankism runs "
            "one thread block at a time",
        )
    if group.kind == "block":
        block_barrier(machine, expr, mask, "the thread block's sync()")
    return constant(C.INT, 0)


def _functor(op: str) -> Handler:
    def handler(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
        return Functor(C.FUNCTOR, op)

    return handler


_COMBINE = {
    "plus": np.add,
    "less": np.minimum,
    "greater": np.maximum,
    "bit_and": np.bitwise_and,
    "bit_or": np.bitwise_or,
    "bit_xor": np.bitwise_xor,
}


def _reduce(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    """cg::reduce(tile, value, op): every thread of a tile gets op over the tile's values."""
    if len(expr.args) != 3:
        raise Failure(expr, "reduce() takes a group, a value and an operation")
    group = machine.eval(expr.args[0], mask)
    value = machine.eval(expr.args[1], mask)
    op = machine.eval(expr.args[2], mask)
    if not isinstance(group, Group) or group.kind not in ("tile", "coalesced"):
        raise Failure(expr, "unsupported construct: cg::reduce over a group other than a tile")
    if not isinstance(op, Functor) or op.op not in _COMBINE:
        raise Failure(expr, "unsupported construct: cg::reduce with this operation")
    if not isinstance(value, Scalar):
        raise Failure(expr, f"unsupported construct: cg::reduce of a {value.type}")
    return _combine(machine, group, value, _COMBINE[op.op], mask)


def _combine(machine: SimtMachine, group: Group, value: Scalar, ufunc: np.ufunc, mask: Mask) -> Scalar:
    n = machine.threads
    members = mask.arr if group.members is None else group.members & mask.arr
    segment = machine.lanes // group.size
    data = per_thread(value.data, n)
    known = flags_per_thread(value.known, n)
    count = int(segment.max()) + 1
    lanes = np.flatnonzero(members)
    first = np.full(count, -1, np.int64)
    first[segment[lanes[::-1]]] = lanes[::-1]
    result = np.zeros(count, value.type.dtype)
    seeded = first >= 0
    result[seeded] = data[first[seeded]]
    rest = lanes[first[segment[lanes]] != lanes]
    with np.errstate(all="ignore"):
        ufunc.at(result, segment[rest], data[rest])
    unknown_lanes = np.zeros(count, np.int64)
    np.add.at(unknown_lanes, segment[lanes], (~known[lanes]).astype(np.int64))
    known_out = unknown_lanes[segment] == 0
    return Scalar(value.type, result[segment], known_out, None, value.taint)


def group_rank(machine: SimtMachine, group: Group) -> np.ndarray:
    tid = machine.lanes
    if group.kind == "block":
        return tid
    if group.kind == "grid":
        index = machine.context.block_index
        grid = machine.context.grid
        linear = index[0] + grid[0] * (index[1] + grid[1] * index[2])
        return linear * machine.threads + tid
    if group.kind == "coalesced":
        members = group.members.astype(np.int64)
        warp = tid // LANES
        below = np.zeros(tid.size, np.int64)
        for w in np.unique(warp):
            lanes = warp == w
            below[lanes] = np.cumsum(members[lanes]) - members[lanes]
        return below
    return tid % group.size


def _coalesced_size(machine: SimtMachine, group: Group) -> np.ndarray:
    warp = machine.lanes // LANES
    counts = np.bincount(warp, weights=group.members.astype(np.int64)).astype(np.int64)
    return counts[warp]


def _shuffle(machine: SimtMachine, group: Group, kind: str, expr: S.MethodCall, mask: Mask) -> Value:
    if len(expr.args) != 2:
        raise Failure(expr, f"{expr.method}() takes a value and a lane")
    if group.kind not in ("tile", "coalesced") or group.size > LANES:
        raise Failure(expr, f"unsupported construct: {expr.method}() on a group larger than a warp")
    value = machine.eval(expr.args[0], mask)
    selector = machine.eval(expr.args[1], mask)
    if not isinstance(selector, Scalar) or not all_known(selector.known, mask):
        raise Failure(expr, f"{expr.method}() lane argument must be a known integer")
    if group.kind == "coalesced" and not group.members.all() and kind != "idx":
        raise Failure(expr, f"unsupported construct: {expr.method}() on a partly active coalesced group")
    width = group.size
    tid = machine.lanes
    lane = tid % LANES
    amount = per_thread(np.asarray(selector.data, np.int64), machine.threads)
    index = tid - lane + shuffle_source(lane, amount, width, kind)
    index = np.where(index < machine.threads, index, tid)
    return gather_lanes(value, index)


def _vote(machine: SimtMachine, group: Group, kind: str, expr: S.MethodCall, mask: Mask) -> Value:
    if len(expr.args) != 1:
        raise Failure(expr, f"{expr.method}() takes one predicate")
    if group.kind not in ("tile", "coalesced") or group.size > LANES:
        raise Failure(expr, f"unsupported construct: {expr.method}() on a group larger than a warp")
    predicate = machine.truth(expr.args[0], mask)
    members = mask.arr if group.members is None else group.members & mask.arr
    bits = per_thread(np.asarray(predicate, bool), machine.threads) & members
    size = group.size
    segment = machine.lanes // size
    rank = machine.lanes % size
    count = int(segment.max()) + 1
    ballot = np.zeros(count, np.int64)
    np.add.at(ballot, segment, bits.astype(np.int64) << rank)
    active = np.zeros(count, np.int64)
    np.add.at(active, segment, members.astype(np.int64) << rank)
    per_tile = ballot[segment]
    if kind == "ballot":
        return Scalar(C.UINT, per_tile.astype(np.uint32))
    result = per_tile != 0 if kind == "any" else per_tile == active[segment]
    return Scalar(C.INT, result.astype(np.int32))


def group_method(machine: SimtMachine, group: Group, expr: S.MethodCall, mask: Mask) -> Value:
    """``group.method(args)`` for a cooperative group."""
    name = expr.method
    if name == "sync":
        return _group_sync(machine, group, expr, mask)
    if name in ("shfl", "shfl_down", "shfl_up", "shfl_xor"):
        return _shuffle(
            machine,
            group,
            {"shfl": "idx", "shfl_down": "down", "shfl_up": "up", "shfl_xor": "xor"}[name],
            expr,
            mask,
        )
    if name in ("any", "all", "ballot"):
        return _vote(machine, group, name, expr, mask)
    if expr.args:
        raise Failure(expr, f"unsupported construct: {name}() of a cooperative group")
    if group.kind == "cluster":
        raise Failure(expr, f"unsupported construct: {name}() of a thread block cluster")
    if name == "thread_rank":
        return Scalar(
            C.UINT if group.kind != "grid" else C.ULLONG,
            group_rank(machine, group).astype(np.uint32 if group.kind != "grid" else np.uint64),
        )
    if name in ("size", "num_threads"):
        if group.kind == "coalesced":
            return Scalar(C.UINT, _coalesced_size(machine, group).astype(np.uint32))
        return constant(C.ULLONG if group.kind == "grid" else C.UINT, group.size)
    if name in ("meta_group_rank", "meta_group_size") and group.kind == "tile":
        parent = group.parent_size or machine.threads
        if name == "meta_group_size":
            return constant(C.UINT, -(-parent // group.size))
        return Scalar(C.UINT, ((machine.lanes % parent) // group.size).astype(np.uint32))
    if group.kind == "block":
        vectors = {
            "group_index": "blockIdx",
            "thread_index": "threadIdx",
            "dim_threads": "blockDim",
            "group_dim": "blockDim",
        }
        if name in vectors:
            vector = machine.builtin_variables[vectors[name]]
            return Vector(C.VECTORS["dim3"], vector.comps)
    if group.kind == "grid" and name == "is_valid":
        return constant(C.BOOL, 1)
    raise Failure(expr, f"unsupported construct: {name}() of a cooperative group")


BUILTINS["this_thread_block"] = _this_thread_block
BUILTINS["this_thread"] = _this_thread
BUILTINS["this_grid"] = _this_grid
BUILTINS["this_cluster"] = _this_cluster
BUILTINS["this_multi_grid"] = _this_grid
BUILTINS["coalesced_threads"] = _coalesced_threads
BUILTINS["tiled_partition"] = _tiled_partition
BUILTINS["sync"] = _sync
BUILTINS["reduce"] = _reduce
for _op in _COMBINE:
    BUILTINS[_op] = _functor(_op)
