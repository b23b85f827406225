"""Shared-memory rules of each GPU architecture, as data.

Every hardware rule and constant lives here (or, for SASS opcodes, in ``isa.py``), one table per
architecture; the engine (``bankism/engine/``) only interprets these tables, and every other module
takes warp size, bank geometry, limits, alignments and the default architecture from here
(``tests/test_rules_in_arch.py`` checks it). ``docs/rules.md`` gives the measurements behind each entry.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bankism.errors import BankismError

if TYPE_CHECKING:  # arrays work too; arch.py stays free of NumPy so that `import bankism` is fast
    import numpy as np

#: Lanes of a warp (CUDA's ``warpSize``).
LANES = 32
#: The active-lane mask of a whole warp.
FULL_MASK = (1 << LANES) - 1
#: Threads a CUDA block may have.
MAX_THREADS_PER_BLOCK = 1024
#: Lanes that give the row addresses of one 8x8 matrix of ldmatrix/stmatrix (lanes 8k..8k+7 for matrix k).
LANES_PER_MATRIX = 8
#: Bytes of one matrix row that ldmatrix/stmatrix move per row address (8 x 16-bit elements).
MATRIX_ROW_BYTES = 16
#: The architecture every front end models unless told otherwise.
DEFAULT_ARCH = "sm_90"
#: Alignment of the dynamic (extern __shared__) array after the static ones: measured on an H100
#: (nvcc 13.0, -arch=sm_90; docs/explain.md, "Shared-memory layout"), unless declared larger.
DYNAMIC_SHARED_ALIGN = 16
#: ``bankism advise --array`` without @BASE lays each array out after the previous one at this
#: alignment (docs/cli.md): the widest access's, so every vector access of the array stays aligned.
DECLARED_ARRAY_ALIGN = 16

OPS = ("load", "store", "atomic", "ldmatrix", "stmatrix", "ldgsts")
MATRIX_OPS = ("ldmatrix", "stmatrix")
WIDTHS = (1, 2, 4, 8, 16)

#: Nsight Compute's shared-memory counter families (op_ld / op_st / op_atom).
NCU_CLASSES = ("ld", "st", "atom")
#: Counter families a launch has only when it uses them: cp.async's (LDGSTS) op_ldgsts.
NCU_OPTIONAL_CLASSES = ("ldgsts",)
#: Which Nsight Compute counter family counts each op.
NCU_COUNTER_OF_OP = {
    "load": "ld", "ldmatrix": "ld", "store": "st", "stmatrix": "st", "atomic": "atom", "ldgsts": "ldgsts",
}

#: How the lanes of a warp are cut into transactions before any merge.
SPLIT_LANES = {"warp": LANES, "half-warp": LANES // 2, "quarter-warp": LANES // 4, "matrix": LANES_PER_MATRIX}


#: The atomic operations whose shared-memory behaviour has been measured (traces/probes/sm_90_probes.json,
#: traces/probes/sm_90_atomics.json). ``popc_inc`` is ATOMS.POPC.INC.32, what ``atomicAdd(&s[i], 1)``
#: becomes when its result is unused; ``cas_spin`` is the ATOMS.CAST.SPIN(.64) of a compiler retry loop.
ATOMIC_OPS = ("add", "exch", "cas", "cas_spin", "popc_inc", "inc", "dec", "min", "max", "and", "or", "xor")

#: Read-modify-write atomics that sm_90 serves like ATOMS.ADD (lanes one per pass, same address too),
#: measured in traces/probes/sm_90_atomics.json (ATOMS.INC, DEC, MIN(.S32), MAX(.S32), AND, OR, XOR).
SERIALISED_ALU_ATOMICS = ("inc", "dec", "min", "max", "and", "or", "xor")

#: 64-bit atomics with no sm_90 instruction: ptxas emits an LDS.64 + ATOMS.CAST.SPIN.64 retry loop.
LOOP_ONLY_64 = ("add", "min", "max", "and", "or", "xor")


@dataclass(frozen=True)
class Rule:
    """How one instruction kind (op, width, atomic op) is served by the shared-memory pipe.

    ``split``: lanes are first cut into transactions of ``SPLIT_LANES[split]`` lanes.
    ``merge_xors``: two neighbouring transactions merge into one when, for one of these
    xor masks, every active lane's partner (lane ^ mask) is inactive or has the same address.
    ``merge_scope``: "pair" tests that condition on the lanes of the two transactions only;
    "warp" tests it on the whole warp, and then every pair merges (or none does).
    ``same_address_serialised``: lanes on one address are served one per wavefront (atomics)
    instead of together (the broadcast of loads and stores).
    ``wavefronts_per_pass``: wavefronts each pass over the banks costs (2 for compare-and-swap).
    ``banked``: False when bank conflicts do not add passes (each non-empty transaction takes one).
    ``cycles_floor``/``cycles_per_wavefront``: throughput model, cycles = max(floor, per * wavefronts);
    None where no cycle measurement exists.
    """

    split: str
    merge_xors: tuple[int, ...] = ()
    merge_scope: str = "pair"
    same_address_serialised: bool = False
    wavefronts_per_pass: int = 1
    banked: bool = True
    cycles_floor: float | None = None
    cycles_per_wavefront: float | None = None

    @property
    def lanes_per_transaction(self) -> int:
        return SPLIT_LANES[self.split]

    def cycles_of(self, wavefronts: np.ndarray) -> np.ndarray:
        """Shared-pipe cycles of warp-instructions costing ``wavefronts`` each (NaN: not measured)."""
        import numpy as np  # lazy: `bankism --help` and the trace layer's readers stay free of NumPy

        if self.cycles_floor is None or self.cycles_per_wavefront is None:
            return np.full(np.shape(wavefronts), np.nan)
        return np.maximum(self.cycles_floor, self.cycles_per_wavefront * np.asarray(wavefronts, np.float64))


@dataclass(frozen=True)
class Architecture:
    """Bank geometry, shared-memory size and per-instruction rules of one architecture.

    ``reserved_shared_bytes``: where a block's own shared variables start in the shared window
    (the system reserves the bytes before it). ``sm_count`` and ``max_clock_hz``: the GPU measured
    (multiprocessors, top SM clock), which turn a block's shared-pipe cycles into a launch's.
    """

    name: str
    banks: int
    bank_bytes: int
    shared_bytes: int
    reserved_shared_bytes: int
    rules: dict[tuple[str, int, str], Rule] = field(repr=False)
    unsupported: dict[tuple[str, int, str], str] = field(default_factory=dict, repr=False)
    sm_count: int | None = None
    max_clock_hz: float | None = None

    @property
    def bank_row_bytes(self) -> int:
        """Bytes of one row of banks (128 on sm_90): addresses this far apart fall in the same bank."""
        return self.banks * self.bank_bytes

    def bank_of(self, address: int | np.ndarray) -> int | np.ndarray:
        """The bank of a shared-window byte address (or of each address of an array).

        Compare-and-swap retry loops arbitrate by it (measured on the H100, traces/probes/sm_90_atomics.json):
        in each round, of the remaining lanes of a warp, the lowest lane in each bank succeeds.
        """
        return (address // self.bank_bytes) % self.banks

    def group_lanes(self, op: str, width: int) -> int:
        """Lanes per transaction of ``op`` at ``width`` bytes before any merge: the store groups of
        cp.async (LDGSTS), whose global sources ``capture`` checks against the rule (docs/rules.md)."""
        return self.rule(op, width).lanes_per_transaction

    def rule(self, op: str, width: int, atomic_op: str = "add") -> Rule:
        """The rule for ``op`` at ``width`` bytes per lane, or a BankismError naming what is unknown."""
        if op not in OPS:
            raise BankismError(f"unknown op {op!r}: expected one of {', '.join(OPS)}")
        if width not in WIDTHS:
            raise BankismError(f"unknown width {width!r}: expected one of 1, 2, 4, 8, 16 bytes")
        if op == "atomic" and atomic_op not in ATOMIC_OPS:
            raise BankismError(
                f"unknown atomic_op {atomic_op!r}: measured ones are {', '.join(ATOMIC_OPS)}"
            )
        key = (op, width, atomic_op if op == "atomic" else "")
        if key in self.unsupported:
            raise BankismError(f"{self.name}: {self.unsupported[key]}")
        try:
            return self.rules[key]
        except KeyError:
            raise BankismError(f"{self.name} has no {width}-byte {op} instruction") from None


def _sm90_rules() -> dict[tuple[str, int, str], Rule]:
    """sm_90 (H100), fitted to traces/probes/sm_90_probes.json and traces/cycles/sm_90_cycles.json.

    docs/rules.md gives the probe families behind each entry; hw/fit_cycles.py the cycle fit.
    """
    rules: dict[tuple[str, int, str], Rule] = {}
    for op in ("load", "store"):
        for width in (1, 2, 4):
            rules[(op, width, "")] = Rule("warp", cycles_floor=1.0, cycles_per_wavefront=1.0)
    rules[("load", 8, "")] = Rule("half-warp", (1, 2), cycles_floor=1.07, cycles_per_wavefront=1.0)
    rules[("load", 16, "")] = Rule(
        "quarter-warp", (1, 2), merge_scope="warp", cycles_floor=2.11, cycles_per_wavefront=1.0
    )
    rules[("store", 8, "")] = Rule("half-warp", cycles_floor=2.0, cycles_per_wavefront=1.0)
    rules[("store", 16, "")] = Rule("quarter-warp", cycles_floor=4.0, cycles_per_wavefront=1.0)
    rules[("atomic", 4, "add")] = Rule(
        "warp", same_address_serialised=True, cycles_floor=1.0, cycles_per_wavefront=1.0
    )
    rules[("atomic", 4, "exch")] = Rule(
        "warp", same_address_serialised=True, cycles_floor=1.0, cycles_per_wavefront=1.0
    )
    rules[("atomic", 4, "cas")] = Rule(
        "warp", same_address_serialised=True, wavefronts_per_pass=2, cycles_floor=2.0,
        cycles_per_wavefront=1.0,
    )
    rules[("atomic", 8, "exch")] = Rule(
        "half-warp", same_address_serialised=True, cycles_floor=2.0, cycles_per_wavefront=1.0
    )
    rules[("atomic", 8, "cas")] = Rule(
        "half-warp", same_address_serialised=True, wavefronts_per_pass=2, cycles_floor=4.0,
        cycles_per_wavefront=1.0,
    )
    rules[("atomic", 8, "cas_spin")] = Rule("half-warp", wavefronts_per_pass=2, banked=False)
    # traces/probes/sm_90_atomics.json: ATOMS.POPC.INC.32 merges lanes on one word like a store (302/302
    # probes; 32 lanes on one address cost 1 wavefront); INC/DEC/MIN/MAX/AND/OR/XOR serialise like ADD;
    # the 4-byte ATOMS.CAST.SPIN costs 2 wavefronts per executed instruction whatever its banks (lanes
    # that lose a bank or address conflict fail and retry in the loop's next iteration).
    rules[("atomic", 4, "popc_inc")] = Rule("warp")
    for atomic_op in SERIALISED_ALU_ATOMICS:
        rules[("atomic", 4, atomic_op)] = Rule("warp", same_address_serialised=True)
    rules[("atomic", 4, "cas_spin")] = Rule("warp", wavefronts_per_pass=2, banked=False)
    for matrix_op in ("ldmatrix", "stmatrix"):
        rules[(matrix_op, 16, "")] = Rule("matrix", cycles_floor=1.0, cycles_per_wavefront=1.0)
    # cp.async (LDGSTS), traces/probes/sm_90_ldgsts_probes.json: the shared writes are cut like stores
    # (warp / half-warps / quarter-warps for 4 / 8 / 16 bytes), never merged, and every active lane takes
    # its own pass in its banks, even on an address another lane writes (no broadcast). Exact when each
    # group's lanes read one global 128-byte line, each its own bytes (the site's source_lines <= 1,
    # source_repeats == 0); otherwise a lower bound (docs/rules.md, "cp.async"). No cycle model.
    for width, split in ((4, "warp"), (8, "half-warp"), (16, "quarter-warp")):
        rules[("ldgsts", width, "")] = Rule(split, same_address_serialised=True)
    return rules


SM90 = Architecture(
    name="sm_90",
    banks=32,
    bank_bytes=4,
    shared_bytes=228 * 1024,
    # Measured on the H100 (traces/probes: shared_base 1024; hw/corpus smoke test): the first static
    # or dynamic shared variable is at byte 1024, cudaDevAttrReservedSharedMemoryPerBlock.
    reserved_shared_bytes=1024,
    rules=_sm90_rules(),
    # The H100 80GB HBM3 of traces/timing (ncu device attributes): 132 SMs, top SM clock 1.98 GHz.
    sm_count=132,
    max_clock_hz=1.98e9,
    unsupported={
        ("atomic", 8, atomic_op): (
            f"there is no 64-bit shared atomic {atomic_op} instruction; ptxas emits LDS.64 and an "
            "ATOMS.CAST.SPIN.64 retry loop whose length depends on contention (traces/probes/sass.txt): "
            "simulate each executed LDS.64 (op='load') and ATOMS.CAST.SPIN.64 (atomic_op='cas_spin')"
        )
        for atomic_op in LOOP_ONLY_64
    },
)

ARCHITECTURES: dict[str, Architecture] = {SM90.name: SM90}


def get_arch(name: str) -> Architecture:
    """The architecture called ``name`` (e.g. "sm_90"), or a BankismError listing the known ones."""
    try:
        return ARCHITECTURES[name]
    except KeyError:
        known = ", ".join(sorted(ARCHITECTURES))
        raise BankismError(f"unknown arch {name!r}: bankism knows {known}") from None


def window_base(arch: str = DEFAULT_ARCH) -> int:
    """Where a block's own shared memory starts in the shared window of ``arch`` (the bytes before it
    are reserved: ``Architecture.reserved_shared_bytes``, measured). Traces, explain and advise all
    hold offsets in this window."""
    return get_arch(arch).reserved_shared_bytes
