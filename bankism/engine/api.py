"""The engine's API: ``simulate`` (one kind, per-instruction results) and ``simulate_many`` (mixed
kinds, per-kind sums), both running the one Numba kernel over pieces of the batch in parallel."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import partial

import numpy as np

from bankism.arch import DEFAULT_ARCH, LANES, Architecture, get_arch
from bankism.engine import parallel
from bankism.engine.inputs import as_addresses, as_masks, check_arguments, geometry, narrow, resolve
from bankism.engine.result import SimulationResult
from bankism.engine.table import ErrorCode, KindColumn, TotalColumn, WorstColumn, kind_table
from bankism.errors import BankismError

ERROR_TEXT = {
    ErrorCode.NEGATIVE: "address {a} is negative",
    ErrorCode.RANGE: "address {a} + {w} bytes is past the {size}-byte shared memory of {arch}",
    ErrorCode.ALIGN: "address {a} is not aligned to the {w}-byte access width",
}


#: Batches up to this many warp-instructions run the kernel as plain Python while Numba is not
#: imported (about 0.1 ms each, against about 0.5 s to import Numba and load the compiled kernel).
PYTHON_KERNEL_MAX = 2000
#: ... as long as the process has run no more than this many in plain Python: many small batches then pay
#: the import once instead (``advise`` on transpose32.json: 2.4-2.6 s in one process before, 1.6-1.9 s).
PYTHON_KERNEL_BUDGET = 2000
_python_kernel_used = [0]


def kernel_for(n: int):  # noqa: ANN201
    """The kernel to run ``n`` warp-instructions with: the compiled one, or for a small batch in a
    process that has not imported Numba and has not yet run PYTHON_KERNEL_BUDGET warp-instructions in
    plain Python, the same source as plain Python (``kernel_python``)."""
    used = _python_kernel_used[0] + n
    if n <= PYTHON_KERNEL_MAX and used <= PYTHON_KERNEL_BUDGET and "numba" not in sys.modules:
        _python_kernel_used[0] = used
        from bankism.engine.kernel_python import simulate_kernel
    else:
        from bankism.engine.kernel import simulate_kernel
    return simulate_kernel


def run_kernel(rows, masks, kind_of, tables, n_kinds, per_record):
    """Run the kernel over the batch in pieces (``parallel``); returns the per-record arrays and the
    per-piece sums, worst instructions and errors, with instruction indices counted from 0."""
    n = rows.shape[0]
    ranges = parallel.pieces(n)
    count = max(1, len(ranges))
    size = n if per_record else 0
    outputs = (*(np.empty(size, np.int64) for _ in range(3)), np.empty(size, np.float64),
               np.empty(size, np.int64), np.empty(size, np.bool_))
    errors = np.full((count, 3), -1, np.int64)
    errors[:, 2] = ErrorCode.NONE
    totals = np.zeros((count, n_kinds, 4), np.int64)
    cycle_totals = np.zeros((count, n_kinds), np.float64)
    worst = np.full((count, n_kinds, 3), -1, np.int64)
    one_mask, one_kind = masks.shape[0] == 1, kind_of.shape[0] == 1

    simulate_kernel = kernel_for(n)

    def piece(p: int, lo: int, hi: int) -> None:
        simulate_kernel(
            rows[lo:hi], masks if one_mask else masks[lo:hi], kind_of if one_kind else kind_of[lo:hi],
            *tables, per_record, *(out[lo:hi] if per_record else out for out in outputs),
            totals[p:p + 1], cycle_totals[p:p + 1], worst[p:p + 1], errors[p:p + 1],
        )
        if errors[p, 2] != ErrorCode.NONE:
            errors[p, 0] += lo
        found = worst[p, :, WorstColumn.INDEX] >= 0
        worst[p, found, WorstColumn.INDEX] += lo

    parallel.run([partial(piece, p, lo, hi) for p, (lo, hi) in enumerate(ranges)])
    return outputs, (totals, cycle_totals, worst), errors


def simulate(
    addresses: object,
    width: int = 8,
    op: str = "load",
    active: object = None,
    matrices: int | None = None,
    arch: str = DEFAULT_ARCH,
    *,
    atomic_op: str = "add",
) -> SimulationResult:
    """Wavefronts, ideal count, ncu-style conflicts and cycles of each warp-instruction.

    ``addresses``: byte offsets in the shared window, shape (32,) or (N, 32). ``active``:
    None, bool lanes of the same shape, or integer bitmasks. Matrix ops take
    ``matrices`` (1, 2 or 4) and read one 16-byte row address from lanes 0..8*matrices-1.
    ``atomic_op`` (one of ``arch.ATOMIC_OPS``: "add", "exch", "cas", "popc_inc", "min", ...) picks the
    atomic instruction for op="atomic".
    """
    width = check_arguments(width, op, matrices, arch, atomic_op)
    if matrices is not None:
        matrices = int(matrices)
    architecture = get_arch(arch)
    width, rule = resolve(width, op, matrices, arch, atomic_op)
    rows = as_addresses(addresses)
    masks = as_masks(active, rows.shape[0])
    tables = kind_table([(width, op, matrices, rule)], architecture, architecture.shared_bytes)
    per_record, _, errors = run_kernel(narrow(rows), masks, np.zeros(1, np.int32), tables, 1, True)
    raise_first_error(errors, rows, np.full(1, width), np.zeros(1, np.int32), architecture, None)
    wavefronts, ideal, conflicts, cycles, groups, merged = per_record
    return SimulationResult(
        wavefronts=wavefronts, ideal=ideal, conflicts=conflicts, cycles=cycles,
        groups=groups, merged=merged, op=op, width=width, matrices=matrices,
        arch=architecture, rule=rule, atomic_op=atomic_op if op == "atomic" else None,
        addresses=rows, masks=masks,
    )


@dataclass(frozen=True)
class Kind:
    """One instruction kind of a mixed batch (``simulate_many``): what ``simulate`` takes besides lanes."""

    op: str
    width: int
    matrices: int | None = None
    atomic_op: str = "add"


@dataclass(frozen=True)
class KindTotals:
    """Sums over the instructions of one kind in a batch, and its worst instruction.

    ``worst``: index in the batch of the first instruction with the most excess wavefronts
    (then the most wavefronts), -1 when the kind has none; ``cycles`` is NaN when the kind
    has no cycle model.
    """

    executions: int
    wavefronts: int
    ideal: int
    conflicts: int
    cycles: float
    worst: int
    worst_wavefronts: int
    worst_ideal: int


def check_kind(kind: Kind, arch: str = DEFAULT_ARCH) -> None:
    """A BankismError when the engine cannot model ``kind`` on ``arch`` (as ``simulate`` would raise)."""
    width, _ = resolve(kind.width, kind.op, kind.matrices, arch, kind.atomic_op)
    geometry(get_arch(arch), width)


class AddressError(BankismError):
    """An active lane's address is invalid: ``instruction`` (batch index), ``lane``, ``address`` and
    ``reason``: "negative", "range" (past the limit) or "align"."""

    def __init__(self, message: str, instruction: int, lane: int, address: int, reason: str) -> None:
        super().__init__(message)
        self.instruction = instruction
        self.lane = lane
        self.address = address
        self.reason = reason


def simulate_many(
    addresses: np.ndarray, active: np.ndarray, kind_of: np.ndarray, kinds: list[Kind],
    arch: str = DEFAULT_ARCH, limit: int | None = None,
) -> list[KindTotals]:
    """Per-kind sums over a batch of mixed kinds, in one parallel pass and without copies.

    Instruction i has the lanes ``addresses[i]`` (C-contiguous (N, 32) int32 or int64 array),
    the active-lane bitmask ``active[i]`` and the kind ``kinds[kind_of[i]]``. Active lanes must
    lie in [0, ``limit``) (default: the architecture's shared memory), else an AddressError
    names the first invalid instruction and lane. This is what ``bankism analyze`` runs per chunk.
    """
    architecture = get_arch(arch)
    limit = architecture.shared_bytes if limit is None else min(int(limit), architecture.shared_bytes)
    resolved = []
    for kind in kinds:
        width, rule = resolve(kind.width, kind.op, kind.matrices, arch, kind.atomic_op)
        resolved.append((width, kind.op, kind.matrices, rule))
    rows = np.ascontiguousarray(addresses)
    if rows.dtype not in (np.int32, np.int64) or rows.ndim != 2 or rows.shape[1] != LANES:
        raise BankismError(
            f"addresses must be an (N, {LANES}) int32 or int64 array; got {rows.dtype} {rows.shape}"
        )
    masks = np.asarray(active, np.int64).reshape(-1)
    kind_of = np.ascontiguousarray(kind_of, np.int32).reshape(-1)
    if masks.shape[0] != rows.shape[0] or kind_of.shape[0] != rows.shape[0]:
        raise BankismError("addresses, active and kind_of must have one entry per instruction")
    if kind_of.size and (kind_of.min() < 0 or kind_of.max() >= len(kinds)):
        raise BankismError(f"kind_of must index the {len(kinds)} kinds")
    tables = kind_table(resolved, architecture, limit)
    _, (totals, cycle_totals, worst), errors = run_kernel(rows, masks, kind_of, tables, len(kinds), False)
    widths = tables[0][:, KindColumn.WIDTH]
    raise_first_error(errors, rows, widths, kind_of, architecture, limit)
    out = []
    for k in range(len(kinds)):
        chunk_worst = worst[:, k]
        found = chunk_worst[:, WorstColumn.INDEX] >= 0
        if found.any():
            candidates = chunk_worst[found]
            keys = (candidates[:, WorstColumn.INDEX], -candidates[:, WorstColumn.WAVEFRONTS],
                    -candidates[:, WorstColumn.EXCESS])
            pick = int(np.lexsort(keys)[0])
            index, excess, wavefronts = (int(v) for v in candidates[pick])
        else:
            index, excess, wavefronts = -1, 0, 0
        out.append(KindTotals(
            executions=int(totals[:, k, TotalColumn.EXECUTIONS].sum()),
            wavefronts=int(totals[:, k, TotalColumn.WAVEFRONTS].sum()),
            ideal=int(totals[:, k, TotalColumn.IDEAL].sum()),
            conflicts=int(totals[:, k, TotalColumn.CONFLICTS].sum()),
            cycles=float(cycle_totals[:, k].sum()), worst=index, worst_wavefronts=wavefronts,
            worst_ideal=wavefronts - excess,
        ))
    return out


def raise_first_error(
    errors: np.ndarray, rows: np.ndarray, widths: np.ndarray, kind_of: np.ndarray, arch: Architecture,
    limit: int | None,
) -> None:
    failed = errors[errors[:, 2] != ErrorCode.NONE]
    if failed.size == 0:
        return
    i, lane, code = (int(v) for v in failed[np.argmin(failed[:, 0])])
    width = int(widths[kind_of[0] if kind_of.shape[0] == 1 else kind_of[i]])
    address = int(rows[i, lane])
    if limit is None:
        text = ERROR_TEXT[code].format(a=address, w=width, size=arch.shared_bytes, arch=arch.name)
    else:
        text = ERROR_TEXT[code].replace("the {size}-byte shared memory of {arch}", "byte {size}").format(
            a=address, w=width, size=limit)
    reason = {ErrorCode.NEGATIVE: "negative", ErrorCode.RANGE: "range", ErrorCode.ALIGN: "align"}[code]
    raise AddressError(f"instruction {i}, lane {lane}: {text}", i, lane, address, reason)
