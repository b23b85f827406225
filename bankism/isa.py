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

#: ATOMS modifier -> engine atomic_op. ``CAST`` (with ``SPIN``) is the compare-and-store of a CAS retry loop.
ATOMIC_SASS = {"ADD": "add", "EXCH": "exch", "CAS": "cas", "CAST": "cas_spin"}

#: The atomic_op of an ATOMS opcode that names none of ATOMIC_SASS's modifiers.
DEFAULT_ATOMIC_OP = "add"

#: LDGSTS width by its last modifier (no modifier: 4 bytes), as ptxas emits them for cp.async.ca/.cg 4/8/16
#: (traces/probes/sm_90_ldgsts_probes.json, "sass").
LDGSTS_WIDTHS = {"64": 8, "128": 16}

#: Asynchronous shared-memory instruction families the tracer sees only as events or not at all, and what
#: each is (cuobjdump -sass of hw/async/tma_wgmma_probe.cu and traces/kernels/cpasync_matmul.cu, sm_90a).
ASYNC_SHARED_SASS = {
    "LDGSTS": "cp.async (global -> shared)",
    "UBLKCP": "cp.async.bulk (bulk copy)",
    "UBLKRED": "cp.reduce.async.bulk (bulk reduction)",
    "UTMALDG": "TMA tensor copy into shared memory (cp.async.bulk.tensor)",
    "UTMASTG": "TMA tensor copy out of shared memory",
    "UTMAREDG": "TMA tensor reduction out of shared memory",
    "UTMAPF": "TMA prefetch",
    "HGMMA": "wgmma (f16/bf16/tf32) reading shared-memory operands",
    "IGMMA": "wgmma (integer) reading shared-memory operands",
    "QGMMA": "wgmma (fp8) reading shared-memory operands",
    "BGMMA": "wgmma (binary) reading shared-memory operands",
}

#: Matrix counts an LDSM/STSM opcode can end with (``.1``, ``.2``, ``.4``).
MATRIX_COUNTS = ("1", "2", "4")


def opcode_parts(opcode: str | None) -> list[str]:
    """The dot-separated parts of an opcode, upper-cased (``[]`` for none)."""
    return opcode.upper().split(".") if opcode else []


def op_of_sass(opcode: str | None) -> str | None:
    """The engine op of a SASS opcode (``LDS.64`` -> ``load``), or None when it is not a shared-memory one."""
    parts = opcode_parts(opcode)
    return SASS_OPS.get(parts[0]) if parts else None


def atomic_op_of_sass(opcode: str | None) -> str:
    """The engine atomic_op of an ATOMS opcode (``ATOMS.CAST.SPIN.64`` -> ``cas_spin``)."""
    found = [ATOMIC_SASS[p] for p in opcode_parts(opcode)[1:] if p in ATOMIC_SASS]
    return found[0] if found else DEFAULT_ATOMIC_OP


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


def async_class_of_sass(opcode: str | None) -> str | None:
    """What an asynchronous shared-memory opcode is (ASYNC_SHARED_SASS), or None."""
    parts = opcode_parts(opcode)
    return ASYNC_SHARED_SASS.get(parts[0]) if parts else None
