"""Inline PTX in explain, back half: each PTX statement of an ``asm`` runs as the instruction
it is, for the threads of the lane mask (and of its ``@p`` guard).

* Shared-memory instructions are recorded as access sites, one per PTX statement:
  ``ld.shared``/``st.shared`` (scalar, ``.v2``/``.v4``, ``.b128``) as loads/stores,
  ``atom.shared``/``red.shared`` as atomics, ``ldmatrix``/``stmatrix`` as the engine's
  matrix ops (x1/x2/x4), ``cp.async`` (LDGSTS) and ``cp.async.bulk`` with their shared
  side. What they read or write in shared memory is tracked as for C++ accesses.
* ``cvta.to.shared``, ``mov``, ``cvt``, integer arithmetic, ``setp``/``selp`` and ``.reg``
  declarations compute values, so addresses built in PTX stay known.
* PTX without shared operands (``mma.sync``, ``wgmma``, ``cp.async.commit_group``/
  ``wait_group``, barriers, fences, ``ld.global``, ...) does nothing to shared memory; the
  registers it writes hold values explain does not know (``ld.global`` keeps provenance).
* Any other instruction is a one-line error naming it, when (and only if) it executes."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bankism.explain.cuda.ptx import Asm, Operand, PtxStatement, PtxSyntaxError, statements
from bankism.explain.cuda.ptx_special import is_lane_special, lane_special
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
    binary,
    bit_not,
    constant,
    convert,
    flags_per_thread,
    negate,
    per_thread,
    select,
    src_per_thread,
    unknown,
)

TYPES: dict[str, CType] = {
    "u8": C.UCHAR, "s8": C.SCHAR, "b8": C.UCHAR, "u16": C.USHORT, "s16": C.SHORT, "b16": C.USHORT,
    "f16": C.HALF, "u32": C.UINT, "s32": C.INT, "b32": C.UINT, "f32": C.FLOAT, "u64": C.ULONG,
    "s64": C.LONG, "b64": C.ULONG, "f64": C.DOUBLE, "pred": C.BOOL, "f16x2": C.UINT, "bf16": C.USHORT,
    "bf16x2": C.UINT,
}
#: A 16-byte register of ld/st.shared.b128, as two 8-byte halves.
B128 = CType("b128", "vec", 16, 16, None, False, 0, C.ULONG, 2)

#: Instructions with no shared-memory operand (or, for mbarrier, one explain does not count as
#: an LSU access): nothing to record; registers they write are not known afterwards.
NO_SHARED_ACCESS = (
    "mma.", "wgmma.", "bar.", "barrier.", "fence.", "membar.", "griddepcontrol.", "prefetch.", "prefetchu.",
    "nanosleep", "cp.async.commit_group", "cp.async.wait_group", "cp.async.wait_all",
    "cp.async.bulk.commit_group", "cp.async.bulk.wait_group", "cp.async.bulk.prefetch",
    "cp.async.mbarrier.arrive", "mbarrier.", "elect.", "shfl.", "vote.", "activemask", "createpolicy.",
    "discard.", "applypriority.", "setmaxnreg.", "tensormap.", "match.", "redux.", "brev.", "popc.",
    "clz.", "bfind.", "prmt.", "lop3.", "fma.", "rcp.", "sqrt.", "ex2.", "lg2.", "sin.", "cos.", "tanh.",
    "rsqrt.", "copysign.", "testp.", "movmatrix.", "dp4a.", "dp2a.", "bfe.", "bfi.", "szext.", "pmevent",
    "isspacep.", "getctarank.", "mapa.", "stackrestore", "stacksave", "alloca",
)
_SPACES = ("shared", "global", "local", "param", "const", "generic")
_COMPARE = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "lo": "<", "ls": "<=",
            "hi": ">", "hs": ">=", "equ": "==", "neu": "!=", "ltu": "<", "leu": "<=", "gtu": ">", "geu": ">="}
_ARITH = {"add": "+", "sub": "-", "mul": "*", "div": "/", "rem": "%", "and": "&", "or": "|", "xor": "^",
          "shl": "<<", "shr": ">>"}
#: Engine names of the atomic operations of atom/red (the engine refuses those not measured).
_ATOM_OPS = {"add": "add", "exch": "exch", "cas": "cas"}
#: Ops of shared-memory instructions the engine has no model for yet, with what to say.
ASYNC_OPS = {"ldgsts": "cp.async (LDGSTS)", "bulk": "cp.async.bulk (TMA)"}

_SPECIAL = ("%laneid", "%tid.x", "%tid.y", "%tid.z", "%ntid.x", "%ntid.y", "%ntid.z", "%ctaid.x", "%ctaid.y",
            "%ctaid.z", "%nctaid.x", "%nctaid.y", "%nctaid.z")


@dataclass
class _State:
    """The registers of one asm execution: %N operands and the template's own .reg names."""

    operands: dict[int, Value]
    regs: dict[str, Value] = field(default_factory=dict)
    written: set[int] = field(default_factory=set)


def _parts(opcode: str) -> list[str]:
    return opcode.split(".")


def _space(parts: list[str]) -> str:
    for part in parts[1:]:
        base = part.split("::")[0]
        if base in _SPACES:
            return base
    return "generic"


class InlinePtx:
    """Inline PTX (a mixin of ``Machine``)."""

    def _asm(self, expr: Asm, mask: Mask) -> Value:
        try:
            program = statements(expr)
        except PtxSyntaxError as error:
            raise Failure(expr, f"unsupported construct: inline PTX: {error}") from None
        state = _State({})
        for number, operand in enumerate(expr.operands):
            if operand.read:
                state.operands[number] = self._operand_value(operand, mask)
        for stmt in program:
            running = mask
            if stmt.guard is not None:
                running = mask & self._predicate(stmt, stmt.guard, state, mask)
            if running.none:
                continue
            self._ptx(stmt, state, running)
        for number, operand in enumerate(expr.outputs):
            if number not in state.written:
                if operand.read:
                    continue
                value = unknown(TYPES[_constraint_type(operand.constraint)],
                                "a value inline PTX computed that explain does not model")
            else:
                value = state.operands[number]
            target = self.lvalue(operand.expr, mask)
            self.store_to(target, value, mask, operand)
        return constant(C.INT, 0)

    def _operand_value(self, operand, mask: Mask) -> Value:  # noqa: ANN001
        value = self.eval(operand.expr, mask)
        if isinstance(value, Pointer):
            if operand.constraint != "l":
                raise Failure(operand, f'a pointer as asm operand "{operand.constraint}" (pointers need "l")')
            return value
        if not isinstance(value, Scalar):
            raise Failure(operand, f"asm operand of type {value.type}: PTX operands are scalars")
        if operand.constraint == "n" and not all_known(value.known, mask):
            raise Failure(operand, '"n" asm operand must be a constant')
        return convert(value, TYPES[_constraint_type(operand.constraint)])

    # --- operands -------------------------------------------------------------------------

    def _predicate(self, stmt: PtxStatement, guard: tuple[str, bool], state: _State,
                   mask: Mask) -> np.ndarray:
        name, negate_it = guard
        value = self._read(Operand("reg", name), state, stmt, mask)
        truth = self.truth_of(value, stmt, mask)
        return np.logical_not(truth) if negate_it else truth

    def _read(self, operand: Operand, state: _State, stmt: PtxStatement, mask: Mask,
              t: CType | None = None) -> Value:
        if operand.kind == "imm":
            value = constant(t or (C.LONG if isinstance(operand.value, int) else C.DOUBLE), operand.value)
            return value
        if operand.kind != "reg":
            raise Failure(stmt, f"unsupported construct: PTX operand of this kind in `{stmt.text}`")
        name = operand.name
        negated = name.startswith("!")
        name = name.lstrip("!")
        if name.startswith("$"):
            number = int(name[1:])
            if number not in state.operands:
                raise Failure(stmt, f"inline PTX reads %{number}, an output operand with no value yet")
            value = state.operands[number]
        elif name in state.regs:
            value = state.regs[name]
        elif name in _SPECIAL:
            value = self._special(name)
        elif is_lane_special(name):
            value = lane_special(name, self.lanes)
        else:
            raise Failure(stmt, f"unsupported construct: PTX register {name} (not declared in the asm, "
                                "or a special register explain does not model)")
        if negated:
            value = Scalar(C.BOOL, np.logical_not(value.data), value.known, None, value.taint)
        if t is not None and isinstance(value, Scalar):
            value = _as_type(value, t)
        return value

    def _special(self, name: str) -> Scalar:
        if name == "%laneid":
            return Scalar(C.UINT, (self.lanes % 32).astype(np.uint32))
        kind, axis = name[1:].split(".")
        index = "xyz".index(axis)
        if kind == "tid":
            return Scalar(C.UINT, (self.tx, self.ty, self.tz)[index])
        source = {"ntid": self.context.block, "ctaid": self.context.block_index, "nctaid": self.context.grid}
        return constant(C.UINT, source[kind][index])

    def _write(self, operand: Operand, value: Value, state: _State, stmt: PtxStatement, mask: Mask) -> None:
        if operand.kind == "sink":
            return
        if operand.kind != "reg":
            raise Failure(stmt, f"unsupported construct: PTX destination in `{stmt.text}`")
        name = operand.name
        if name.startswith("$"):
            number = int(name[1:])
            old = state.operands.get(number)
            state.operands[number] = select(mask, value, old, stmt) if old is not None else value
            state.written.add(number)
        elif name in state.regs:
            old = state.regs[name]
            state.regs[name] = select(mask, value, old, stmt) if old is not None else value
        else:
            raise Failure(stmt, f"unsupported construct: PTX register {name} is not declared in the asm")

    def _unknown_into(self, operand: Operand | None, state: _State, stmt: PtxStatement, mask: Mask,
                      t: CType, why: str) -> None:
        """Registers an instruction writes, with values explain does not know."""
        if operand is None:
            return
        targets = operand.items if operand.kind == "vec" else (operand,)
        for target in targets:
            if target.kind in ("reg", "sink"):
                self._write(target, unknown(t, why), state, stmt, mask)

    # --- dispatch -------------------------------------------------------------------------

    def _ptx(self, stmt: PtxStatement, state: _State, mask: Mask) -> None:
        opcode = stmt.opcode
        parts = _parts(opcode)
        head = parts[0]
        if opcode.startswith("."):
            self._declare(stmt, state)
        elif head in ("ld", "st", "atom", "red") and _space(parts) == "shared" and "async" not in parts:
            handler = {"ld": self._ld_shared, "st": self._st_shared}.get(head, self._atom_shared)
            handler(stmt, parts, state, mask)
        elif head in ("ldmatrix", "stmatrix"):
            self._matrix(stmt, parts, state, mask)
        elif opcode.startswith("cp.async.bulk") or opcode.startswith("cp.reduce.async.bulk"):
            if any(opcode.startswith(p) for p in NO_SHARED_ACCESS):
                return
            self._bulk(stmt, parts, state, mask)
        elif head == "cp" and len(parts) > 1 and parts[1] == "async" and _space(parts) == "shared":
            if any(opcode.startswith(p) for p in NO_SHARED_ACCESS):
                return
            self._cp_async(stmt, parts, state, mask)
        elif head == "cvta":
            self._cvta(stmt, parts, state, mask)
        elif head in ("ld", "st", "atom", "red") and "async" not in parts:
            self._other_space(stmt, parts, state, mask)
        elif head in ("mov", "cvt"):
            self._move(stmt, parts, state, mask)
        elif head in _ARITH or head in ("mad", "min", "max", "not", "neg", "abs"):
            self._arith(stmt, parts, state, mask)
        elif head == "setp":
            self._setp(stmt, parts, state, mask)
        elif head == "selp":
            t = TYPES.get(parts[-1], C.UINT)
            d, a, b, c = stmt.operands
            chosen = self.truth_of(self._read(c, state, stmt, mask), stmt, mask)
            self._write(d, select(Mask.of(per_thread(np.asarray(chosen, bool), self.threads)),
                                  self._read(a, state, stmt, mask, t), self._read(b, state, stmt, mask, t),
                                  stmt), state, stmt, mask)
        elif any(opcode.startswith(p) or opcode == p.rstrip(".") for p in NO_SHARED_ACCESS):
            first = stmt.operands[0] if stmt.operands else None
            self._unknown_into(first, state, stmt, mask, TYPES.get(parts[-1], C.UINT),
                               f"registers written by inline PTX {opcode}")
        elif "shared" in opcode:
            raise Failure(stmt, f"unsupported construct: PTX instruction {opcode} accesses shared memory "
                                "in a way explain does not model")
        else:
            raise Failure(stmt, f"unsupported construct: PTX instruction {opcode} is not known to explain")

    def _declare(self, stmt: PtxStatement, state: _State) -> None:
        if stmt.opcode != ".reg":
            raise Failure(stmt, f"unsupported construct: PTX directive {stmt.opcode} in inline asm")
        words = stmt.operands[0].name.split() if stmt.operands else []
        if len(words) < 2 or words[0].lstrip(".") not in TYPES and words[0] != ".b128":
            raise Failure(stmt, f"unsupported construct: `{stmt.text}`")
        t = B128 if words[0] == ".b128" else TYPES[words[0].lstrip(".")]
        for word in " ".join(words[1:]).split(","):
            word = word.strip()
            if "<" in word:
                name, count = word.rstrip(">").split("<")
                names = [f"{name}{i}" for i in range(int(count))]
            else:
                names = [word]
            for name in names:
                state.regs[name] = unknown(C.ULONG if t is B128 else t, "an uninitialized PTX register")

    # --- shared-memory instructions ------------------------------------------------------

    def _shared_lanes(self, operand: Operand, state: _State, stmt: PtxStatement, mask: Mask, width: int,
                      op: str, check: np.ndarray | None = None) -> tuple[np.ndarray, SharedVariable]:
        """Per-thread shared-window addresses of an ``[addr]`` operand, checked against the
        shared arrays (bounds, alignment) in the running threads (``check``: lanes to check)."""
        if operand.kind != "addr":
            raise Failure(stmt, f"unsupported construct: `{stmt.text}`: expected a [address] operand")
        if operand.name:
            base = self._read(Operand("reg", operand.name), state, stmt, mask)
        else:
            base = constant(C.ULONG, operand.value)
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
        region = self._region_of(addresses, checked, width, stmt)
        return addresses, region

    def _region_of(self, addresses: np.ndarray, lanes: np.ndarray, width: int, node) -> SharedVariable:  # noqa: ANN001
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
            raise Failure(node, f"thread {self._thread_name(lane)}: shared address {int(addresses[lane])} "
                                f"({width} bytes) is outside every __shared__ array")
        align = min(width, 16)
        if align in (2, 4, 8, 16):
            bad = lanes & (addresses % align != 0)
            if bad.any():
                lane = int(np.argmax(bad))
                raise Failure(node, f"thread {self._thread_name(lane)}: {width}-byte access at shared byte "
                                    f"{int(addresses[lane])} is misaligned")
        first = int(np.argmax(lanes)) if lanes.any() else 0
        return regions[int(index[first])]

    def _record_ptx(self, stmt: PtxStatement, op: str, t: CType, region: SharedVariable,
                    addresses: np.ndarray, mask: Mask, **extra: object) -> None:
        self.recorder.record(stmt, op, t, region, addresses, mask, self.context.block_index,
                             span=self.span, calls=tuple(self.call_stack), **extra)

    def _ld_shared(self, stmt: PtxStatement, parts: list[str], state: _State, mask: Mask) -> None:
        t, count = _element(parts, stmt)
        dest, address = _two(stmt)
        addresses, region = self._shared_lanes(address, state, stmt, mask, t.size * count, "load")
        self._record_ptx(stmt, "load", _access_type(t, count), region, addresses, mask)
        targets = dest.items if dest.kind == "vec" else (dest,)
        if t is B128 or len(targets) != count:
            self._unknown_into(dest, state, stmt, mask, C.ULONG, "a 128-bit value read by inline PTX")
            return
        for i, target in enumerate(targets):
            data, known, src = self.store.load(addresses + i * t.size, t)
            taint = None if known.all() else "values in shared memory"
            self._write(target, Scalar(t, data, known, src, taint), state, stmt, mask)

    def _st_shared(self, stmt: PtxStatement, parts: list[str], state: _State, mask: Mask) -> None:
        t, count = _element(parts, stmt)
        address, source = _two(stmt)
        addresses, region = self._shared_lanes(address, state, stmt, mask, t.size * count, "store")
        self._record_ptx(stmt, "store", _access_type(t, count), region, addresses, mask)
        sources = source.items if source.kind == "vec" else (source,)
        if t is B128 or len(sources) != count:
            self._forget(addresses, t.size * count, mask)
            return
        for i, item in enumerate(sources):
            value = self._read(item, state, stmt, mask, t)
            self._put(addresses + i * t.size, value, t, mask)

    def _atom_shared(self, stmt: PtxStatement, parts: list[str], state: _State, mask: Mask) -> None:
        t = TYPES.get(parts[-1])
        operation = next((p for p in parts[1:-1] if p in ("add", "inc", "dec", "exch", "cas", "and", "or",
                                                           "xor", "min", "max")), None)
        if t is None or operation is None:
            raise Failure(stmt, f"unsupported construct: PTX instruction {stmt.opcode}")
        operands = stmt.operands
        address = operands[1] if parts[0] == "atom" else operands[0]
        addresses, region = self._shared_lanes(address, state, stmt, mask, t.size, "atomic")
        self._record_ptx(stmt, "atomic", t, region, addresses, mask,
                         atomic_op=_ATOM_OPS.get(operation, operation))
        self._forget(addresses, t.size, mask)
        if parts[0] == "atom":
            self._unknown_into(operands[0], state, stmt, mask, t, "the old value returned by an atomic")

    def _matrix(self, stmt: PtxStatement, parts: list[str], state: _State, mask: Mask) -> None:
        number = next((int(p[1:]) for p in parts if p in ("x1", "x2", "x4")), None)
        if number is None or "m8n8" not in parts or parts[-1] != "b16" or _space(parts) != "shared":
            raise Failure(stmt, f"unsupported construct: PTX instruction {stmt.opcode} (explain models the "
                                ".m8n8 .x1/.x2/.x4 .shared .b16 forms)")
        load = parts[0] == "ldmatrix"
        registers, address = _two(stmt) if load else _two(stmt)[::-1]
        used = (self.lanes % 32) < 8 * number
        addresses, region = self._shared_lanes(address, state, stmt, mask, 16, parts[0], used)
        self._record_ptx(stmt, parts[0], C.VECTORS["uint4"], region, addresses, mask, matrices=number)
        if load:
            self._unknown_into(registers, state, stmt, mask, C.UINT,
                               "a fragment loaded by ldmatrix (explain does not track fragment values)")
        else:
            self._forget(addresses, 16, Mask.of(mask.arr & used))

    def _cp_async(self, stmt: PtxStatement, parts: list[str], state: _State, mask: Mask) -> None:
        if len(stmt.operands) < 3:
            raise Failure(stmt, f"unsupported construct: `{stmt.text}`")
        dst, src, size = stmt.operands[:3]
        if size.kind != "imm" or size.value not in (4, 8, 16):
            raise Failure(stmt, f"{stmt.opcode}: the copy size must be 4, 8 or 16")
        width = int(size.value)
        addresses, region = self._shared_lanes(dst, state, stmt, mask, width, "ldgsts")
        self._record_ptx(stmt, "ldgsts", _access_type(C.UCHAR, width), region, addresses, mask)
        source = self._read(Operand("reg", src.name), state, stmt, mask) if src.kind == "addr" and src.name \
            else None
        filled = np.full(self.threads, width, np.int64)
        hinted = "L2::cache_hint" in parts
        if len(stmt.operands) > 3 and stmt.operands[3].kind in ("reg", "imm") and not hinted:
            given = self._read(stmt.operands[3], state, stmt, mask, C.UINT)
            if all_known(given.known, mask):
                filled = per_thread(np.asarray(given.data, np.int64), self.threads)
        self._copy_in(addresses, width, source, src.offset if src.kind == "addr" else 0, filled, mask)

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

    def _bulk(self, stmt: PtxStatement, parts: list[str], state: _State, mask: Mask) -> None:
        shared_first = _space(parts) == "shared"
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
        self._record_ptx(stmt, "bulk", _access_type(C.UCHAR, width), region, addresses, mask)
        if shared_first:
            end = np.minimum(addresses + width, region.base + region.size)
            for lane in np.flatnonzero(mask.arr):
                span = np.arange(addresses[lane], end[lane], dtype=np.int64)
                self.store.store(span, C.UCHAR, np.zeros(span.size, np.int8), np.zeros(span.size, bool),
                                 np.full(span.size, -1, np.int64))

    def _cvta(self, stmt: PtxStatement, parts: list[str], state: _State, mask: Mask) -> None:
        if "to" not in parts or _space(parts) != "shared":
            raise Failure(stmt, f"unsupported construct: PTX instruction {stmt.opcode} (explain models "
                                "cvta.to.shared)")
        dest, source = _two(stmt)
        pointer = self._read(source, state, stmt, mask)
        t = TYPES.get(parts[-1], C.ULONG)
        self._write(dest, shared_address(pointer, t, stmt), state, stmt, mask)

    def _other_space(self, stmt: PtxStatement, parts: list[str], state: _State, mask: Mask) -> None:
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
        t, count = _element(parts, stmt)
        dest = operands[0]
        targets = dest.items if dest.kind == "vec" else (dest,)
        for i, target in enumerate(targets):
            if isinstance(pointer, Pointer) and isinstance(pointer.region, GlobalMatrix) and t is not B128:
                offset = np.asarray(pointer.offset, np.int64) + address.offset + i * t.size
                self._write(target, global_load(pointer.region, offset, t), state, stmt, mask)
            else:
                self._write(target, unknown(C.ULONG if t is B128 else t, "a value inline PTX loaded"), state,
                            stmt, mask)

    # --- register instructions -----------------------------------------------------------

    def _move(self, stmt: PtxStatement, parts: list[str], state: _State, mask: Mask) -> None:
        dest, source = _two(stmt)
        t = TYPES.get(parts[-2] if parts[0] == "cvt" else parts[-1])
        if t is None:
            raise Failure(stmt, f"unsupported construct: PTX instruction {stmt.opcode}")
        if dest.kind == "vec" or source.kind == "vec":
            self._unknown_into(dest, state, stmt, mask, t, f"registers packed or unpacked by {stmt.opcode}")
            return
        value = self._read(source, state, stmt, mask)
        if isinstance(value, Pointer):
            if parts[0] == "cvt" or t.size != 8:
                raise Failure(stmt, f"unsupported construct: {stmt.opcode} of a pointer")
            self._write(dest, value, state, stmt, mask)
            return
        if parts[0] == "cvt":
            source_type = TYPES.get(parts[-1])
            value = convert(_as_type(value, source_type), t) if source_type is not None else convert(value, t)
        else:
            value = _as_type(value, t)
        self._write(dest, value, state, stmt, mask)

    def _arith(self, stmt: PtxStatement, parts: list[str], state: _State, mask: Mask) -> None:
        head = parts[0]
        t = TYPES.get(parts[-1])
        if t is None or "cc" in parts or "hi" in parts:
            self._unknown_into(stmt.operands[0] if stmt.operands else None, state, stmt, mask, t or C.UINT,
                               f"a value computed by inline PTX {stmt.opcode}")
            return
        wide = "wide" in parts
        widened = {C.UINT: C.ULONG, C.INT: C.LONG, C.USHORT: C.UINT, C.SHORT: C.INT}
        result_type = widened.get(t, t) if wide else t
        values = [self._read(o, state, stmt, mask, t) for o in stmt.operands[1:]]
        if any(not isinstance(v, Scalar) for v in values):
            raise Failure(stmt, f"unsupported construct: {stmt.opcode} on a pointer")
        values = [convert(v, result_type) for v in values]
        if head in ("not", "neg", "abs"):
            a = values[0]
            result = bit_not(a, stmt) if head == "not" else negate(a) if head == "neg" else Scalar(
                a.type, np.abs(a.data), a.known, None, a.taint)
        elif head == "mad":
            result = binary("+", binary("*", values[0], values[1], mask, stmt), values[2], mask, stmt)
        elif head in ("min", "max"):
            a, b = values
            less = binary("<", a, b, mask, stmt)
            pick = less.data if head == "min" else np.logical_not(less.data)
            result = Scalar(a.type, np.where(pick, a.data, b.data), less.known, None, a.taint or b.taint)
        else:
            a, b = values
            if head in ("shl", "shr"):
                b = convert(b, C.UINT)
            result = binary(_ARITH[head], a, b, mask, stmt)
        self._write(stmt.operands[0], convert(result, result_type), state, stmt, mask)

    def _setp(self, stmt: PtxStatement, parts: list[str], state: _State, mask: Mask) -> None:
        t = TYPES.get(parts[-1])
        compare = _COMPARE.get(parts[1])
        if t is None or compare is None or len(stmt.operands) != 3 or "|" in stmt.operands[0].name:
            raise Failure(stmt, f"unsupported construct: PTX instruction {stmt.opcode} in this form")
        a = self._read(stmt.operands[1], state, stmt, mask, t)
        b = self._read(stmt.operands[2], state, stmt, mask, t)
        self._write(stmt.operands[0], binary(compare, a, b, mask, stmt), state, stmt, mask)

    # --- shared-memory contents ----------------------------------------------------------

    def _put(self, addresses: np.ndarray, value: Value, t: CType, mask: Mask) -> None:
        if not isinstance(value, Scalar):
            self._forget(addresses, t.size, mask)
            return
        value = _as_type(value, t)
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


def shared_address(pointer: Value, t: CType, node) -> Scalar:  # noqa: ANN001
    """The shared-window address of a generic pointer to shared memory (cvta.to.shared,
    __cvta_generic_to_shared): the array's place in the window plus the byte offset."""
    if not isinstance(pointer, Pointer):
        raise Failure(node, "a shared-window address needs a pointer to a __shared__ array (explain cannot "
                            "convert an integer generic address)")
    if not isinstance(pointer.region, SharedVariable):
        raise Failure(node, "the pointer does not point into shared memory")
    offset = np.asarray(pointer.offset, np.int64) + pointer.region.base
    return convert(Scalar(C.ULONG, offset.astype(np.uint64) if offset.ndim else np.uint64(offset)), t)


def _constraint_type(letter: str) -> str:
    return {"h": "u16", "r": "u32", "l": "u64", "f": "f32", "d": "f64", "n": "s64", "c": "u8"}[letter]


def _element(parts: list[str], stmt: PtxStatement) -> tuple[CType, int]:
    count = next((int(p[1:]) for p in parts if p in ("v2", "v4", "v8")), 1)
    last = parts[-1]
    if last == "b128":
        return B128, 1
    t = TYPES.get(last)
    if t is None or t.kind == "bool":
        raise Failure(stmt, f"unsupported construct: PTX instruction {stmt.opcode} (type .{last})")
    return t, count


def _access_type(t: CType, count: int) -> CType:
    if count == 1:
        return t
    size = t.size * count
    return CType(f"{t.name}x{count}", "vec", size, min(16, size), None, t.signed, 0, t, count)


def _two(stmt: PtxStatement) -> tuple[Operand, Operand]:
    if len(stmt.operands) < 2:
        raise Failure(stmt, f"unsupported construct: `{stmt.text}`: expected two operands")
    return stmt.operands[0], stmt.operands[1]


def _as_type(value: Scalar, t: CType) -> Scalar:
    """``value`` as PTX register type ``t``: a conversion between integers or between floats,
    a reinterpretation of the bits between an integer and a float of the same size."""
    if value.type == t or t is None:
        return value
    same_family = (value.type.kind == "float") == (t.kind == "float")
    if same_family or value.type.size != t.size or t.kind == "bool" or value.type.kind == "bool":
        return convert(value, t)
    data = np.asarray(value.data).astype(value.type.dtype).view(t.dtype)
    return Scalar(t, data if data.ndim else data[()], value.known, value.src, value.taint)
