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
#: Largest block dimensions (x, y, z) and grid dimensions CUDA allows (compute capability 3.0 to 9.0;
#: CUDA C++ Programming Guide, "Technical Specifications per Compute Capability").
MAX_BLOCK_DIMS = (1024, 1024, 64)
MAX_GRID_DIMS = (2**31 - 1, 65535, 65535)
#: Every integer bankism reads from a file or an argument is a 64-bit signed integer.
INT64_MAX = 2**63 - 1
#: Lanes that give the row addresses of one 8x8 matrix of ldmatrix/stmatrix (lanes 8k..8k+7 for matrix k).
LANES_PER_MATRIX = 8
#: Bytes of one matrix row that ldmatrix/stmatrix move per row address (8 x 16-bit elements).
MATRIX_ROW_BYTES = 16
#: Bytes of one L1/L2 sector, the unit of ncu's fill and traffic counts (``sectors``).
SECTOR_BYTES = 32
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
class CasLoopRule:
    """Which lanes succeed in each iteration of a compiler CAS retry loop (LDS + ATOMS.CAST.SPIN).

    Every remaining lane loads its word and issues its compare-and-swap. The lanes go to the banks in
    ``split`` groups, one group after the other; in each group, the lowest remaining lane of each bank
    slot (``unit_bytes`` wide: unit index % (bank row bytes / unit_bytes)) is chosen and the others fail
    and retry. With ``sees_earlier_groups`` a chosen lane also fails when a lane of an earlier group of the
    same iteration wrote its word (its compare reads the new value). The loop ends when no lane remains.
    """

    split: str
    unit_bytes: int
    sees_earlier_groups: bool = False

    @property
    def lanes_per_group(self) -> int:
        return SPLIT_LANES[self.split]


@dataclass(frozen=True)
class SurplusRule:
    """The whole-kernel surplus: wavefronts ncu counts beyond the address-level rules, from contention
    with other L1 traffic (docs/rules.md, "Whole kernels: the surplus"; bankism/analyze/surplus.py).

    A shared-memory instruction that meets an L1 data-bank write of other traffic costs extra wavefronts.
    The expected count, if the two are spread evenly over the launch, is per class
    ``sum over sites of executions * sqrt(wavefronts / executions)`` times, per SM-cycle of the launch,
    ``per_fill_sector * L1 fill sectors + per_store_sector * global store sectors``. ``min_warps_per_sm``:
    at or below this occupancy no surplus was ever measured. ``quiet``: below this expected share of the
    predicted wavefronts the launch is quiet and may differ by at most ``quiet_band``; otherwise by
    ``busy_band`` (the largest error on launches the coefficients were not fitted on), both as shares of
    the measured wavefronts.
    """

    per_fill_sector: dict[str, float]
    per_store_sector: dict[str, float]
    min_warps_per_sm: float
    max_warps_per_sm: int
    quiet: float
    quiet_band: float
    busy_band: dict[str, float]
    #: Atomic bursts: per shared-atomic instruction with at most ``burst_max_lanes`` active lanes, in
    #: blocks of at least (key) warps, the extra wavefronts measured when the warps issue them together
    #: after a barrier, with no other traffic (traces/surplus/sm_90_atomic_phase.json: none at 8 warps or
    #: fewer, 0.079 at 16, 0.093 at 32, one active lane).
    burst_per_instruction: dict[int, float] = field(default_factory=dict)
    burst_max_lanes: int = 8
    #: Tiled kernels: the largest store surplus, as a share of the measured store wavefronts, that blocks of
    #: at most (key) warps showed when every warp stores the tile it loaded and meets the others at a
    #: barrier (traces/surplus/sm_90_tile_phase.json, every fed configuration). A label, not an estimate:
    #: a store surplus above the even-spread band but under this ceiling has that measured cause.
    tile_store_ceiling: dict[int, float] = field(default_factory=dict)
    #: Fed stores (a shared store of a value its warp just loaded from global memory; ``capture.phases``):
    #: surplus wavefronts per store, by the wavefronts of one store (1: 4 bytes, 2: 8 bytes) and the warps of
    #: a block: the median of the tile-phase probe's fed launches (traces/surplus/sm_90_tile_phase.json,
    #: hw/surplus/fit_store_phase.py). Between entries the rate is interpolated over log2(warps); a wider
    #: store takes the 2-wavefront rate per 2 wavefronts (not measured).
    fed_store_rate: dict[int, dict[int, float]] = field(default_factory=dict)
    #: The L1 bytes (fills plus global stores) an SM allocates before the surplus starts: none up to this,
    #: then ``sqrt((F - free) / F)`` of the steady surplus (run 14: traces/surplus/sm_90_l1_capacity.json,
    #: stores, 41 fed launches, least squares; 0 measured at 132 KiB, 1.15% of a 2.8% steady value at 161
    #: KiB; runs 19-20, traces/surplus/sm_90_cover.json: atomics and loads too, 0 up to 132 KiB).
    l1_free_bytes: int = 0
    #: Loads that only some warps of a block issue (a reduction's last step): the largest load surplus, as a
    #: share of the measured load wavefronts, that one warp of blocks of at most (key) warps showed reading 32
    #: values while other blocks' global loads fill L1 (traces/surplus/sm_90_oneshot.json, the ``warp0``
    #: configurations, both ncu settings). A label, like ``tile_store_ceiling``, not an estimate.
    few_warp_load_ceiling: dict[int, float] = field(default_factory=dict)
    #: Loads of blocks that write what they read to global memory (a transpose's second phase: at least
    #: ``transpose_store_sectors`` global store sectors per shared load instruction): the largest load surplus
    #: share runs 28-32 measured for blocks of at most (key) warps (traces/surplus/sm_90_rowspan.json, every
    #: configuration). It follows the code between the barrier and the loads, which no trace or counter holds
    #: (32 dependent adds there take a 32-warp transpose from 0.8% to 15.7%). A label, not an estimate.
    transpose_load_ceiling: dict[int, float] = field(default_factory=dict)
    transpose_store_sectors: float = 1.0
    #: Resident blocks per SM at most (CUDA's limit for the architecture): with the warps and shared memory
    #: of a block, whether a launch runs in one wave (its stores before any global load then meet no fill).
    max_blocks_per_sm: int = 32
    #: Bank coverage (runs 19-20, traces/surplus/sm_90_cover.json, hw/surplus/fit_cover.py): a one-wavefront
    #: access meets other L1 traffic only where their banks overlap. Per units of the bank row its active
    #: lanes touch, its share of the full row's surplus: stores and atomics against fills by the 32-byte
    #: sector groups touched (1, 2, 4 of 4), loads and atomics against global stores by the 16-byte units (1,
    #: 2, 4, 8 of 8); between entries linear. Accesses of several wavefronts keep 1 (not a table: run 20).
    fill_coverage: dict[int, float] = field(default_factory=dict)
    store_coverage: dict[int, float] = field(default_factory=dict)
    #: One-shot atomics (each warp runs the site at most ``one_shot_most`` times: a histogram of one element
    #: per thread) in a launch of several waves: surplus wavefronts per instruction by warps per block, the
    #: histogram probe of run 22 (traces/surplus/sm_90_oneshot_atomic.json, 32 bins, 16 Mi elements); no L1
    #: threshold or bank coverage applies (measured at 31 KiB per SM, and on 1 to 256 bins); none in one wave.
    one_shot_atomic_rate: dict[int, float] = field(default_factory=dict)
    one_shot_most: float = 2.0
    #: Few-lane atomics that every warp of a block issues (a warp-aggregated counter): the largest atomic
    #: surplus share runs 24 and 27 measured for blocks of at most (key) warps, with or without loads, one
    #: word or four (traces/surplus/sm_90_oneshot_atomic.json, MODES 1-3). A label, like
    #: ``tile_store_ceiling``.
    few_lane_atomic_ceiling: dict[int, float] = field(default_factory=dict)


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
    #: The CAS retry loop of each width (bytes) that has no native atomic (``CasLoopRule``).
    cas_loops: dict[int, CasLoopRule] = field(default_factory=dict, repr=False)
    #: The whole-kernel surplus model (``SurplusRule``), None where not measured.
    surplus: SurplusRule | None = field(default=None, repr=False)

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
    # traces/probes/random/sm_90_atomics_random.json (docs/rules.md, "Random warps"): the float-add loop
    # (LDS + ATOMS.CAST.SPIN) takes the lowest remaining lane of each bank per iteration over the whole warp;
    # the 64-bit loop (LDS.64 + ATOMS.CAST.SPIN.64) per half-warp, per 8-byte bank slot, and a lane of the
    # second half-warp that was chosen fails when the first half-warp's winner wrote its word.
    cas_loops={4: CasLoopRule("warp", 4), 8: CasLoopRule("half-warp", 8, sees_earlier_groups=True)},
    # Fitted by hw/surplus/fit_surplus.py on the 181 launches of traces/surplus/sm_90_sweep.json (least
    # squares, no intercept): stores meet L1 fills, loads meet global stores, atomics both; nothing else.
    # busy_band: the largest error on the held-out traced launches of traces/surplus/kernels and
    # traces/python/surplus, in points of measured wavefronts, rounded up; quiet_band: 1 point.
    surplus=SurplusRule(
        per_fill_sector={"ld": 0.0, "st": 0.456, "atom": 0.586},
        per_store_sector={"ld": 0.480, "st": 0.0, "atom": 0.454},
        min_warps_per_sm=4.0, max_warps_per_sm=64,
        quiet=0.01, quiet_band=0.01,
        busy_band={"ld": 0.10, "st": 0.05, "atom": 0.03},
        burst_per_instruction={16: 0.079, 32: 0.093}, burst_max_lanes=8,
        tile_store_ceiling={2: 0.034, 4: 0.033, 8: 0.051, 16: 0.082, 32: 0.193},
        few_warp_load_ceiling={8: 0.152, 32: 0.465},
        transpose_load_ceiling={4: 0.099, 8: 0.112, 16: 0.036, 32: 0.157},
        fed_store_rate={1: {2: 0.003, 4: 0.013, 8: 0.033, 16: 0.079, 32: 0.186},
                        2: {2: 0.017, 4: 0.038, 8: 0.081, 16: 0.165, 32: 0.3}},
        l1_free_bytes=132 * 1024,
        fill_coverage={1: 0.33, 2: 0.58, 4: 1.0},
        store_coverage={1: 0.08, 2: 0.22, 4: 0.45, 8: 1.0},
        one_shot_atomic_rate={2: 0.013, 4: 0.025, 8: 0.048, 16: 0.095, 32: 0.043},
        few_lane_atomic_ceiling={2: 0.136, 4: 0.137, 8: 0.343, 16: 0.333, 32: 0.448},
    ),
)

ARCHITECTURES: dict[str, Architecture] = {SM90.name: SM90}


def launch_shape_problem(grid: object, block: object) -> str | None:
    """What is wrong with a ``<<<grid, block>>>`` shape (dimensions below 1 or past CUDA's limits,
    more than MAX_THREADS_PER_BLOCK threads), naming the dimension and the limit; None when valid."""
    for what, dims, limits in (("grid", grid, MAX_GRID_DIMS), ("block", block, MAX_BLOCK_DIMS)):
        values = list(dims)  # type: ignore[call-overload]
        for axis, value, most in zip("xyz", values, limits, strict=True):
            if not isinstance(value, int) or isinstance(value, bool):
                return f"{what} {values}: {what}.{axis} {value!r} is not an integer"
            if value < 1:
                return f"{what} {tuple(values)} has a dimension below 1"
            if value > most:
                return f"{what} {tuple(values)}: {what}.{axis} {value:,} is past CUDA's limit of {most:,}"
    threads = block[0] * block[1] * block[2]  # type: ignore[index]
    if threads > MAX_THREADS_PER_BLOCK:
        return f"block {tuple(block)} has {threads} threads; CUDA allows {MAX_THREADS_PER_BLOCK}"  # type: ignore[call-overload]
    return None


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
