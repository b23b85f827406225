"""The per-launch time block of a trace: what Nsight Compute measured about the launch's duration.

A launch's ``time`` holds the launch's duration and clocks and the load of each unit that can bound it
(DRAM, L2, the L1 data pipe, issue slots, the tensor and arithmetic pipes), plus the two warp stall
reasons through which shared memory costs time (waiting for the MIO queue, waiting for a shared-memory
result). ``bankism.timing`` predicts from it, and from the trace's per-site wavefronts, what the launch
would take without its bank conflicts. ``TIME_METRICS`` is the exact list of ncu metrics (docs/time.md
gives the reason for each); ``capture.ncu`` asks ncu for them and ``time_block`` builds the block.

A trace written before the block existed, or profiled without these metrics, has no ``time`` (or
``null`` with a ``time_missing`` reason): ``LaunchTime.missing_reason`` says why, and nothing else
changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: time-block field -> the ncu metric it holds. Percentages are of the unit's peak over the elapsed time
#: (``l1_pct``: over the active time, as ncu's bank-conflict rule reads it).
TIME_METRICS: dict[str, str] = {
    "duration_ns": "gpu__time_duration.sum",
    "sm_cycles": "gpc__cycles_elapsed.max",
    "sm_clock_hz": "gpc__cycles_elapsed.avg.per_second",
    "dram_pct": "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "l2_pct": "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    "l2_slice_max_pct": "lts__throughput.max.pct_of_peak_sustained_elapsed",
    "l1_pct": "l1tex__throughput.avg.pct_of_peak_sustained_active",
    "l1_wavefronts": "l1tex__data_pipe_lsu_wavefronts.sum",
    "l1_wavefronts_per_sm": "l1tex__data_pipe_lsu_wavefronts.avg",
    "shared_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
    "issue_pct": "smsp__issue_active.avg.pct_of_peak_sustained_elapsed",
    "tensor_pct": "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
    "fma_pct": "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed",
    "alu_pct": "sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed",
    "fp64_pct": "sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed",
    "warp_cycles_per_issue": "smsp__average_warp_latency_per_inst_issued.ratio",
    "stall_short_scoreboard": "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio",
    "stall_mio_throttle": "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio",
}

#: time-block field -> the device attribute ncu's raw page carries with every launch (not asked for: ncu
#: refuses device attributes in --metrics). Without the SM count, it is the L1 units' sum over their mean.
DEVICE_ATTRIBUTES: dict[str, str] = {
    "sm_count": "device__attribute_multiprocessor_count",
    "max_clock_khz": "device__attribute_max_gpu_frequency_khz",
}

#: Fields without which no time can be predicted; the others (pipes a GPU may not report, the L1 rate
#: ncu's rule reads, the GPU's top clock) are null when ncu gives none.
REQUIRED_FIELDS = (
    "duration_ns", "sm_cycles", "sm_clock_hz", "sm_count", "dram_pct", "l1_wavefronts", "issue_pct",
    "warp_cycles_per_issue", "stall_short_scoreboard", "stall_mio_throttle",
)

#: How ncu held the clocks: its default, ``base`` (locked to the base clock), is what ``bankism profile``
#: and ``record`` use; an imported CSV does not say.
CLOCK_CONTROLS = ("base", "none")

MISSING_NO_BLOCK = ("the trace has no time block: it was recorded before bankism measured time, or its "
                    "counters came without the time metrics (docs/time.md lists them)")


def time_block(
    metrics: Mapping[str, float], clock_control: str | None
) -> tuple[dict[str, Any] | None, str | None]:
    """The launch's time block from ncu's metric values, or (None, why) when a required metric is missing."""
    values = {field: metrics.get(metric) for field, metric in {**TIME_METRICS, **DEVICE_ATTRIBUTES}.items()}
    per_sm = values.pop("l1_wavefronts_per_sm")
    if values["sm_count"] is None and per_sm and values["l1_wavefronts"] is not None:
        values["sm_count"] = round(values["l1_wavefronts"] / per_sm)
    missing = [TIME_METRICS.get(f) or DEVICE_ATTRIBUTES[f] for f in REQUIRED_FIELDS if values[f] is None]
    if missing:
        return None, "ncu did not report " + ", ".join(missing)
    block: dict[str, Any] = {"clock_control": clock_control}
    for field, value in values.items():
        block[field] = None if value is None else (int(value) if field == "sm_count" else float(value))
    return block, None


@dataclass(frozen=True)
class LaunchTime:
    """The typed time block of one launch (``TIME_METRICS`` names the metric behind each field)."""

    duration_ns: float
    sm_cycles: float
    sm_clock_hz: float
    sm_count: int
    dram_pct: float
    l1_wavefronts: float
    issue_pct: float
    warp_cycles_per_issue: float
    stall_short_scoreboard: float
    stall_mio_throttle: float
    l2_pct: float | None = None
    #: the busiest L2 slice's load (``l2_pct`` is the slices' mean); null in traces made before it was read
    l2_slice_max_pct: float | None = None
    l1_pct: float | None = None
    shared_wavefronts: float | None = None
    tensor_pct: float | None = None
    fma_pct: float | None = None
    alu_pct: float | None = None
    fp64_pct: float | None = None
    max_clock_khz: float | None = None
    clock_control: str | None = None

    @classmethod
    def of(cls, block: Mapping[str, Any]) -> LaunchTime:
        """The view of a validated time block."""
        names = cls.__dataclass_fields__
        return cls(**{k: block.get(k) for k in names})

    @property
    def max_clock_hz(self) -> float | None:
        """The GPU's top SM clock (its application clock when nothing locks it), or None."""
        return None if self.max_clock_khz is None else self.max_clock_khz * 1e3

    def pipe_loads(self) -> dict[str, float]:
        """The arithmetic pipes' busy fractions (0..1) that ncu reported, by pipe."""
        pipes = {"tensor": self.tensor_pct, "fma": self.fma_pct, "alu": self.alu_pct, "fp64": self.fp64_pct}
        return {name: pct / 100.0 for name, pct in pipes.items() if pct is not None}


def launch_time(launch: Mapping[str, Any]) -> tuple[LaunchTime | None, str | None]:
    """A launch's time block as a LaunchTime, or (None, the reason there is none)."""
    block = launch.get("time")
    if block is None:
        return None, launch.get("time_missing") or MISSING_NO_BLOCK
    return LaunchTime.of(block), None
