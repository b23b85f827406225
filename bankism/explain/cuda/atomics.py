"""CUDA's atomic built-ins (atomicAdd, atomicCAS, ... and their _block/_system forms): recorded as
shared-memory atomics with the SASS ``isa.atomic_form`` gives, and the memory updated as serial execution
would leave it (unknown where the order matters)."""

from __future__ import annotations

import numpy as np

from bankism.arch import LANES, get_arch
from bankism.explain.cuda.registry import BUILTINS, arguments
from bankism.explain.frontend import syntax as S
from bankism.explain.simt.bindings import MemLV
from bankism.explain.simt.machine import SimtMachine
from bankism.explain.simt.memory import GlobalMatrix, SharedVariable
from bankism.explain.simt.values import (
    Failure,
    Mask,
    Pointer,
    Scalar,
    UnknownAddress,
    Value,
    Vector,
    convert,
    flags_per_thread,
    per_thread,
    unknown,
)
from bankism.isa import atomic_form, warp_aggregated

_ATOMIC_UFUNCS = {
    "atomicAdd": np.add, "atomicSub": np.subtract, "atomicMax": np.maximum, "atomicMin": np.minimum,
    "atomicAnd": np.bitwise_and, "atomicOr": np.bitwise_or, "atomicXor": np.bitwise_xor,
}
_ATOMIC_OTHERS = ("atomicExch", "atomicCAS", "atomicInc", "atomicDec")


def _atomic(machine: SimtMachine, expr: S.Call, mask: Mask) -> Value:
    """An atomic read-modify-write: on shared memory it is recorded as an "atomic" access and
    the memory gets the value serial execution gives (unknown where the order matters)."""
    values = arguments(machine, expr, mask, (2, 3))
    pointer = values[0]
    if not isinstance(pointer, Pointer):
        raise Failure(expr, f"{expr.function}() needs a pointer as first argument")
    t = pointer.type.elem
    if isinstance(pointer.region, GlobalMatrix):  # any type (half2 split-K sums): no shared access
        why = "the old value returned by an atomic on global memory"
        if t.kind == "vec":
            return Vector(t, [unknown(t.elem, why) for _ in range(t.count)])
        if t.is_arithmetic:
            return unknown(t, why)
    if not t.is_arithmetic:
        raise Failure(expr, f"unsupported construct: {expr.function}() on {t}")
    base = _base_function(expr.function)
    if not isinstance(pointer.region, SharedVariable):
        raise Failure(expr, f"unsupported construct: {expr.function}() on this memory")
    target = MemLV(pointer.region, pointer.offset, t, expr, pointer.known, pointer.taint)
    operand_is_one = len(expr.args) > 1 and isinstance(expr.args[1], S.Literal) and expr.args[1].value == 1
    kind = "f" if t.kind == "float" else ("s" if t.signed else "u")
    used = machine.discarded is not expr
    form = atomic_form(base, kind, t.size, result_used=used, operand_is_one=operand_is_one)
    if form.refusal or form.atomic_op is None:
        raise Failure(expr, f"unsupported construct: {form.refusal or expr.function + '() on ' + str(t)}")
    constant = len(expr.args) > 1 and isinstance(expr.args[1], S.Literal)
    aggregated = (form.atomic_op != "popc_inc" and warp_aggregated(base, kind, t.size, used, constant)
                  and _uniform_in_source(machine, expr.args[0]))
    try:
        if form.loop == "cas_spin":
            addresses = _cas_spin_loop(machine, target, mask)
        else:
            issuing = _leaders(machine, target, mask) if aggregated else None
            addresses = machine.record_shared_access(target, mask if issuing is None else issuing, "atomic",
                                                     form.atomic_op)
            _label(machine, expr, "atomic",
                   form.sass + ("" if issuing is None else " (one lane, after a warp reduction)"))
    except UnknownAddress as listed:  # listed, not counted: any element may have changed
        if form.loop == "cas_spin":  # the loop's first LDS was recorded; its CAS, at least once, too
            _label(machine, expr, "load", "LDS (of the CAS retry loop)", unknown=True)
            machine.recorder.record_unknown(
                expr, "atomic", t, pointer.region, mask, machine.context.block_index,
                listed.why, "cas_spin", machine.span, tuple(machine.call_stack))
            _label(machine, expr, "atomic", "ATOMS.CAST.SPIN (retry loop)", unknown=True)
        else:
            _label(machine, expr, "atomic", form.sass, unknown=True)
        machine.forget_shared(pointer.region)
        return unknown(t, "the old value returned by an atomic")
    running = addresses[mask.arr]
    operand = convert(values[1], t) if isinstance(values[1], Scalar) else None
    if operand is None:
        raise Failure(expr, f"{expr.function}() needs an arithmetic operand")
    store = machine.store
    unique, inverse = np.unique(running, return_inverse=True)
    old_data, old_known, _ = store.load(unique, t)
    ufunc = _ATOMIC_UFUNCS.get(base)
    operand_data = per_thread(operand.data, machine.threads)[mask.arr]
    operand_known = flags_per_thread(operand.known, machine.threads)[mask.arr]
    bitwise = ufunc in (np.bitwise_and, np.bitwise_or, np.bitwise_xor)
    if ufunc is not None and not (bitwise and t.kind == "float"):
        new_data = old_data.copy()
        with np.errstate(all="ignore"):
            ufunc.at(new_data, inverse, operand_data.astype(t.dtype))
        known_per_address = old_known & np.bincount(inverse, weights=~operand_known,
                                                    minlength=unique.size).astype(int) == 0
    else:
        new_data = old_data
        known_per_address = np.zeros(unique.size, bool)
    store.store(unique, t, new_data, known_per_address, np.full(unique.size, -1, np.int64))
    shared_once = np.bincount(inverse, minlength=unique.size)[inverse] == 1
    result = np.zeros(machine.threads, t.dtype)
    result_known = np.zeros(machine.threads, bool)
    result[mask.arr] = old_data[inverse]
    result_known[mask.arr] = old_known[inverse] & shared_once
    return Scalar(t, result, result_known, None, "the old value returned by an atomic")


def _uniform_in_source(machine: SimtMachine, address: S.Expr) -> bool:
    """Whether nvcc's divergence analysis sees ``address`` as one value for the warp: built only from shared
    variables, literals, blockIdx/gridDim/blockDim and the kernel's template and scalar parameters (no
    threadIdx, local variable, call or load). Conservative: a uniform local variable is not followed."""
    kernel = machine.kernel
    allowed = {"blockIdx", "gridDim", "blockDim"} | {array.name for array in machine.shared_arrays}
    allowed |= {param.name for param in kernel.template_params}
    allowed |= {param.name for param in kernel.params if param.type.pointers == 0 and not param.type.dims}
    for node in S.walk(address):
        if isinstance(node, S.Call | S.MethodCall) or isinstance(node, S.Name) and node.name not in allowed:
            return False
    return True


def _leaders(machine: SimtMachine, target: MemLV, mask: Mask) -> Mask | None:
    """The lowest running lane of each warp, when every warp's running lanes share one address (else None:
    the call is issued as written)."""
    offsets = per_thread(np.asarray(target.offset, np.int64), machine.threads)
    known = flags_per_thread(target.known, machine.threads)
    if not bool(np.all(known[mask.arr])):
        return None
    leaders = np.zeros(machine.threads, bool)
    for start in range(0, machine.threads, LANES):
        lanes = np.flatnonzero(mask.arr[start:start + LANES]) + start
        if lanes.size and np.any(offsets[lanes] != offsets[lanes[0]]):
            return None
        if lanes.size:
            leaders[lanes[0]] = True
    return Mask.of(leaders)


def _label(machine: SimtMachine, expr: S.Node, op: str, sass: str, unknown: bool = False) -> None:
    """Label the site recorded for ``expr`` and ``op`` (of addresses not known when ``unknown``) with
    the SASS it compiles to."""
    calls = tuple(id(call) for _, call in machine.call_stack)
    site = machine.recorder.sites.get((id(expr), op, calls) + (("unknown",) if unknown else ()))
    if site is not None:
        site.sass = sass


def _cas_spin_loop(machine: SimtMachine, target: MemLV, mask: Mask) -> np.ndarray:
    """Record the LDS + ATOMS.CAST.SPIN iterations of a 4-byte CAS retry loop (float atomicAdd on sm_90).

    Measured on the H100 (traces/probes/sm_90_atomics.json, 139 probes of f32 and f16x2 adds, loop counts
    and LDS wavefronts exact): in each iteration every remaining lane loads its word and issues its CAS;
    in each bank the lowest remaining lane succeeds, the others retry.
    """
    arch = get_arch(machine.context.arch)
    remaining = mask.arr.copy()
    node = target.node
    first = None
    while remaining.any():
        current = Mask.of(remaining.copy())
        addresses = machine.record_shared_access(target, current, "load")
        _label(machine, node, "load", "LDS (of the CAS retry loop)")
        machine.record_shared_access(target, current, "atomic", "cas_spin")
        _label(machine, node, "atomic", "ATOMS.CAST.SPIN (retry loop)")
        first = addresses if first is None else first
        threads = remaining.size
        for start in range(0, threads, LANES):
            lanes = np.flatnonzero(remaining[start:start + LANES]) + start
            banks = arch.bank_of(addresses[lanes])
            _, winners = np.unique(banks, return_index=True)  # the lowest lane of each bank (arch.bank_of)
            remaining[lanes[winners]] = False
    return first if first is not None else machine.record_shared_access(target, mask, "atomic", "cas_spin")


def _base_function(name: str) -> str:
    for suffix in ("_block", "_system"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


for _name in list(_ATOMIC_UFUNCS) + list(_ATOMIC_OTHERS):
    BUILTINS[_name] = _atomic
    BUILTINS[_name + "_block"] = _atomic
    BUILTINS[_name + "_system"] = _atomic
