"""Nsight Compute counters for shared memory, read from ncu's CSV exports.

A trace launch's ``counters`` are, for each of ``ld``, ``st`` and ``atom``, the executed shared-memory
instructions (``smsp__sass_inst_executed_op_shared_*``), the wavefronts the LSU data pipe spent on them
(``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_*``) and the bank conflicts ncu counts for them
(``l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_*``). Both CSV layouts ncu writes are read: the
raw page (one row per launch, one column per metric) and the default details page (one row per metric).
A launch's ``time`` block (``trace.timeblock.TIME_METRICS``) holds the duration, clocks and unit loads of
the same launch, which ``bankism.timing`` reads.
"""

from __future__ import annotations

import csv
import decimal
import io
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bankism.arch import INT64_MAX, NCU_CLASSES, NCU_OPTIONAL_CLASSES, launch_shape_problem
from bankism.errors import BankismError
from bankism.inputs import file_name, read_text
from bankism.trace.timeblock import TIME_METRICS, time_block

COUNTER_KINDS = NCU_CLASSES

#: counters key -> trace field -> ncu metric.
SHARED_METRICS: dict[str, dict[str, str]] = {
    kind: {
        "instructions": f"smsp__sass_inst_executed_op_shared_{kind}.sum",
        "wavefronts": f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{kind}.sum",
        "conflicts": f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{kind}.sum",
    }
    for kind in COUNTER_KINDS
}

#: Counter classes read when ncu reports them and written into a launch's counters only then: cp.async
#: (LDGSTS) shared-memory writes. docs/rules.md ("cp.async") gives the measurements behind the choice.
OPTIONAL_COUNTER_KINDS = NCU_OPTIONAL_CLASSES
SHARED_METRICS["ldgsts"] = {
    "instructions": "smsp__sass_inst_executed_op_ldgsts.sum",
    "wavefronts": "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum",
    "conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum",
}

#: Per class, ncu's SASS-instrumented count of the wavefronts the executed addresses need (the trace's
#: optional ``addressed`` counter). On the H100 it equals the address-level rules in every launch measured,
#: with or without other traffic, where the hardware counter above adds the whole-kernel surplus; it
#: leaves out LDSM/STSM (docs/rules.md, "ncu's own address-level count"). Written only when ncu reports it.
ADDRESSED_METRICS: dict[str, str] = {
    kind: f"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_{kind}.sum" for kind in COUNTER_KINDS
}
#: The same count for the matrix ops ncu leaves out of ``addressed`` (the trace's optional
#: ``addressed_matrix``): LDSM under ld, STSM under st. With ``addressed`` it equals the address-level part
#: of the hardware count (traces/surplus/sm_90_matrix_addressed.json). Written only when ncu reports it.
ADDRESSED_MATRIX_METRICS: dict[str, str] = {
    kind: f"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum"
    for kind, op in (("ld", "ldsm"), ("st", "stsm"))
}

#: Launch facts read with the counters, to fill counters-only traces and to check matches.
LAUNCH_METRICS = ("launch__shared_mem_per_block_static", "launch__shared_mem_per_block_dynamic")

#: The launch's duration, clocks and unit loads: the trace's time block (``trace.timeblock``;
#: docs/time.md says why each is there).
TIME_METRIC_NAMES = tuple(TIME_METRICS.values())

#: A launch's global-memory and L1 traffic (trace field ``traffic``): what drives the whole-kernel surplus of
#: shared-memory wavefronts (bankism/analyze/surplus.py; docs/rules.md, "Whole kernels"). Written only when
#: ncu reports every one of them.
TRAFFIC_METRICS: dict[str, str] = {
    "global_load_instructions": "smsp__sass_inst_executed_op_global_ld.sum",
    "global_store_instructions": "smsp__sass_inst_executed_op_global_st.sum",
    "global_load_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "global_store_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1_fill_sectors": "l1tex__m_xbar2l1tex_read_sectors.sum",
    "sm_cycles": "sm__cycles_elapsed.avg",
    "warps_active_percent": "sm__warps_active.avg.pct_of_peak_sustained_active",
    "sm_count": "launch__sm_count",
}

#: Metrics whose unit may be a time or a frequency ncu scales ('msecond', 'Ghz') unless exported with
#: --print-units base: read as nanoseconds and hertz.
_TIME_UNITS = {"ns": 1.0, "nsecond": 1.0, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6,
               "s": 1e9, "second": 1e9}
_FREQUENCY_UNITS = {"hz": 1.0, "khz": 1e3, "mhz": 1e6, "ghz": 1e9, "cycle/second": 1.0,
                    "cycle/nsecond": 1e9, "cycle/usecond": 1e6}
_UNIT_SCALES = {TIME_METRICS["duration_ns"]: _TIME_UNITS, TIME_METRICS["sm_clock_hz"]: _FREQUENCY_UNITS}

_UNIT_PREFIX = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_LOG_PREFIX = re.compile(r"^==(PROF|WARNING|ERROR|INFO)==")


def all_metrics(extra: Sequence[str] = ()) -> list[str]:
    """Every metric `bankism profile` asks ncu for."""
    kinds = COUNTER_KINDS + OPTIONAL_COUNTER_KINDS
    names = [metric for kind in kinds for metric in SHARED_METRICS[kind].values()]
    names += list(ADDRESSED_METRICS.values()) + list(ADDRESSED_MATRIX_METRICS.values())
    names += list(LAUNCH_METRICS) + list(TIME_METRIC_NAMES)
    names += [m for m in TRAFFIC_METRICS.values() if m not in names]
    return names + [m for m in extra if m not in names]


@dataclass
class NcuLaunch:
    """One profiled kernel launch: ncu's ID, kernel name, launch shape and metric values."""

    id: int
    kernel: str
    grid: tuple[int, int, int] | None = None
    block: tuple[int, int, int] | None = None
    metrics: dict[str, float] = field(default_factory=dict)
    demangled: str | None = None
    device: str | None = None  # the GPU's name (raw page only: device__attribute_display_name)
    compute_capability: str | None = None

    @property
    def names(self) -> tuple[str, ...]:
        """Every name ncu gave the kernel (as exported, and demangled when known)."""
        return tuple(dict.fromkeys(n for n in (self.kernel, self.demangled) if n))

    def counters(self) -> dict[str, dict[str, int]] | None:
        """The trace's counters block, or None when a counter metric is missing."""
        out: dict[str, dict[str, int]] = {}
        for kind in COUNTER_KINDS:
            values = {name: self.metrics.get(metric) for name, metric in SHARED_METRICS[kind].items()}
            if any(value is None for value in values.values()):
                return None
            out[kind] = {name: int(round(value)) for name, value in values.items()}
            addressed = self.metrics.get(ADDRESSED_METRICS[kind])
            if addressed is not None:
                out[kind]["addressed"] = int(round(addressed))
                matrix = self.metrics.get(ADDRESSED_MATRIX_METRICS.get(kind, ""))
                if matrix is not None:
                    out[kind]["addressed_matrix"] = int(round(matrix))
        for kind in OPTIONAL_COUNTER_KINDS:
            values = {name: self.metrics.get(metric) for name, metric in SHARED_METRICS[kind].items()}
            if all(value is not None for value in values.values()):
                out[kind] = {name: int(round(value)) for name, value in values.items()}
        return out

    def traffic(self) -> dict[str, float] | None:
        """The trace's traffic block (``TRAFFIC_METRICS``), or None when ncu did not report all of it."""
        values = {name: self.metrics.get(metric) for name, metric in TRAFFIC_METRICS.items()}
        if any(value is None for value in values.values()):
            return None
        return {name: float(value) for name, value in values.items()}  # type: ignore[arg-type]

    def time(self, clock_control: str | None) -> tuple[dict[str, Any] | None, str | None]:
        """The trace's time block for this launch, or (None, which metrics ncu did not report)."""
        return time_block(self.metrics, clock_control)


def parse_number(text: str, unit: str = "") -> float | None:
    """A metric value as ncu prints it ('16,384', '1.5', 'n/a'), scaled by a K/M/G unit prefix."""
    cleaned = text.strip().replace(",", "")
    if not cleaned or cleaned.lower() in ("n/a", "nan", "-"):
        return None
    try:
        value = float(cleaned)
    except ValueError:
        return None
    if not math.isfinite(value):  # 'inf', '1e400': no measurement, as 'n/a' (a trace never holds one)
        return None
    unit = unit.strip()
    if len(unit) >= 1 and unit[0] in _UNIT_PREFIX and not unit.lower().startswith(("byte", "bit")):
        rest = unit[1:]
        if rest == "" or rest.isalpha() and rest.islower():
            value *= _UNIT_PREFIX[unit[0]]
    return value


#: Metrics whose values are event counts: whole numbers, read exactly, refused when not a count.
COUNT_METRICS = frozenset(
    [metric for kind in COUNTER_KINDS for metric in SHARED_METRICS[kind].values()] + list(LAUNCH_METRICS)
    + list(ADDRESSED_METRICS.values()) + list(ADDRESSED_MATRIX_METRICS.values())
)
_COUNT_LIMIT = 2**63 - 1


def parse_count(text: str, unit: str, where: str) -> int | None:
    """An ncu counter value read exactly ('16,384', '2048', '1.5 K'); None when ncu printed none (n/a).

    Anything else (text, nan, a fraction, a value past 2^63 - 1) is a one-line BankismError naming
    ``where``: a count cannot be any of those, and taking them for "no counters" would hide the fault.
    """
    cleaned = text.strip().replace(",", "")
    if not cleaned or cleaned.lower() in ("n/a", "-"):
        return None
    if not cleaned.isascii():  # Decimal would read other scripts' digits ('٣' as 3)
        raise BankismError(f"{where}: {text.strip()!r} is not a number")
    try:
        value = decimal.Decimal(cleaned)
    except decimal.InvalidOperation:
        raise BankismError(f"{where}: {text.strip()!r} is not a number") from None
    if not value.is_finite():
        raise BankismError(f"{where}: {text.strip()!r} is not a count")
    unit = unit.strip()
    if unit and unit[0] in _UNIT_PREFIX and not unit.lower().startswith(("byte", "bit")):
        rest = unit[1:]
        if rest == "" or rest.isalpha() and rest.islower():
            value *= decimal.Decimal(int(_UNIT_PREFIX[unit[0]]))
    if value != value.to_integral_value():
        raise BankismError(f"{where}: {text.strip()!r}{' ' + unit if unit else ''} is not a whole count "
                           "(export with --print-units base for exact values)")
    if not 0 <= value <= _COUNT_LIMIT:
        raise BankismError(f"{where}: {text.strip()!r} is out of range for a count (0 to 2^63 - 1)")
    return int(value)


def _metric_value(name: str, text: str, unit: str, where: str) -> float | None:
    if name in COUNT_METRICS:
        count = parse_count(text, unit, f"{where}: {name}")
        return None if count is None else count
    scales = _UNIT_SCALES.get(name)
    if scales is not None:
        value = parse_number(text)
        scale = scales.get(unit.strip().lower(), 1.0 if not unit.strip() else None)
        if value is not None and scale is None:
            raise BankismError(f"{where}: {name}: unknown unit {unit.strip()!r}")
        return None if value is None else value * scale
    return parse_number(text, unit)


def parse_dim3(text: str) -> tuple[int, int, int] | None:
    """'(16, 16, 1)' as (16, 16, 1) (ASCII digits only; a number past 19 digits is kept as 2**63, which
    the launch-shape check then refuses)."""
    numbers = [int(n) if len(n) <= 19 else 2**63 for n in re.findall(r"[0-9]+", text or "")]
    if not numbers:
        return None
    x, y, z = (numbers + [1, 1, 1])[:3]
    return x, y, z


def _csv_rows(text: str, source: str) -> list[list[str]]:
    """The rows from the header on; the export may quote its fields (as ncu does) or not."""
    lines = [line for line in text.splitlines() if line.strip() and not _LOG_PREFIX.match(line)]
    start = next((i for i, line in enumerate(lines) if line.lstrip().startswith(('"ID"', "ID,"))), None)
    if start is None:
        raise BankismError(f'{source}: not an ncu CSV export (no header row starting with "ID")')
    try:
        rows = list(csv.reader(io.StringIO("\n".join(lines[start:]))))
    except csv.Error as error:
        raise BankismError(f"{source}: not a readable CSV file ({error})") from None
    width = len(rows[0])
    for number, row in enumerate(rows[1:], 2):
        if len(row) != width:
            raise BankismError(f"{source}: row {number} after the header has {len(row)} fields, the header "
                               f"{width} (a comma inside an unquoted field?)")
    return rows


def _launch_id(row: dict[str, str], source: str) -> int | None:
    """The row's launch ID (ASCII digits, within int64); None for a row without one (units)."""
    text = (row.get("ID") or "").strip()
    if not (text.isascii() and text.isdigit()):
        if any(c.isdigit() for c in text):  # '²', '٣': digits Python's int() reads differently or not at all
            raise BankismError(f"{source}: launch ID {text!r} is not a number of ASCII digits")
        return None
    if len(text) > 19 or int(text) > INT64_MAX:
        shown = text if len(text) <= 30 else text[:27] + "..."
        raise BankismError(f"{source}: launch ID {shown} is out of range")
    return int(text)


def _new_launch(launch_id: int, row: dict[str, str], source: str) -> NcuLaunch:
    grid, block = parse_dim3(row.get("Grid Size", "")), parse_dim3(row.get("Block Size", ""))
    if grid is not None and block is not None:
        problem = launch_shape_problem(grid, block)
        if problem:
            raise BankismError(f"{source}: launch {launch_id}: {problem}")
    return NcuLaunch(
        launch_id,
        row.get("Kernel Name", ""),
        grid,
        block,
        device=row.get("device__attribute_display_name") or None,
        compute_capability=row.get("CC") or None,
    )


def _parse_raw(rows: list[list[str]], source: str) -> list[NcuLaunch]:
    header = rows[0]
    units: dict[str, str] = {}
    launches = []
    for values in rows[1:]:
        row = dict(zip(header, values, strict=False))
        launch_id = _launch_id(row, source)
        if launch_id is None:
            units = {k: v for k, v in row.items() if k and v}
            continue
        launch = _new_launch(launch_id, row, source)
        for name, value in row.items():
            if "__" in name:
                number = _metric_value(name, value, units.get(name, ""), f"{source}: launch {launch_id}")
                if number is not None:
                    launch.metrics[name] = number
        launches.append(launch)
    return launches


def _parse_details(rows: list[list[str]], source: str) -> list[NcuLaunch]:
    header = rows[0]
    by_id: dict[int, NcuLaunch] = {}
    for values in rows[1:]:
        row = dict(zip(header, values, strict=False))
        launch_id = _launch_id(row, source)
        if launch_id is None:
            continue
        launch = by_id.get(launch_id)
        if launch is None:
            launch = by_id[launch_id] = _new_launch(launch_id, row, source)
        number = _metric_value(row.get("Metric Name", ""), row.get("Metric Value", ""),
                               row.get("Metric Unit", ""), f"{source}: launch {launch_id}")
        if number is not None and row.get("Metric Name"):
            launch.metrics[row["Metric Name"]] = number
    return [by_id[i] for i in sorted(by_id)]


def parse_csv(text: str, source: str = "ncu CSV") -> list[NcuLaunch]:
    """Launches of an ``ncu --csv`` export, raw page or details page, in ID order."""
    rows = _csv_rows(text, source)
    header = rows[0]
    if "Metric Name" in header and "Metric Value" in header:
        launches = _parse_details(rows, source)
    else:
        launches = _parse_raw(rows, source)
    if not launches:
        raise BankismError(f"{source}: the ncu export holds no profiled launch")
    return launches


def read_csv(path: str | Path) -> list[NcuLaunch]:
    """``parse_csv`` of a file, with a one-line error when it cannot be read."""
    name = file_name(path, "ncu CSV")
    return parse_csv(read_text(name, "csv", name, errors="replace"), name)

