"""The tensor memory accelerator (TMA) through libcu++: ``cuda::device::experimental``'s
``cp_async_bulk_tensor_{1..5}d_global_to_shared(&smem, &map, coords..., bar)`` and
``..._shared_to_global(&map, coords..., &smem)``, ``barrier_arrive_tx``, and the fences, commits and
waits around them.

A TMA copy moves a box the descriptor (``CUtensorMap``) describes; explain does not read the descriptor,
so the copy is a ``bulk`` access of the issuing thread at the shared address, listed as not counted as
``cp.async.bulk`` in inline PTX is (no wavefront rule measured), and the destination array's bytes from
that address on hold unknown values afterwards. Limits: the box's size and the multicast of a cluster
copy are not modelled.
"""

from __future__ import annotations

import numpy as np

from bankism.explain.cuda.async_copy import ARRIVAL_TOKEN, SyncObject
from bankism.explain.cuda.builtins import BUILTINS
from bankism.explain.frontend import syntax as S
from bankism.explain.simt import ctype as C
from bankism.explain.simt.machine import SimtMachine
from bankism.explain.simt.memory import SharedVariable
from bankism.explain.simt.values import (
    Failure,
    Mask,
    Pointer,
    Value,
    constant,
    per_thread,
    require_known_offset,
)


def _shared_pointer(machine: SimtMachine, expr: S.Expr, mask: Mask) -> Pointer:
    value = machine.eval(expr, mask)
    if not isinstance(value, Pointer) or not isinstance(value.region, SharedVariable):
        raise Failure(expr, "a TMA copy needs a pointer into a __shared__ array")
    return value


def _tensor_copy(dimensions: int, direction: str):  # noqa: ANN202
    def copy(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
        loading = direction == "global_to_shared"
        expected = 2 + dimensions + (1 if loading else 0)
        if len(expr.args) != expected:
            raise Failure(expr, f"{expr.function}() takes {expected} arguments")
        pointer = _shared_pointer(machine, expr.args[0] if loading else expr.args[-1], mask)
        region = pointer.region
        require_known_offset(pointer, mask, expr)
        addresses = per_thread(np.asarray(pointer.offset, np.int64), machine.threads) + region.base
        machine.shared_region_of(addresses, mask.arr, 1, expr)
        machine.require_certain(expr, mask)
        machine.recorder.record(expr, "bulk", C.UCHAR, region, addresses, mask, machine.context.block_index,
                                span=machine.span, calls=tuple(machine.call_stack))
        if loading:  # the box lands from the address on: its values are not known
            end = region.base + region.size
            for lane in np.flatnonzero(mask.arr):
                machine.store.forget(int(addresses[lane]), int(end - addresses[lane]))
        return constant(C.INT, 0)

    return copy


def _arrive_tx(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    """barrier_arrive_tx(bar, count, bytes): an arrival token, no shared-memory access explain counts."""
    return SyncObject(ARRIVAL_TOKEN)


def _no_data(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    """fence_proxy_async_shared_cta(), cp_async_bulk_commit_group(), ...: no shared-memory access explain
    counts (their arguments are synchronisation objects, not data)."""
    return constant(C.INT, 0)


for _dimensions in range(1, 6):
    for _direction in ("global_to_shared", "shared_to_global"):
        BUILTINS[f"cp_async_bulk_tensor_{_dimensions}d_{_direction}"] = _tensor_copy(_dimensions, _direction)
BUILTINS["barrier_arrive_tx"] = _arrive_tx
for _name in ("barrier_expect_tx", "fence_proxy_async_shared_cta", "fence_proxy_async",
              "cp_async_bulk_commit_group", "cp_async_bulk_wait_group_read", "cp_async_bulk_wait_group"):
    BUILTINS[_name] = _no_data
