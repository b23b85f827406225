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

from collections.abc import Sequence

import numpy as np

from bankism.arch import LANES
from bankism.explain.cuda.ptx import Asm, AsmOperand, Operand, PtxStatement, PtxSyntaxError, statements
from bankism.explain.cuda.ptx_shared import PtxSharedMemory
from bankism.explain.cuda.ptx_special import is_lane_special, lane_special
from bankism.explain.cuda.ptx_types import (
    ARITH,
    B128,
    COMPARE,
    NO_SHARED_ACCESS,
    SPACES,
    SPECIAL_REGISTERS,
    TYPES,
    PtxState,
    as_type,
    constraint_type,
    opcode_parts,
    state_space,
    two_operands,
)
from bankism.explain.simt import ctype as C
from bankism.explain.simt.ctype import CType
from bankism.explain.simt.memory import SHARED_WINDOW
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
    negate,
    per_thread,
    select,
    unknown,
)


class InlinePtx(PtxSharedMemory):
    """Inline PTX (a mixin of ``Machine``)."""

    def _asm(self, expr: Asm, mask: Mask) -> Value:
        try:
            program = statements(expr)
        except PtxSyntaxError as error:
            raise Failure(expr, f"unsupported construct: inline PTX: {error}") from None
        state = PtxState({})
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
                value = unknown(TYPES[constraint_type(operand.constraint)],
                                "a value inline PTX computed that explain does not model")
            else:
                value = state.operands[number]
            target = self.lvalue(operand.expr, mask)
            self.store_to(target, value, mask, operand)
        return constant(C.INT, 0)

    def _operand_value(self, operand: AsmOperand, mask: Mask) -> Value:
        value = self.eval(operand.expr, mask)
        if isinstance(value, Pointer) and value.region is SHARED_WINDOW:  # a window address in a pointer
            address = np.asarray(value.offset).astype(np.uint64)
            address = address if address.ndim else np.uint64(address)
            value = Scalar(C.ULONG, address, value.known, None, value.taint)
        if isinstance(value, Pointer):
            if operand.constraint != "l":
                raise Failure(operand, f'a pointer as asm operand "{operand.constraint}" (pointers need "l")')
            return value
        if not isinstance(value, Scalar):
            raise Failure(operand, f"asm operand of type {value.type}: PTX operands are scalars")
        if operand.constraint == "n" and not all_known(value.known, mask):
            raise Failure(operand, '"n" asm operand must be a constant')
        return convert(value, TYPES[constraint_type(operand.constraint)])

    # --- operands -------------------------------------------------------------------------

    def _predicate(self, stmt: PtxStatement, guard: tuple[str, bool], state: PtxState,
                   mask: Mask) -> np.ndarray:
        name, negate_it = guard
        value = self._read(Operand("reg", name), state, stmt, mask)
        truth = self.truth_of(value, stmt, mask)
        return np.logical_not(truth) if negate_it else truth

    def _read(self, operand: Operand, state: PtxState, stmt: PtxStatement, mask: Mask,
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
        elif name in SPECIAL_REGISTERS:
            value = self._special(name)
        elif is_lane_special(name):
            value = lane_special(name, self.lanes)
        else:
            raise Failure(stmt, f"unsupported construct: PTX register {name} (not declared in the asm, "
                                "or a special register explain does not model)")
        if negated:
            value = Scalar(C.BOOL, np.logical_not(value.data), value.known, None, value.taint)
        if t is not None and isinstance(value, Scalar):
            value = as_type(value, t)
        return value

    def _special(self, name: str) -> Scalar:
        if name == "%laneid":
            return Scalar(C.UINT, (self.lanes % LANES).astype(np.uint32))
        kind, axis = name[1:].split(".")
        index = "xyz".index(axis)
        if kind == "tid":
            return Scalar(C.UINT, (self.tx, self.ty, self.tz)[index])
        source = {"ntid": self.context.block, "ctaid": self.context.block_index, "nctaid": self.context.grid}
        if source[kind] is None:
            return unknown(C.UINT, f"%nctaid.{axis}, the launch's grid (give --grid X,Y,Z)")
        return constant(C.UINT, source[kind][index])

    def _write(self, operand: Operand, value: Value, state: PtxState, stmt: PtxStatement, mask: Mask) -> None:
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

    def _unknown_into(self, operand: Operand | None, state: PtxState, stmt: PtxStatement, mask: Mask,
                      t: CType, why: str) -> None:
        """Registers an instruction writes, with values explain does not know."""
        if operand is None:
            return
        targets = operand.items if operand.kind == "vec" else (operand,)
        for target in targets:
            if target.kind in ("reg", "sink"):
                self._write(target, unknown(t, why), state, stmt, mask)

    # --- dispatch -------------------------------------------------------------------------

    def _ptx(self, stmt: PtxStatement, state: PtxState, mask: Mask) -> None:
        opcode = stmt.opcode
        parts = opcode_parts(opcode)
        head = parts[0]
        if opcode.startswith("."):
            self._declare(stmt, state)
        elif head in ("ld", "st", "atom", "red") and state_space(parts) == "shared" and "async" not in parts:
            handler = {"ld": self._ld_shared, "st": self._st_shared}.get(head, self._atom_shared)
            handler(stmt, parts, state, mask)
        elif head in ("ldmatrix", "stmatrix"):
            self._matrix(stmt, parts, state, mask)
        elif opcode.startswith("cp.async.bulk") or opcode.startswith("cp.reduce.async.bulk"):
            if any(opcode.startswith(p) for p in NO_SHARED_ACCESS):
                return
            self._bulk(stmt, parts, state, mask)
        elif head == "cp" and len(parts) > 1 and parts[1] == "async" and state_space(parts) == "shared":
            if any(opcode.startswith(p) for p in NO_SHARED_ACCESS):
                return
            self._cp_async(stmt, parts, state, mask)
        elif head == "cvta":
            self._cvta(stmt, parts, state, mask)
        elif head in ("ld", "st", "atom", "red") and "async" not in parts:
            self._other_space(stmt, parts, state, mask)
        elif head in ("mov", "cvt"):
            self._move(stmt, parts, state, mask)
        elif head in ARITH or head in ("mad", "min", "max", "not", "neg", "abs"):
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
            if head == "wgmma" and "mma_async" in parts:
                note = (f"{stmt.file or self.context.filename}:{stmt.line}: wgmma.mma_async reads its "
                        "shared-memory operands through matrix descriptors: explain does not count those "
                        "reads (no rule measured for them), only the other accesses")
                if note not in self.notes:
                    self.notes.append(note)
            first = stmt.operands[0] if stmt.operands else None
            self._unknown_into(first, state, stmt, mask, TYPES.get(parts[-1], C.UINT),
                               f"registers written by inline PTX {opcode}")
        elif "shared" in opcode:
            raise Failure(stmt, f"unsupported construct: PTX instruction {opcode} accesses shared memory "
                                "in a way explain does not model")
        elif stmt.operands and _registers_only(stmt.operands) and not set(parts) & SPACE_WORDS:
            # no address operand and no state space: it cannot touch shared memory (`wmma.mma.sync` in
            # inline asm); what it writes (the first operand, as PTX writes) is not known
            self._unknown_into(stmt.operands[0], state, stmt, mask, TYPES.get(parts[-1], C.UINT),
                               f"registers written by inline PTX {opcode}, which explain does not evaluate")
        else:
            raise Failure(stmt, f"unsupported construct: PTX instruction {opcode} is not known to explain")

    def _declare(self, stmt: PtxStatement, state: PtxState) -> None:
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
    # --- register instructions -----------------------------------------------------------

    def _move(self, stmt: PtxStatement, parts: list[str], state: PtxState, mask: Mask) -> None:
        dest, source = two_operands(stmt)
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
            value = convert(as_type(value, source_type), t) if source_type is not None else convert(value, t)
        else:
            value = as_type(value, t)
        self._write(dest, value, state, stmt, mask)

    def _arith(self, stmt: PtxStatement, parts: list[str], state: PtxState, mask: Mask) -> None:
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
            result = binary(ARITH[head], a, b, mask, stmt)
        self._write(stmt.operands[0], convert(result, result_type), state, stmt, mask)

    def _setp(self, stmt: PtxStatement, parts: list[str], state: PtxState, mask: Mask) -> None:
        t = TYPES.get(parts[-1])
        compare = COMPARE.get(parts[1])
        if t is None or compare is None or len(stmt.operands) != 3 or "|" in stmt.operands[0].name:
            raise Failure(stmt, f"unsupported construct: PTX instruction {stmt.opcode} in this form")
        a = self._read(stmt.operands[1], state, stmt, mask, t)
        b = self._read(stmt.operands[2], state, stmt, mask, t)
        self._write(stmt.operands[0], binary(compare, a, b, mask, stmt), state, stmt, mask)


#: State-space words of an opcode (``ld.global``, ``tex``'s texture space): such instructions touch memory.
SPACE_WORDS = frozenset(SPACES) | {"tex", "surf", "sust", "suld", "sured", "tld4", "txq", "suq"}


def _registers_only(operands: Sequence[Operand]) -> bool:
    """Whether every operand is a register, an immediate, a sink or a vector of them (no ``[address]``)."""
    return all(o.kind in ("reg", "imm", "sink") or (o.kind == "vec" and _registers_only(o.items))
               for o in operands)
