"""The whole-kernel surplus: shared-memory wavefronts ncu counts beyond the address-level rules.

Measured on the H100 (traces/surplus/, docs/rules.md "Whole kernels: the surplus"): a shared-memory
instruction that meets an L1 data-bank write of other traffic costs extra wavefronts, which ncu counts as
bank conflicts. Stores and atomics meet L1 fills (global loads that miss L1), loads and atomics meet
global stores; loads that hit L1 cause none, and nothing was measured at one warp per scheduler or less.
``estimate`` turns a launch's traffic counters (trace field ``traffic``) and its predicted per-site counts
into the expected surplus of each ncu class, with the band the held-out measurements support. Stores with a
phase (the SASS read at record time, capture.phases) are estimated by it: a fed store at the tile-phase rate
of its block's warps, a store before any global load of a one-wave launch at none; and no store surplus
arises before an SM has allocated SurplusRule.l1_free_bytes of L1 (run 14; atomics and loads alike, runs
19-20). A one-wavefront access meets the other traffic only on the banks it touches (``coverage``, runs
19-20).
Limits: other accesses are assumed spread evenly over the launch, so kernels whose phases line them up (a
transpose's loads before its global stores) miss, by as much as the code between the barrier and the loads
staggers the warps (runs 28-32: 0.8% to 15.7% for the same transpose; a ceiling labels it, no estimate); a
CAS retry loop's atomics are not estimated (no cause was measured); the coverage of accesses of several
wavefronts is not modelled.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from bankism.arch import LANES, SECTOR_BYTES, get_arch

#: The bank-row units whose coverage the surplus follows (runs 19-20): 32-byte sector groups for fills,
#: 16-byte units for global stores.
FILL_UNIT_BYTES = SECTOR_BYTES
STORE_UNIT_BYTES = 16

#: What each class's surplus comes from, as measured (docs/rules.md).
CAUSES = {
    "st": "contention with L1 fills of global loads that miss L1",
    "ld": "contention with global stores",
    "atom": "contention with L1 fills of global loads that miss L1 and with global stores",
}
#: What the surplus of few-lane atomics issued together by many warps of a block comes from (measured
#: without any other traffic: traces/surplus/sm_90_atomic_phase.json).
BURST_CAUSE = "bursts of few-lane atomics that 16 or more warps of a block issue together"
#: What the surplus of atomics each warp issues once or twice (a histogram of one element per thread) comes
#: from (traces/surplus/sm_90_oneshot_atomic.json, run 22).
ONE_SHOT_CAUSE = ("one-shot atomics (each warp once or twice, after its loads) meeting the fills of the "
                  "other blocks' loads (hw/surplus/oneshot_atomic.cu)")
#: What the surplus of few-lane atomics by every warp of a block comes from (runs 24 and 27).
COUNTER_CAUSE = ("few-lane atomics that every warp of a block issues, as a warp-aggregated counter "
                 "(hw/surplus/oneshot_atomic.cu, MODES 1-3)")
#: What a tiled kernel's store surplus over the band comes from (traces/surplus/sm_90_tile_phase.json).
TILE_CAUSE = ("each warp's stores meet the fills of the other warps' loads of the same block "
              "(hw/surplus/tile_phase.cu, docs/rules.md)")
#: What the load surplus of a block whose loads only some of its warps issue comes from (run 16-17:
#: traces/surplus/sm_90_oneshot.json).
FEW_WARP_CAUSE = ("loads that only some warps of a block issue meet the fills of other blocks' global loads "
                  "(hw/surplus/oneshot.cu, docs/rules.md)")
#: What the load surplus of a block that writes what it read to global memory comes from (runs 28-32:
#: traces/surplus/sm_90_rowspan.json).
TRANSPOSE_CAUSE = ("loads whose block writes what it read to global memory meet those stores, as much as the "
                   "code between the barrier and the loads staggers the warps (hw/surplus/rowspan.cu, "
                   "docs/rules.md)")
#: What a surplus under each ceiling was measured in, for ``SurplusEstimate.describe``.
CEILING_SOURCES = {
    TILE_CAUSE: "stores waiting for their own loads measured in tiled blocks",
    FEW_WARP_CAUSE: "loads of one warp per block measured, other blocks filling L1, in blocks",
    TRANSPOSE_CAUSE: "transposes' loads measured, whatever the code between barrier and loads, in blocks",
    COUNTER_CAUSE: "a warp-aggregated counter measured in blocks",
}
#: Traffic counters the estimate needs (capture.ncu.TRAFFIC_METRICS).
NEEDED = ("l1_fill_sectors", "global_store_sectors", "sm_cycles", "warps_active_percent", "sm_count")


@dataclass(frozen=True)
class SiteLoad:
    """One site's predicted work for the whole launch: executions and wavefronts (scaled), and the mean
    number of active lanes per execution (which the atomic-burst term reads)."""

    executions: float
    wavefronts: float
    lanes: float = 32.0
    #: Stores: ``fed``, ``before_loads`` or ``other`` (capture.phases), None where the SASS was not read.
    phase: str | None = None
    #: The share of a full bank row's surplus the site meets against fills and against global stores
    #: (``coverage``; 1 for accesses of several wavefronts and where the lanes were not read).
    fill_cover: float = 1.0
    store_cover: float = 1.0
    #: Executions per warp of a recorded block (0 where unknown): a one-shot site runs once or twice.
    per_warp: float = 0.0

    @property
    def partial_block(self) -> bool:
        """Fewer warp-executions per recorded block than the block has warps: only some warps issue it."""
        return 0 < self.per_warp < 1


@dataclass(frozen=True)
class SurplusEstimate:
    """The expected surplus of one ncu class of one launch, and how far a measurement may sit from it.

    ``expected``: surplus wavefronts (the same number of surplus conflicts); ``band``: allowed deviation
    as a share of the measured wavefronts; ``quiet``: the launch's traffic leaves (almost) no room for a
    surplus; ``cause``: what the surplus of this class was measured to come from.
    """

    op_class: str
    expected: float
    band: float
    quiet: bool
    cause: str
    #: Stores of a launch with global loads: the largest surplus share the tile-phase probe measured for
    #: blocks of its size (``arch.SurplusRule.tile_store_ceiling``), 0 where none applies; ``warps``: the
    #: warps per block it was looked up for.
    ceiling: float = 0.0
    warps: int = 0
    #: What a surplus above the band but under ``ceiling`` was measured to come from.
    ceiling_cause: str = TILE_CAUSE

    def within_band(self, measured: float, predicted: float) -> bool:
        """Whether ``measured`` wavefronts agree with ``predicted`` plus the expected surplus."""
        return abs(measured - predicted - self.expected) <= self.band * measured + 0.5

    def under_ceiling(self, measured: float, predicted: float) -> bool:
        """Whether a surplus above the band stays under what the probes measured for such blocks (stores of
        tiled blocks, loads that only some warps issue, loads of a transpose, warp-aggregated counters)."""
        return 0 <= measured - predicted <= self.ceiling * measured + 0.5 and self.ceiling > 0

    def admits(self, measured: float, predicted: float) -> bool:
        """Whether the measured surplus has a measured cause: within the band of the estimate, or, for
        the stores of a tiled kernel, loads that only some warps issue, a transpose's loads or a
        warp-aggregated counter, under the ceiling its block size measured."""
        return self.within_band(measured, predicted) or self.under_ceiling(measured, predicted)

    def describe(self, measured: float, predicted: float) -> str:
        """One line: measured against predicted, the expected surplus, its cause and the band."""
        surplus = measured - predicted
        share = f"{surplus / measured:+.2%}" if measured else "none"
        expected = f"{self.expected / measured:.2%}" if measured else "none"
        regime = ("quiet L1: no surplus expected" if self.quiet else
                  f"expected {self.expected:,.0f} ({expected} of measured) from {self.cause}")
        tiled = ""
        if not self.within_band(measured, predicted) and self.under_ceiling(measured, predicted):
            what = CEILING_SOURCES[self.ceiling_cause]
            tiled = (f"; above the band but under the {self.ceiling:.1%} that {what} of {self.warps} warps "
                     f"or fewer ({self.ceiling_cause})")
        return (f"surplus {surplus:,.0f} wavefronts ({share} of measured); {regime}; band ±{self.band:.0%} "
                f"of measured (docs/rules.md, whole kernels){tiled}")


def atomic_burst(sites: Iterable[SiteLoad], threads_per_block: int, arch: str) -> float:
    """The expected surplus of few-lane shared atomics that many warps of a block issue together
    (``arch.SurplusRule.burst_per_instruction``; docs/rules.md, "Atomic bursts")."""
    rule = get_arch(arch).surplus
    if rule is None:
        return 0.0
    warps = threads_per_block / LANES
    rates = [rate for least, rate in rule.burst_per_instruction.items() if warps >= least]
    if not rates:
        return 0.0
    return max(rates) * sum(s.executions for s in sites if 0 < s.lanes <= rule.burst_max_lanes)


#: Per 8-bit mask of the 16-byte units of a 128-byte bank row: the units set, and the 32-byte groups.
_STORE_UNITS = np.array([bin(mask).count("1") for mask in range(256)], np.int64)
_FILL_GROUPS = np.array([sum(mask >> 2 * g & 3 != 0 for g in range(4)) for mask in range(256)], np.int64)


def units_touched(addresses: np.ndarray, active: np.ndarray, row_bytes: int) -> tuple[np.ndarray, np.ndarray]:
    """Per warp-instruction, the sector groups (FILL_UNIT_BYTES) and the 16-byte units (STORE_UNIT_BYTES) of a
    ``row_bytes`` bank row its active lanes touch (addresses (N, 32) in bytes, active (N,) lane masks)."""
    assert row_bytes == 8 * STORE_UNIT_BYTES == 4 * FILL_UNIT_BYTES, row_bytes
    lane_on = np.unpackbits(np.ascontiguousarray(active, "<u4").view(np.uint8).reshape(-1, 4), axis=1,
                            bitorder="little")
    unit = ((np.asarray(addresses) >> 4) & 7).astype(np.uint8)
    masks = np.bitwise_or.reduce(np.left_shift(np.uint8(1), unit) * lane_on, axis=1)
    return _FILL_GROUPS[masks], _STORE_UNITS[masks]


def coverage(histogram: Iterable[float], table: Mapping[int, float]) -> float:
    """The mean coverage factor of a site whose executions touched n units ``histogram[n]`` times, from a
    table of measured factors by units touched (linear between entries, 1 where it is empty)."""
    counts = list(histogram)
    total = sum(counts)
    if not table or total <= 0:
        return 1.0
    sizes = sorted(table)

    def factor(n: int) -> float:
        n = min(max(n, sizes[0]), sizes[-1])
        for low, high in zip(sizes, sizes[1:], strict=False):
            if n <= high:
                return table[low] + (n - low) / (high - low) * (table[high] - table[low])
        return table[sizes[-1]]

    return sum(count * factor(n) for n, count in enumerate(counts) if count) / total


def site_coverage(fill_units: Iterable[int], store_units: Iterable[int], wavefronts: float, executions: float,
                  arch: str) -> tuple[float, float]:
    """A site's coverage factors against fills and global stores: from its executions' units touched when
    every execution is one wavefront, else 1 (several wavefronts: not modelled)."""
    rule = get_arch(arch).surplus
    if rule is None or executions <= 0 or wavefronts > executions:
        return 1.0, 1.0
    return coverage(fill_units, rule.fill_coverage), coverage(store_units, rule.store_coverage)


def evict_share(allocated_bytes_per_sm: float, arch: str) -> float:
    """The share of the steady surplus at ``allocated_bytes_per_sm`` L1 bytes (fills and global stores) per
    SM: 0 up to ``SurplusRule.l1_free_bytes``, then sqrt((F - free) / F) (run 14 for stores, runs 19-20 for
    atomics and loads; docs/rules.md)."""
    rule = get_arch(arch).surplus
    if rule is None or allocated_bytes_per_sm <= rule.l1_free_bytes:
        return 0.0 if rule and rule.l1_free_bytes else 1.0
    return math.sqrt((allocated_bytes_per_sm - rule.l1_free_bytes) / allocated_bytes_per_sm)


def by_warps(table: Mapping[int, float], warps: float) -> float:
    """A table of rates by warps per block, interpolated over log2(warps), held at its ends."""
    sizes = sorted(table)
    x = min(max(math.log2(max(warps, 1.0)), math.log2(sizes[0])), math.log2(sizes[-1]))
    for low, high in zip(sizes, sizes[1:], strict=False):
        if x <= math.log2(high):
            t = (x - math.log2(low)) / (math.log2(high) - math.log2(low))
            return table[low] + t * (table[high] - table[low])
    return table[sizes[-1]]


def one_shot(site: SiteLoad, arch: str) -> bool:
    """Whether an atomic site is one-shot (each warp runs it at most ``SurplusRule.one_shot_most`` times)
    with more lanes than an atomic burst has (``burst_max_lanes``)."""
    rule = get_arch(arch).surplus
    return (rule is not None and bool(rule.one_shot_atomic_rate) and 0 < site.per_warp <= rule.one_shot_most
            and site.lanes > rule.burst_max_lanes)


def fed_store_rate(warps: float, wavefronts: float, arch: str) -> float:
    """Surplus wavefronts per fed store of ``wavefronts`` in blocks of ``warps``: SurplusRule.fed_store_rate
    interpolated over log2(warps), linear between 1 and 2 wavefronts, the 2-wavefront rate per 2 beyond."""
    rule = get_arch(arch).surplus
    if rule is None or not rule.fed_store_rate or warps < 2:
        return 0.0
    one, two = by_warps(rule.fed_store_rate[1], warps), by_warps(rule.fed_store_rate[2], warps)
    if wavefronts <= 1:
        return one
    return one + (wavefronts - 1) * (two - one) if wavefronts <= 2 else two * wavefronts / 2


def one_wave(blocks_total: int, threads_per_block: int, shared_per_block: int, sm_count: float,
             arch: str) -> bool:
    """Whether every block of the launch can be resident at once (warps, blocks and shared memory per SM)."""
    spec = get_arch(arch)
    rule = spec.surplus
    if rule is None or threads_per_block <= 0:
        return False
    warps = -(-threads_per_block // LANES)
    resident = min(rule.max_blocks_per_sm, rule.max_warps_per_sm // warps,
                   spec.shared_bytes // shared_per_block if shared_per_block else rule.max_blocks_per_sm)
    return blocks_total <= resident * sm_count


def estimate(op_class: str, sites: Iterable[SiteLoad], traffic: Mapping[str, float] | None,
             blocks_total: int, arch: str, threads_per_block: int = 0,
             cp_async_sectors: float = 0.0, shared_per_block: int = 0) -> SurplusEstimate | None:
    """The expected surplus of ``op_class`` (ld, st, atom) for a launch, or None when it cannot be
    estimated: no traffic counters, a class without a measured cause, or an architecture without a rule.

    ``cp_async_sectors``: the global sectors the launch's cp.async (LDGSTS) read, which ncu counts as L1
    fills too; they are left out, since they were measured not to cause the surplus (run 8: two cp.async
    GEMMs and a flash attention, 0-8% store surplus where their fills led to expect 9-30%)."""
    rule = get_arch(arch).surplus
    if rule is None or traffic is None or op_class not in rule.busy_band:
        return None
    if any(traffic.get(name) is None for name in NEEDED):
        return None
    loads = [s for s in sites if s.executions > 0]
    shots = [s for s in loads if op_class == "atom" and one_shot(s, arch)]
    shot_ids = {id(s) for s in shots}
    load_fills = max(0.0, traffic["l1_fill_sectors"] - cp_async_sectors)
    predicted = sum(s.wavefronts for s in loads)
    active_sms = max(1.0, min(traffic["sm_count"], float(blocks_total)))
    warps = -(-threads_per_block // LANES)
    spread = [s for s in loads if id(s) not in shot_ids]
    expected = 0.0
    if op_class == "st" and loads and all(s.phase is not None for s in loads):
        # fed stores take the tile-phase rate; stores before any global load meet no fill in a one-wave launch
        fed = [s for s in loads if s.phase == "fed"]
        expected = sum(s.executions * fed_store_rate(warps, s.wavefronts / s.executions, arch) for s in fed)
        quiet_start = one_wave(blocks_total, threads_per_block, shared_per_block, active_sms, arch)
        spread = [s for s in loads if s.phase == "other" or (s.phase == "before_loads" and not quiet_start)]
    exposure = [s.executions * math.sqrt(s.wavefronts / s.executions) for s in spread]
    sm_cycles = traffic["sm_cycles"] * active_sms
    warps_per_sm = traffic["warps_active_percent"] / 100 * rule.max_warps_per_sm
    if sm_cycles > 0 and warps_per_sm > rule.min_warps_per_sm:
        fills = sum(e * s.fill_cover for e, s in zip(exposure, spread, strict=True))
        stores = sum(e * s.store_cover for e, s in zip(exposure, spread, strict=True))
        expected += (rule.per_fill_sector[op_class] * load_fills * fills
                     + rule.per_store_sector[op_class] * traffic["global_store_sectors"] * stores) / sm_cycles
    allocated = (load_fills + traffic["global_store_sectors"]) * SECTOR_BYTES / active_sms
    expected *= evict_share(allocated, arch)
    if shots and not one_wave(blocks_total, threads_per_block, shared_per_block, active_sms, arch):
        # one-shot atomics meet the other blocks' fills whatever the L1 bytes and banks (run 22)
        expected += by_warps(rule.one_shot_atomic_rate, warps) * sum(s.executions for s in shots)
    cause = f"{ONE_SHOT_CAUSE}, and {CAUSES[op_class]}" if shots and spread else (
        ONE_SHOT_CAUSE if shots else CAUSES[op_class])
    if op_class == "atom":
        burst = atomic_burst(loads, threads_per_block, arch)
        if burst > expected:
            cause = BURST_CAUSE if expected < rule.quiet * predicted else f"{BURST_CAUSE}, and {cause}"
        expected += burst
    quiet = expected < rule.quiet * predicted
    ceiling, ceiling_cause = 0.0, TILE_CAUSE
    if op_class == "st" and load_fills > 0:
        ceiling = label_ceiling(rule.tile_store_ceiling, warps)
    elif op_class == "ld" and load_fills > 0 and any(s.partial_block for s in loads):
        ceiling, ceiling_cause = label_ceiling(rule.few_warp_load_ceiling, warps), FEW_WARP_CAUSE
    elif op_class == "ld" and traffic["global_store_sectors"] >= rule.transpose_store_sectors * sum(
            s.executions for s in loads) > 0:
        ceiling, ceiling_cause = label_ceiling(rule.transpose_load_ceiling, warps), TRANSPOSE_CAUSE
    elif op_class == "atom" and any(0 < s.lanes <= rule.burst_max_lanes for s in loads):
        ceiling, ceiling_cause = label_ceiling(rule.few_lane_atomic_ceiling, warps), COUNTER_CAUSE
    return SurplusEstimate(op_class, expected, rule.quiet_band if quiet else rule.busy_band[op_class], quiet,
                           cause, ceiling, warps, ceiling_cause)


def label_ceiling(table: Mapping[int, float], warps: int) -> float:
    """A label's ceiling for blocks of ``warps`` warps (``SurplusRule.tile_store_ceiling``,
    ``few_warp_load_ceiling``, ``transpose_load_ceiling``, ``few_lane_atomic_ceiling``): the entry of the
    smallest measured block size at least ``warps``; 0 for one warp or past the table."""
    sizes = [size for size in sorted(table) if size >= warps]
    return table[sizes[0]] if sizes and warps >= 2 else 0.0
