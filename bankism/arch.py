"""Shared-memory rules of each GPU architecture, as data.

Every hardware rule the engine applies lives here, one table per architecture; the
engine in ``engine.py`` only interprets these tables. ``docs/rules.md`` gives the
measurements behind each entry.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bankism.errors import BankismError

OPS = ("load", "store", "atomic", "ldmatrix", "stmatrix")
MATRIX_OPS = ("ldmatrix", "stmatrix")
WIDTHS = (1, 2, 4, 8, 16)

#: Which Nsight Compute counter family (op_ld / op_st / op_atom) counts each op.
NCU_COUNTER_OF_OP = {"load": "ld", "ldmatrix": "ld", "store": "st", "stmatrix": "st", "atomic": "atom"}

#: How the lanes of a warp are cut into transactions before any merge.
SPLIT_LANES = {"warp": 32, "half-warp": 16, "quarter-warp": 8, "matrix": 8}


@dataclass(frozen=True)
class Rule:
    """How one instruction kind (op, width) is served by the shared-memory pipe.

    ``split``: lanes are first cut into transactions of ``SPLIT_LANES[split]`` lanes.
    ``merge_xors``: two neighbouring transactions merge into one when, for one of these
    xor masks, every active lane's partner (lane ^ mask) is inactive or has the same address.
    ``cycles_floor``/``cycles_per_wavefront``: throughput model, cycles = max(floor, per * wavefronts).
    """

    split: str
    merge_xors: tuple[int, ...] = ()
    cycles_floor: float = 1.0
    cycles_per_wavefront: float = 1.0

    @property
    def lanes_per_transaction(self) -> int:
        return SPLIT_LANES[self.split]


@dataclass(frozen=True)
class Architecture:
    """Bank geometry, shared-memory size and per-instruction rules of one architecture."""

    name: str
    banks: int
    bank_bytes: int
    shared_bytes: int
    rules: dict[tuple[str, int], Rule] = field(repr=False)
    evidence: str = ""

    def rule(self, op: str, width: int) -> Rule:
        """The rule for ``op`` at ``width`` bytes per lane, or a BankismError naming what is unknown."""
        if op not in OPS:
            raise BankismError(f"unknown op {op!r}: expected one of {', '.join(OPS)}")
        if width not in WIDTHS:
            raise BankismError(f"unknown width {width!r}: expected one of 1, 2, 4, 8, 16 bytes")
        try:
            return self.rules[(op, width)]
        except KeyError:
            raise BankismError(f"{self.name} has no {width}-byte {op} instruction") from None


def _sm90_rules() -> dict[tuple[str, int], Rule]:
    rules: dict[tuple[str, int], Rule] = {}
    for op in ("load", "store"):
        for width in (1, 2, 4):
            rules[(op, width)] = Rule("warp")
        rules[(op, 8)] = Rule("half-warp", (1, 2))
        rules[(op, 16)] = Rule("quarter-warp", (1, 2))
    rules[("atomic", 4)] = Rule("warp")
    rules[("atomic", 8)] = Rule("half-warp", (1, 2))
    rules[("ldmatrix", 16)] = Rule("matrix")
    rules[("stmatrix", 16)] = Rule("matrix")
    return rules


SM90 = Architecture(
    name="sm_90",
    banks=32,
    bank_bytes=4,
    shared_bytes=228 * 1024,
    rules=_sm90_rules(),
)

ARCHITECTURES: dict[str, Architecture] = {"sm_90": SM90}


def get_arch(name: str) -> Architecture:
    """The architecture called ``name`` (e.g. "sm_90"), or a BankismError listing the known ones."""
    try:
        return ARCHITECTURES[name]
    except KeyError:
        known = ", ".join(sorted(ARCHITECTURES))
        raise BankismError(f"unknown arch {name!r}: bankism knows {known}") from None
