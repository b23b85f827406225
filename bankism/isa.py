"""SASS opcodes of shared-memory instructions, decoded into the engine's terms, in one table.

An opcode such as ``ATOMS.CAST.SPIN.64`` or ``LDSM.16.MT88.4`` names its family first (``ATOMS``), then
modifiers. ``SASS_OPS`` maps the family to the engine's op; ``ATOMIC_SASS`` maps an atomic modifier to
the engine's ``atomic_op`` (arch.ATOMIC_OPS). ``docs/rules.md`` and ``docs/analyze.md`` cite the
measurements behind each entry (traces/probes/sass.txt holds the SASS the probes compiled to).
"""

from __future__ import annotations

#: SASS family -> engine op.
SASS_OPS = {"LDS": "load", "STS": "store", "ATOMS": "atomic", "LDSM": "ldmatrix", "STSM": "stmatrix"}

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

    An opcode of a family outside SASS_OPS, or an ATOMS opcode naming no measured operation, is
    unknown; a site without an opcode is classified from the tracer's flags instead.
    """
    parts = opcode_parts(opcode)
    if not parts:
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
