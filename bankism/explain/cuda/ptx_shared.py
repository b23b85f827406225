"""Inline PTX in explain: the shared-memory instructions (``ld``/``st``/``atom``/``red.shared``,
``ldmatrix``/``stmatrix``, ``cp.async``, ``cp.async.bulk``, ``cvta``, other spaces), recorded as access
sites, and what they leave in shared memory. A mixin of ``InlinePtx``."""

from __future__ import annotations

import numpy as np

from bankism.arch import LANES, LANES_PER_MATRIX, WIDTHS
from bankism.explain.cuda.ptx import Operand, PtxStatement
from bankism.explain.cuda.ptx_types import (
    ATOM_OPS,
    B128,
    TYPES,
    PtxState,
    access_type,
    as_type,
    element_type,
    shared_address,
    state_space,
    two_operands,
)
from bankism.explain.frontend import syntax as S
from bankism.explain.simt import ctype as C
from bankism.explain.simt.ctype import CType
from bankism.explain.simt.memory import GlobalMatrix, SharedVariable, global_load
from bankism.explain.simt.values import (
    Failure,
    Mask,
    Pointer,
    Scalar,
    Value,
    all_known,
    constant,
    flags_per_thread,
    per_thread,
    src_per_thread,
    unknown,
)


class PtxSharedMemory:
    """The shared-memory instructions of inline PTX (a mixin of ``InlinePtx``)."""

    # --- shared-memory instructions ------------------------------------------------------

    def _shared_lanes(self, operand: Operand, state: PtxState, stmt: PtxStatement, mask: Mask, width: int,
                      op: str, check: np.ndarray | None = None,
                      generic: bool = False) -> tuple[np.ndarray, SharedVariable]:
        """Per-thread shared-window addresses of an ``[addr]`` operand, checked against the
        shared arrays (bounds, alignment) in the running threads (``check``: lanes to check);
        ``generic``: the instruction has no state space, so a generic pointer into a
        ``__shared__`` array is its place in the window."""
        if operand.kind != "addr":
            raise Failure(stmt, f"unsupported construct: `{stmt.text}`: expected a [address] operand")
        if operand.name:
            base = self._read(Operand("reg", operand.name), state, stmt, mask)
        else:
            base = constant(C.ULONG, operand.value)
        if isinstance(base, Pointer) and generic:
            base = shared_address(base, C.ULONG, stmt)
        if isinstance(base, Pointer):
            raise Failure(stmt, f"{stmt.opcode} takes a shared-window address, not a generic pointer: "
                                "convert it with __cvta_generic_to_shared() or cvta.to.shared")
        if not isinstance(base, Scalar) or not base.type.is_integer:
            raise Failure(stmt, f"the address of {stmt.opcode} must be an integer")
        checked = mask.arr if check is None else mask.arr & check
        if not all_known(base.known, Mask.of(checked)):
            raise Failure(stmt, f"the address depends on {base.taint}, which bankism does not know")
        addresses = per_thread(np.asarray(base.data).astype(np.int64), self.threads) + operand.offset
        addresses = np.where(flags_per_thread(base.known, self.threads), addresses, 0)
        region = self.shared_region_of(addresses, checked, width, stmt)
        return addresses, region

    def shared_region_of(self, addresses: np.ndarray, lanes: np.ndarray, width: int,
                         node: S.Node) -> SharedVariable:
        """The __shared__ array the first checked lane's address falls in; every checked lane
        must fall inside some array, aligned to ``width`` (up to 16 bytes)."""
        regions = sorted(self.shared_arrays, key=lambda r: r.base)
        if not regions:
            raise Failure(node, "a shared-memory instruction, but the kernel declares no __shared__ array")
        bases = np.array([r.base for r in regions], np.int64)
        ends = np.array([r.base + r.size for r in regions], np.int64)
        index = np.clip(np.searchsorted(bases, addresses, "right") - 1, 0, len(regions) - 1)
        outside = lanes & ((addresses < bases[index]) | (addresses + width > ends[index]))
        if outside.any():
            lane = int(np.argmax(outside))
            unsized = [r for r in regions if r.size == 0 and r.base <= addresses[lane]]
            if unsized:  # the address is in an extern array whose size the launch did not say
                raise Failure(node, f"extern __shared__ array {unsized[-1].name} has no size: give "
                                    "--dynamic-smem BYTES or launch with <<<grid, block, BYTES>>>")
            raise Failure(node, f"thread {self._thread_name(lane)}: shared address {int(addresses[lane])} "
                                f"({width} bytes) is outside every __shared__ array")
        align = min(width, max(WIDTHS))
        if align > 1 and align in WIDTHS:
            bad = lanes & (addresses % align != 0)
            if bad.any():
                lane = int(np.argmax(bad))
                raise Failure(node, f"thread {self._thread_name(lane)}: {width}-byte access at shared byte "
                                    f"{int(addresses[lane])} is misaligned")
        first = int(np.argmax(lanes)) if lanes.any() else 0
        return regions[int(index[first])]

    def _record_ptx(self, stmt: PtxStatement, op: str, t: CType, region: SharedVariable,
                    addresses: np.ndarray, mask: Mask, **extra: object) -> None:
        self.require_certain(stmt, mask)
        self.recorder.record(stmt, op, t, region, addresses, mask, self.context.block_index,
                             span=self.span, calls=tuple(self.call_stack), **extra)

    def _ld_shared(self, stmt: PtxStatement, parts: list[str], state: PtxState, mask: Mask) -> None:
        t, count = element_type(parts, stmt)
        dest, address = two_operands(stmt)
        addresses, region = self._shared_lanes(address, state, stmt, mask, t.size * count, "load")
        self._record_ptx(stmt, "load", access_type(t, count), region, addresses, mask)
        targets = dest.items if dest.kind == "vec" else (dest,)
        if t is B128 or len(targets) != count:
            self._unknown_into(dest, state, stmt, mask, C.ULONG, "a 128-bit value read by inline PTX")
            return
        for i, target in enumerate(targets):
            data, known, src = self.store.load(addresses + i * t.size, t)
            taint = None if known.all() else "values in shared memory"
            self._write(target, Scalar(t, data, known, src, taint), state, stmt, mask)

    def _st_shared(self, stmt: PtxStatement, parts: list[str], state: PtxState, mask: Mask) -> None:
        t, count = element_type(parts, stmt)
        address, source = two_operands(stmt)
        addresses, region = self._shared_lanes(address, state, stmt, mask, t.size * count, "store")
        self._record_ptx(stmt, "store", access_type(t, count), region, addresses, mask)
        sources = source.items if source.kind == "vec" else (source,)
        if t is B128 or len(sources) != count:
            self._forget(addresses, t.size * count, mask)
            return
        for i, item in enumerate(sources):
            value = self._read(item, state, stmt, mask, t)
            self._put(addresses + i * t.size, value, t, mask)

    def _atom_shared(self, stmt: PtxStatement, parts: list[str], state: PtxState, mask: Mask) -> None:
        t = TYPES.get(parts[-1])
        operation = next((p for p in parts[1:-1] if p in ("add", "inc", "dec", "exch", "cas", "and", "or",
                                                           "xor", "min", "max")), None)
        if t is None or operation is None:
            raise Failure(stmt, f"unsupported construct: PTX instruction {stmt.opcode}")
        operands = stmt.operands
        address = operands[1] if parts[0] == "atom" else operands[0]
        addresses, region = self._shared_lanes(address, state, stmt, mask, t.size, "atomic")
        self._record_ptx(stmt, "atomic", t, region, addresses, mask,
                         atomic_op=ATOM_OPS.get(operation, operation))
        self._forget(addresses, t.size, mask)
        if parts[0] == "atom":
            self._unknown_into(operands[0], state, stmt, mask, t, "the old value returned by an atomic")

    def _matrix(self, stmt: PtxStatement, parts: list[str], state: PtxState, mask: Mask) -> None:
        number = next((int(p[1:]) for p in parts if p in ("x1", "x2", "x4")), None)
        space = state_space(parts)
        if number is None or "m8n8" not in parts or parts[-1] != "b16" or space not in ("shared", "generic"):
            raise Failure(stmt, f"unsupported construct: PTX instruction {stmt.opcode} (explain models the "
                                ".m8n8 .x1/.x2/.x4 .b16 forms on shared memory)")
        load = parts[0] == "ldmatrix"
        registers, address = two_operands(stmt) if load else two_operands(stmt)[::-1]
        used = (self.lanes % LANES) < LANES_PER_MATRIX * number
        addresses, region = self._shared_lanes(address, state, stmt, mask, 16, parts[0], used,
                                               generic=space == "generic")
        self._record_ptx(stmt, parts[0], C.VECTORS["uint4"], region, addresses, mask, matrices=number)
        if load:
            self._unknown_into(registers, state, stmt, mask, C.UINT,
                               "a fragment loaded by ldmatrix (explain does not track fragment values)")
        else:
            self._forget(addresses, 16, Mask.of(mask.arr & used))

    def _cp_async(self, stmt: PtxStatement, parts: list[str], state: PtxState, mask: Mask) -> None:
        if len(stmt.operands) < 3:
            raise Failure(stmt, f"unsupported construct: `{stmt.text}`")
        dst, src, size = stmt.operands[:3]
        width = self._immediate(size, state, stmt, mask)
        if width not in (4, 8, 16):
            raise Failure(stmt, f"{stmt.opcode}: the copy size must be 4, 8 or 16")
        addresses, region = self._shared_lanes(dst, state, stmt, mask, width, "ldgsts")
        self._record_ptx(stmt, "ldgsts", access_type(C.UCHAR, width), region, addresses, mask)
        source = self._read(Operand("reg", src.name), state, stmt, mask) if src.kind == "addr" and src.name \
            else None
        filled = np.full(self.threads, width, np.int64)
        hinted = "L2::cache_hint" in parts
        if len(stmt.operands) > 3 and stmt.operands[3].kind in ("reg", "imm") and not hinted:
            given = self._read(stmt.operands[3], state, stmt, mask, C.UINT)
            if all_known(given.known, mask):
                filled = per_thread(np.asarray(given.data, np.int64), self.threads)
        self._copy_in(addresses, width, source, src.offset if src.kind == "addr" else 0, filled, mask)

    def _immediate(self, operand: Operand, state: PtxState, stmt: PtxStatement, mask: Mask) -> int | None:
        """An operand PTX wants as an immediate: a literal, or an ``"n"`` (or other) operand whose
        value is known and the same in every running thread (a template constant); else None."""
        if operand.kind == "imm":
            return int(operand.value) if isinstance(operand.value, int) else None
        if operand.kind != "reg":
            return None
        value = self._read(operand, state, stmt, mask)
        if not isinstance(value, Scalar) or not all_known(value.known, mask):
            return None
        data = per_thread(np.asarray(value.data, np.int64), self.threads)[mask.arr]
        return int(data[0]) if data.size and (data == data[0]).all() else None

    def _copy_in(self, addresses: np.ndarray, width: int, source: Value | None, offset: int,
                 filled: np.ndarray, mask: Mask) -> None:
        """Shared bytes a copy from global memory writes: the source elements (provenance)
        up to ``filled`` bytes per thread, zeros after (cp.async's src-size)."""
        if not isinstance(source, Pointer) or not isinstance(source.region, GlobalMatrix):
            self._forget(addresses, width, mask)
            return
        element = source.type.elem.scalar if source.type.elem.kind != "void" else C.UCHAR
        step = element.size if element.size and width % element.size == 0 else 1
        element = element if step == element.size else C.UCHAR
        base = per_thread(np.asarray(source.offset, np.int64), self.threads) + offset
        for k in range(0, width, step):
            value = global_load(source.region, base + k, element)
            zero = filled <= k
            copied = Scalar(element, np.where(zero, 0, value.data).astype(element.dtype),
                            zero, np.where(zero, -1, src_per_thread(value.src, self.threads)), value.taint)
            self._put(addresses + k, copied, element, mask)

    def _bulk(self, stmt: PtxStatement, parts: list[str], state: PtxState, mask: Mask) -> None:
        shared_first = state_space(parts) == "shared"
        tensor = "tensor" in parts
        if len(stmt.operands) < 2:
            raise Failure(stmt, f"unsupported construct: `{stmt.text}`")
        shared_operand = stmt.operands[0] if shared_first else stmt.operands[1]
        width = 16
        if len(stmt.operands) > 2 and stmt.operands[2].kind in ("imm", "reg") and not tensor:
            size = self._read(stmt.operands[2], state, stmt, mask, C.UINT)
            if all_known(size.known, mask):
                width = max(1, int(np.max(per_thread(np.asarray(size.data), self.threads)[mask.arr])))
        addresses, region = self._shared_lanes(shared_operand, state, stmt, mask, 1, "bulk")
        self._record_ptx(stmt, "bulk", access_type(C.UCHAR, width), region, addresses, mask)
        if shared_first:
            end = np.minimum(addresses + width, region.base + region.size)
            for lane in np.flatnonzero(mask.arr):
                span = np.arange(addresses[lane], end[lane], dtype=np.int64)
                self.store.store(span, C.UCHAR, np.zeros(span.size, np.int8), np.zeros(span.size, bool),
                                 np.full(span.size, -1, np.int64))

    def _cvta(self, stmt: PtxStatement, parts: list[str], state: PtxState, mask: Mask) -> None:
        if "to" not in parts or state_space(parts) != "shared":
            raise Failure(stmt, f"unsupported construct: PTX instruction {stmt.opcode} (explain models "
                                "cvta.to.shared)")
        dest, source = two_operands(stmt)
        pointer = self._read(source, state, stmt, mask)
        t = TYPES.get(parts[-1], C.ULONG)
        self._write(dest, shared_address(pointer, t, stmt), state, stmt, mask)

    def _other_space(self, stmt: PtxStatement, parts: list[str], state: PtxState, mask: Mask) -> None:
        """ld/st/atom/red on global, local, param or const memory, or through a generic pointer."""
        head = parts[0]
        operands = stmt.operands
        address = operands[1] if head in ("ld", "atom") else operands[0]
        pointer = None
        if address.kind == "addr" and address.name:
            pointer = self._read(Operand("reg", address.name), state, stmt, mask)
        if isinstance(pointer, Pointer) and isinstance(pointer.region, SharedVariable):
            raise Failure(stmt, f"unsupported construct: {stmt.opcode} through a generic pointer to shared "
                                "memory (explain models ld.shared/st.shared with a shared-window address)")
        if head != "ld":
            if head == "atom":
                self._unknown_into(operands[0], state, stmt, mask, TYPES.get(parts[-1], C.UINT),
                                   "the old value returned by an atomic on global memory")
            return
        t, count = element_type(parts, stmt)
        dest = operands[0]
        targets = dest.items if dest.kind == "vec" else (dest,)
        for i, target in enumerate(targets):
            if isinstance(pointer, Pointer) and isinstance(pointer.region, GlobalMatrix) and t is not B128:
                offset = np.asarray(pointer.offset, np.int64) + address.offset + i * t.size
                self._write(target, global_load(pointer.region, offset, t), state, stmt, mask)
            else:
                self._write(target, unknown(C.ULONG if t is B128 else t, "a value inline PTX loaded"), state,
                            stmt, mask)

    # --- shared-memory contents ----------------------------------------------------------

    def _put(self, addresses: np.ndarray, value: Value, t: CType, mask: Mask) -> None:
        if not isinstance(value, Scalar):
            self._forget(addresses, t.size, mask)
            return
        value = as_type(value, t)
        lanes = mask.arr
        self.store.store(addresses[lanes], t, per_thread(value.data, self.threads)[lanes],
                         flags_per_thread(value.known, self.threads)[lanes],
                         src_per_thread(value.src, self.threads)[lanes])

    def _forget(self, addresses: np.ndarray, width: int, mask: Mask) -> None:
        """Bytes written with values explain does not track."""
        lanes = np.flatnonzero(mask.arr)
        step = 4 if width % 4 == 0 else 1
        t = C.UINT if step == 4 else C.UCHAR
        for k in range(0, width, step):
            at = addresses[lanes] + k
            self.store.store(at, t, np.zeros(at.size, t.dtype), np.zeros(at.size, bool),
                             np.full(at.size, -1, np.int64))

