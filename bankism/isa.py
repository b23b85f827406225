"""SASS opcodes of shared-memory instructions, decoded into the engine's terms, in one table.

An opcode such as ``ATOMS.CAST.SPIN.64`` or ``LDSM.16.MT88.4`` names its family first (``ATOMS``), then
modifiers. ``SASS_OPS`` maps the family to the engine's op; ``ATOMIC_SASS`` maps an atomic modifier to
the engine's ``atomic_op`` (arch.ATOMIC_OPS). ``docs/rules.md`` and ``docs/analyze.md`` cite the
measurements behind each entry (traces/probes/sass.txt holds the SASS the probes compiled to).
"""

from __future__ import annotations

#: SASS family -> engine op.
SASS_OPS = {
    "LDS": "load", "STS": "store", "ATOMS": "atomic", "LDSM": "ldmatrix", "STSM": "stmatrix",
    "LDGSTS": "ldgsts",  # cp.async: LDGSTS.E (.ca), .64, .128, .BYPASS (.cg); width from the opcode
}

#: Generic-pointer families the tracer records when their address is in the shared window: the engine op
#: the tracer's flags give them is simulated with the LDS/STS rules of the same width. Measured: the generic
#: 4-byte LD.E of cuda_fp16.h's atomicAdd counts as the LDS of the same lanes (26 probes,
#: traces/probes/sm_90_atomics.json); WMMA's generic LD.E/.64 and ST.E/.64/.128 fragments match ncu's launch
#: totals (traces/wmma_shapes.json); a public HGEMM's LD.E matches ncu's address-level count (run 10).
#: Generic atomics (ATOM.E) are not among them: no rule was measured.
GENERIC_SASS = {"LD": "load", "ST": "store"}

#: ATOMS modifier -> engine atomic_op, the first listed modifier of an opcode deciding. ``CAST`` (with
#: ``SPIN``) is the compare-and-store of a CAS retry loop; ``POPC`` is ``ATOMS.POPC.INC.32``, what
#: ``atomicAdd(&s[i], 1)`` compiles to when its result is unused. Every entry is measured on the H100
#: (traces/probes/sm_90_probes.json, traces/probes/sm_90_atomics.json; SASS in traces/probes/sass.txt and
#: traces/probes/sm_90_atomics_sass.txt).
ATOMIC_SASS = {
    "ADD": "add", "EXCH": "exch", "CAS": "cas", "CAST": "cas_spin", "POPC": "popc_inc",
    "INC": "inc", "DEC": "dec", "MIN": "min", "MAX": "max", "AND": "and", "OR": "or", "XOR": "xor",
}

#: The atomic_op assumed for an atomic site whose SASS opcode is unknown (a trace without disassembly).
DEFAULT_ATOMIC_OP = "add"

#: LDGSTS width by its last modifier (no modifier: 4 bytes), as ptxas emits them for cp.async.ca/.cg 4/8/16
#: (traces/probes/sm_90_ldgsts_probes.json, "sass").
LDGSTS_WIDTHS = {"64": 8, "128": 16}

#: Global loads whose L1 fills a shared store can wait for (``capture.phases``): LDG and its forms. LDGSTS
#: (cp.async) is not one: its fills were measured not to cause the store surplus (run 8).
GLOBAL_LOAD_SASS = ("LDG",)
#: Families that copy or convert one register into another: a shared store of their result still waits
#: for the load that produced their source (``capture.phases`` follows them).
REGISTER_COPY_SASS = ("MOV", "IMAD.MOV", "F2F", "I2F", "F2I", "I2I", "I2FP", "F2IP")
#: Families that end a barrier interval or a warp's program order for the phase walk.
BARRIER_SASS = ("BAR", "EXIT")

#: Matrix counts an LDSM/STSM opcode can end with (``.1``, ``.2``, ``.4``).
MATRIX_COUNTS = ("1", "2", "4")


def opcode_parts(opcode: str | None) -> list[str]:
    """The dot-separated parts of an opcode, upper-cased (``[]`` for none)."""
    return opcode.upper().split(".") if opcode else []


def op_of_sass(opcode: str | None) -> str | None:
    """The engine op of a SASS opcode (``LDS.64`` -> ``load``), or None when it is not a shared-memory one."""
    parts = opcode_parts(opcode)
    return SASS_OPS.get(parts[0]) if parts else None


def atomic_op_of_sass(opcode: str | None) -> str | None:
    """The engine atomic_op of an ATOMS opcode (``ATOMS.CAST.SPIN.64`` -> ``cas_spin``).

    DEFAULT_ATOMIC_OP when there is no opcode; None when the opcode names no measured operation
    (the instruction cannot be modelled).
    """
    if not opcode:
        return DEFAULT_ATOMIC_OP
    found = [ATOMIC_SASS[p] for p in opcode_parts(opcode)[1:] if p in ATOMIC_SASS]
    return found[0] if found else None


def unmodelled_reason(opcode: str | None) -> str | None:
    """Why a recorded shared-memory instruction with this SASS opcode cannot be simulated, else None.

    An opcode of a family outside SASS_OPS and GENERIC_SASS, or an ATOMS opcode naming no measured
    operation, is unknown; a site without an opcode (or a generic one) is classified from the tracer's
    flags instead.
    """
    parts = opcode_parts(opcode)
    if not parts or parts[0] in GENERIC_SASS:
        return None
    if parts[0] not in SASS_OPS:
        return f"unknown shared-memory opcode {opcode}: no measured rule"
    if SASS_OPS[parts[0]] == "atomic" and atomic_op_of_sass(opcode) is None:
        return f"unknown atomic opcode {opcode}: no measured rule"
    return None


def matrix_shape_of_sass(opcode: str | None, recorded: int) -> tuple[int, bool]:
    """(matrices, transposed) of an LDSM/STSM opcode; ``recorded`` is used when the opcode has no count."""
    parts = opcode_parts(opcode)
    count = int(parts[-1]) if parts and parts[-1] in MATRIX_COUNTS else (recorded or 1)
    return count, any(p.startswith("MT") for p in parts)


def ldgsts_width_of_sass(opcode: str | None) -> int | None:
    """Bytes per lane of an LDGSTS opcode (``LDGSTS.E.BYPASS.128`` -> 16), or None for another opcode."""
    parts = opcode_parts(opcode)
    if not parts or parts[0] != "LDGSTS":
        return None
    return LDGSTS_WIDTHS.get(parts[-1], 4)


def is_bypass_ldgsts(opcode: str | None) -> bool:
    """Whether an LDGSTS opcode is the L1-bypassing form (cp.async.cg): ``LDGSTS.E.BYPASS.128``."""
    parts = opcode_parts(opcode)
    return bool(parts) and parts[0] == "LDGSTS" and "BYPASS" in parts

# --- CUDA atomic* calls on shared memory -> the SASS nvcc 13 emits for sm_90 ----------------------
# Measured by compiling hw/atomics/forms.cu (every call, result used and unused) and reading cuobjdump
# -sass (traces/probes/sm_90_atomics_sass.txt); each form's cost is in traces/probes/sm_90_atomics.json.


class AtomicForm:
    """What one CUDA atomic* call on a shared address compiles to on sm_90.

    ``sass``: the instruction(s); ``atomic_op``: the engine's atomic_op of the atomic instruction (None
    when bankism has no rule for it); ``loop``: None for one instruction, else the retry loop nvcc
    emits (``"cas_spin"``: an LDS + ATOMS.CAST.SPIN pair per iteration); ``refusal``: why explain cannot
    interpret it, or None.
    """

    __slots__ = ("sass", "atomic_op", "loop", "refusal")

    def __init__(self, sass: str, atomic_op: str | None, loop: str | None = None, refusal: str | None = None):
        self.sass, self.atomic_op, self.loop, self.refusal = sass, atomic_op, loop, refusal

    def __repr__(self) -> str:
        return f"AtomicForm({self.sass!r}, {self.atomic_op!r}, loop={self.loop!r})"


#: (function, operand kind: "s" signed int, "u" unsigned int, "f" float, size in bytes) -> SASS opcode,
#: for the calls that compile to one ATOMS instruction. atomicSub is an ATOMS.ADD of the negation.
_NATIVE_ATOMIC_CALLS = {
    ("atomicAdd", "s", 4): "ATOMS.ADD", ("atomicAdd", "u", 4): "ATOMS.ADD",
    ("atomicSub", "s", 4): "ATOMS.ADD", ("atomicSub", "u", 4): "ATOMS.ADD",
    ("atomicInc", "u", 4): "ATOMS.INC", ("atomicDec", "u", 4): "ATOMS.DEC",
    ("atomicMin", "s", 4): "ATOMS.MIN.S32", ("atomicMax", "s", 4): "ATOMS.MAX.S32",
    ("atomicMin", "u", 4): "ATOMS.MIN", ("atomicMax", "u", 4): "ATOMS.MAX",
    ("atomicAnd", "s", 4): "ATOMS.AND", ("atomicOr", "s", 4): "ATOMS.OR", ("atomicXor", "s", 4): "ATOMS.XOR",
    ("atomicAnd", "u", 4): "ATOMS.AND", ("atomicOr", "u", 4): "ATOMS.OR", ("atomicXor", "u", 4): "ATOMS.XOR",
    ("atomicExch", "s", 4): "ATOMS.EXCH", ("atomicExch", "u", 4): "ATOMS.EXCH",
    ("atomicExch", "f", 4): "ATOMS.EXCH",
    ("atomicCAS", "s", 4): "ATOMS.CAS", ("atomicCAS", "u", 4): "ATOMS.CAS",
    ("atomicExch", "s", 8): "ATOMS.EXCH.64", ("atomicExch", "u", 8): "ATOMS.EXCH.64",
    ("atomicCAS", "s", 8): "ATOMS.CAS.64", ("atomicCAS", "u", 8): "ATOMS.CAS.64",
}

#: 8-byte calls nvcc compiles to an LDS.64 + ATOMS.CAST.SPIN.64 loop (no 64-bit ALU shared atomic on sm_90).
_LOOP_64 = ("atomicAdd", "atomicMin", "atomicMax", "atomicAnd", "atomicOr", "atomicXor")


def atomic_form(function: str, kind: str, size: int, result_used: bool = True,
                operand_is_one: bool = False) -> AtomicForm:
    """The SASS nvcc emits for ``function`` (atomicAdd, atomicMin, ... without _block/_system) on a shared
    operand of ``kind`` ("s", "u" or "f") and ``size`` bytes. ``atomicAdd(p, 1)`` whose result is unused
    becomes ATOMS.POPC.INC.32 (a literal 1; atomicSub and other values stay ATOMS.ADD)."""
    if function == "atomicAdd" and kind in "su" and size == 4 and operand_is_one and not result_used:
        return AtomicForm("ATOMS.POPC.INC.32", "popc_inc")
    opcode = _NATIVE_ATOMIC_CALLS.get((function, kind, size))
    if opcode is not None:
        return AtomicForm(opcode, atomic_op_of_sass(opcode))
    if function == "atomicAdd" and kind == "f" and size == 4:
        return AtomicForm("LDS + FADD + ATOMS.CAST.SPIN retry loop", "cas_spin", loop="cas_spin")
    if size == 8 and (function in _LOOP_64 or (function == "atomicAdd" and kind == "f")):
        return AtomicForm("LDS.64 + ATOMS.CAST.SPIN.64 retry loop", "cas_spin", loop="cas_spin_64",
                          refusal=f"{function}() on an 8-byte shared value compiles to an LDS.64 + "
                                  "ATOMS.CAST.SPIN.64 retry loop, whose iteration count is not modelled")
    if function == "atomicCAS" and size == 2:
        return AtomicForm("LDS + ATOMS.CAS retry loop on the enclosing word", "cas", loop="cas_word",
                          refusal="atomicCAS() on a 2-byte shared value compiles to a 32-bit CAS loop on the "
                                  "enclosing word, which bankism does not interpret")
    refusal = f"{function}() on a {size}-byte shared value: no measured form"
    return AtomicForm("unknown", None, refusal=refusal)


#: The calls nvcc 13.0 (-O3, sm_90) issues from one lane after a warp reduction (VOTEU.ANY, UFLO and REDUX
#: or POPC, then one predicated ATOMS) when the shared address is the same in every lane by its divergence
#: analysis: 32-bit integer add, sub, min, max, and, or and xor whose result is unused, and add or sub of
#: a constant whose result is used (POPC + SHFL). Not: ``atomicAdd(p, 1)`` unused (ATOMS.POPC.INC from every
#: lane), min/max with the result used, exch, inc, CAS, floats and 8-byte values (SASS of our kernel
#: tests/data/explain/atomics/uniform_atomics.cu; on the H100 a public softmax's atomicMax on one shared
#: int: 128 ATOMS.MAX.S32 of one lane, 128 wavefronts, traces/explain_check/beside_h100.json).
_AGGREGATED = ("atomicAdd", "atomicSub", "atomicMin", "atomicMax", "atomicAnd", "atomicOr", "atomicXor")


def warp_aggregated(function: str, kind: str, size: int, result_used: bool, operand_constant: bool) -> bool:
    """Whether nvcc issues ``function`` on a warp-uniform shared address from one lane (``_AGGREGATED``)."""
    if kind not in "su" or size != 4 or function not in _AGGREGATED:
        return False
    return not result_used or (function in ("atomicAdd", "atomicSub") and operand_constant)
