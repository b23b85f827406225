"""Inline PTX in explain, shared by its executor's halves: the PTX types as C types, the instruction
families, the registers of one ``asm`` execution, and small operand helpers."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bankism.explain.cuda.ptx import Operand, PtxStatement
from bankism.explain.frontend import syntax as S
from bankism.explain.simt import ctype as C
from bankism.explain.simt.ctype import CType
from bankism.explain.simt.memory import SharedVariable
from bankism.explain.simt.values import (
    Failure,
    Pointer,
    Scalar,
    Value,
    convert,
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
SPACES = ("shared", "global", "local", "param", "const", "generic")
COMPARE = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "lo": "<", "ls": "<=",
            "hi": ">", "hs": ">=", "equ": "==", "neu": "!=", "ltu": "<", "leu": "<=", "gtu": ">", "geu": ">="}
ARITH = {"add": "+", "sub": "-", "mul": "*", "div": "/", "rem": "%", "and": "&", "or": "|", "xor": "^",
          "shl": "<<", "shr": ">>"}
#: Engine names of the atomic operations of atom/red (the engine refuses those not measured).
ATOM_OPS = {"add": "add", "exch": "exch", "cas": "cas"}
#: Ops of shared-memory instructions the engine has no model for yet, with what to say.
ASYNC_OPS = {"ldgsts": "cp.async (LDGSTS)", "bulk": "cp.async.bulk (TMA)"}

SPECIAL_REGISTERS = ("%laneid", "%tid.x", "%tid.y", "%tid.z", "%ntid.x", "%ntid.y", "%ntid.z", "%ctaid.x",
                     "%ctaid.y", "%ctaid.z", "%nctaid.x", "%nctaid.y", "%nctaid.z")


@dataclass
class PtxState:
    """The registers of one asm execution: %N operands and the template's own .reg names."""

    operands: dict[int, Value]
    regs: dict[str, Value] = field(default_factory=dict)
    written: set[int] = field(default_factory=set)


def opcode_parts(opcode: str) -> list[str]:
    return opcode.split(".")


def state_space(parts: list[str]) -> str:
    for part in parts[1:]:
        base = part.split("::")[0]
        if base in SPACES:
            return base
    return "generic"

def shared_address(pointer: Value, t: CType, node: S.Node) -> Scalar:
    """The shared-window address of a generic pointer to shared memory (cvta.to.shared,
    __cvta_generic_to_shared): the array's place in the window plus the byte offset."""
    if not isinstance(pointer, Pointer):
        raise Failure(node, "a shared-window address needs a pointer to a __shared__ array (explain cannot "
                            "convert an integer generic address)")
    if not isinstance(pointer.region, SharedVariable):
        raise Failure(node, "the pointer does not point into shared memory")
    offset = np.asarray(pointer.offset, np.int64) + pointer.region.base
    return convert(Scalar(C.ULONG, offset.astype(np.uint64) if offset.ndim else np.uint64(offset),
                          pointer.known, None, pointer.taint), t)


def constraint_type(letter: str) -> str:
    return {"h": "u16", "r": "u32", "l": "u64", "f": "f32", "d": "f64", "n": "s64", "c": "u8"}[letter]


def element_type(parts: list[str], stmt: PtxStatement) -> tuple[CType, int]:
    count = next((int(p[1:]) for p in parts if p in ("v2", "v4", "v8")), 1)
    last = parts[-1]
    if last == "b128":
        return B128, 1
    t = TYPES.get(last)
    if t is None or t.kind == "bool":
        raise Failure(stmt, f"unsupported construct: PTX instruction {stmt.opcode} (type .{last})")
    return t, count


def access_type(t: CType, count: int) -> CType:
    if count == 1:
        return t
    size = t.size * count
    return CType(f"{t.name}x{count}", "vec", size, min(16, size), None, t.signed, 0, t, count)


def two_operands(stmt: PtxStatement) -> tuple[Operand, Operand]:
    if len(stmt.operands) < 2:
        raise Failure(stmt, f"unsupported construct: `{stmt.text}`: expected two operands")
    return stmt.operands[0], stmt.operands[1]


def as_type(value: Scalar, t: CType) -> Scalar:
    """``value`` as PTX register type ``t``: a conversion between integers or between floats,
    a reinterpretation of the bits between an integer and a float of the same size."""
    if value.type == t or t is None:
        return value
    same_family = (value.type.kind == "float") == (t.kind == "float")
    if same_family or value.type.size != t.size or t.kind == "bool" or value.type.kind == "bool":
        return convert(value, t)
    data = np.asarray(value.data).astype(value.type.dtype).view(t.dtype)
    return Scalar(t, data if data.ndim else data[()], value.known, value.src, value.taint)
