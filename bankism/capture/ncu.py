"""Nsight Compute counters for shared memory: run ncu, parse its CSV exports, put counters into traces.

A trace launch's ``counters`` are, for each of ``ld``, ``st`` and ``atom``, the executed shared-memory
instructions (``smsp__sass_inst_executed_op_shared_*``), the wavefronts the LSU data pipe spent on them
(``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_*``) and the bank conflicts ncu counts for them
(``l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_*``). Both CSV layouts ncu writes are read: the
raw page (one row per launch, one column per metric) and the default details page (one row per metric).
"""

from __future__ import annotations

import csv
import decimal
import io
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bankism.arch import NCU_CLASSES, NCU_OPTIONAL_CLASSES
from bankism.errors import BankismError
from bankism.files import write_text

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

#: Launch facts read with the counters, to fill counters-only traces and to check matches.
LAUNCH_METRICS = ("launch__shared_mem_per_block_static", "launch__shared_mem_per_block_dynamic")

#: A launch's global-memory and L1 traffic (trace field ``traffic``): what drives the whole-kernel surplus of
#: shared-memory wavefronts (bankism/surplus.py; docs/rules.md, "Whole kernels"). Written only when ncu
#: reports every one of them.
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

_UNIT_PREFIX = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_LOG_PREFIX = re.compile(r"^==(PROF|WARNING|ERROR|INFO)==")


def all_metrics(extra: Sequence[str] = ()) -> list[str]:
    """Every metric `bankism profile` asks ncu for."""
    kinds = COUNTER_KINDS + OPTIONAL_COUNTER_KINDS
    names = [metric for kind in kinds for metric in SHARED_METRICS[kind].values()]
    names += list(LAUNCH_METRICS) + list(TRAFFIC_METRICS.values())
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


def parse_number(text: str, unit: str = "") -> float | None:
    """A metric value as ncu prints it ('16,384', '1.5', 'n/a'), scaled by a K/M/G unit prefix."""
    cleaned = text.strip().replace(",", "")
    if not cleaned or cleaned.lower() in ("n/a", "nan", "-"):
        return None
    try:
        value = float(cleaned)
    except ValueError:
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
    return parse_number(text, unit)


def parse_dim3(text: str) -> tuple[int, int, int] | None:
    """'(16, 16, 1)' as (16, 16, 1)."""
    numbers = [int(n) for n in re.findall(r"\d+", text or "")]
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


def _launch_id(row: dict[str, str]) -> int | None:
    text = (row.get("ID") or "").strip()
    return int(text) if text.isdigit() else None


def _new_launch(launch_id: int, row: dict[str, str]) -> NcuLaunch:
    return NcuLaunch(
        launch_id,
        row.get("Kernel Name", ""),
        parse_dim3(row.get("Grid Size", "")),
        parse_dim3(row.get("Block Size", "")),
        device=row.get("device__attribute_display_name") or None,
        compute_capability=row.get("CC") or None,
    )


def _parse_raw(rows: list[list[str]], source: str) -> list[NcuLaunch]:
    header = rows[0]
    units: dict[str, str] = {}
    launches = []
    for values in rows[1:]:
        row = dict(zip(header, values, strict=False))
        launch_id = _launch_id(row)
        if launch_id is None:
            units = {k: v for k, v in row.items() if k and v}
            continue
        launch = _new_launch(launch_id, row)
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
        launch_id = _launch_id(row)
        if launch_id is None:
            continue
        launch = by_id.get(launch_id)
        if launch is None:
            launch = by_id[launch_id] = _new_launch(launch_id, row)
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
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise BankismError(f"{path}: no such file") from None
    except OSError as error:
        raise BankismError(f"{path}: cannot read: {error.strerror}") from None
    return parse_csv(text, str(path))


# ---------------------------------------------------------------------------------------------
# Running ncu
# ---------------------------------------------------------------------------------------------


def find_ncu() -> str:
    """The ncu executable on PATH, or a one-line error."""
    ncu = shutil.which("ncu")
    if not ncu:
        raise BankismError("ncu not found: bankism profile needs Nsight Compute's ncu on PATH")
    return ncu


@dataclass(frozen=True)
class Selection:
    """Which kernel launches ncu profiles: a name filter, then a window of the launches it matches.

    ``kernel`` is a regex ncu matches against the kernel name of kind ``name_base`` (``demangled``,
    ``mangled`` or ``function``); ``skip`` matching launches are passed over, then ``count`` are profiled
    (None: all the rest).
    """

    kernel: str | None = None
    name_base: str = "demangled"
    skip: int = 0
    count: int | None = None

    def arguments(self) -> list[str]:
        """ncu's options for this selection (none for the default: every launch)."""
        args = []
        if self.kernel:
            args += ["--kernel-name-base", self.name_base, "--kernel-name", f"regex:{self.kernel}"]
        if self.skip:
            args += ["--launch-skip", str(self.skip)]
        if self.count is not None:
            args += ["--launch-count", str(self.count)]
        return args

    @property
    def everything(self) -> bool:
        """Whether every launch is profiled (ncu's IDs are then the launches' indices in the process)."""
        return not self.kernel and not self.skip and self.count is None


def check_selection(kernel: str | None, launch: int | None, launch_count: int | None) -> Selection:
    """The ncu selection of `bankism profile --kernel RE --launch N --launch-count K`, checked first."""
    if kernel is not None:
        if not kernel:
            raise BankismError("--kernel: the regular expression is empty")
        try:
            re.compile(kernel)
        except re.error as error:
            raise BankismError(f"--kernel {kernel!r} is not a valid regular expression: {error}") from None
    if launch is not None and launch < 0:
        raise BankismError(f"--launch takes a 0-based index among the matching launches; got {launch}")
    if launch_count is not None and launch_count < 1:
        raise BankismError(f"--launch-count must be at least 1; got {launch_count}")
    if launch is not None and launch_count is None:
        launch_count = 1
    return Selection(kernel, "demangled", launch or 0, launch_count)


def literal_regex(text: str) -> str:
    """A regex matching ``text`` literally (every character but letters, digits and '_' escaped)."""
    return "".join(c if c.isalnum() or c == "_" else "\\" + c for c in text)


def exact_selection(launches: Sequence[dict[str, Any]], traced: Sequence[int]) -> tuple[Selection, list[int]]:
    """The ncu selection that profiles exactly the traced launches of a tracer run, and the launch index
    (in the process) each of ncu's results 0, 1, ... then stands for.

    ``launches`` are all launches the tracer saw (index and mangled name, in order), ``traced`` the
    indices it recorded. ncu matches the traced kernels' mangled names exactly, skips the matching launches
    before the first traced one and profiles up to the last.
    """
    wanted = set(traced)
    by_index = {int(launch["index"]): launch for launch in launches}
    if not wanted or not wanted <= by_index.keys():
        raise BankismError(
            "the tracer's manifest does not list the traced launches: cannot select them for ncu"
        )
    names = sorted({str(by_index[i]["mangled"]) for i in wanted})
    same_names = [int(launch["index"]) for launch in launches if str(launch["mangled"]) in names]
    position = {index: at for at, index in enumerate(same_names)}
    positions = [position[i] for i in sorted(wanted)]
    first, last = positions[0], positions[-1]
    pattern = "^(" + "|".join(literal_regex(name) for name in names) + ")$"
    return Selection(pattern, "mangled", first, last - first + 1), same_names[first : last + 1]


def profile_command(
    ncu: str, command: Sequence[str], report: Path, metrics: Sequence[str], selection: Selection | None = None
) -> list[str]:
    """ncu's command line: the selected kernel launches (default: all), the given metrics, into ``report``."""
    return [
        ncu,
        "--metrics",
        ",".join(metrics),
        "--target-processes",
        "all",
        *(selection.arguments() if selection else []),
        "-f",
        "-o",
        str(report),
        *command,
    ]


def export_command(ncu: str, report: Path, page: str = "raw", names: str = "mangled") -> list[str]:
    """ncu's command line exporting a report as CSV with unscaled units and the given kernel names."""
    return [
        ncu,
        "--import",
        str(report),
        "--csv",
        "--page",
        page,
        "--print-units",
        "base",
        "--print-kernel-base",
        names,
    ]


def _export(ncu: str, report: Path, page: str, names: str) -> str:
    """A CSV export of the report; without the naming/unit options if this ncu does not know them."""
    done = subprocess.run(
        export_command(ncu, report, page, names), capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        plain = [ncu, "--import", str(report), "--csv", "--page", page]
        done = subprocess.run(plain, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise BankismError(f"ncu --import failed: {(done.stderr or done.stdout).strip()[:200]}")
    return done.stdout


def run_profile(
    command: Sequence[str],
    extra_metrics: Sequence[str] = (),
    keep_csv: Path | None = None,
    keep_report: Path | None = None,
    keep_details: Path | None = None,
    selection: Selection | None = None,
) -> list[NcuLaunch]:
    """Profile the selected kernel launches of ``command`` (default: all) with ncu.

    When every launch is profiled, ncu's ID is the launch's index in the process; otherwise it counts the
    profiled launches only.
    """
    if not command:
        raise BankismError("no program given: put it after --, e.g. bankism profile -- ./app")
    ncu = find_ncu()
    with tempfile.TemporaryDirectory(prefix="bankism-ncu-") as scratch:
        report = Path(scratch) / "report.ncu-rep"
        done = subprocess.run(
            profile_command(ncu, command, report, all_metrics(extra_metrics), selection), check=False
        )
        if done.returncode != 0:
            raise BankismError(f"ncu exited with code {done.returncode} profiling {' '.join(command)}")
        if not report.is_file():
            which = f" matching {selection.kernel!r}" if selection and selection.kernel else ""
            raise BankismError(f"ncu profiled no kernel launch{which} of {' '.join(command)}")
        exported = _export(ncu, report, "raw", "mangled")
        launches = parse_csv(exported, "ncu --import")
        demangled = {
            p.id: p.kernel for p in parse_csv(_export(ncu, report, "raw", "demangled"), "ncu --import")
        }
        for launch in launches:
            launch.demangled = demangled.get(launch.id)
        if keep_csv is not None:
            write_text(keep_csv, exported, "--csv")
        if keep_details is not None:
            write_text(keep_details, _export(ncu, report, "details", "demangled"), "--details-csv")
        if keep_report is not None:
            shutil.copyfile(report, keep_report)
        return launches


# ---------------------------------------------------------------------------------------------
# Matching ncu launches with trace launches
# ---------------------------------------------------------------------------------------------


def base_name(kernel: str) -> str:
    """The bare function name of a (demangled) kernel signature, as users write it: 'void ns::f<1>(int*)'
    -> 'f'; Numba's 'cudapy::__main__::f$241(...)' and 'cudapy::__main__::f[abi:v1](...)' -> 'f'.
    tracer.cpp's base_name does the same."""
    depth, cut = 0, len(kernel)
    for i, char in enumerate(kernel):  # the parameter list: the first '(' outside template arguments
        depth += {"<": 1, ">": -1}.get(char, 0)
        if char == "(" and depth == 0 and not kernel.startswith("(anonymous namespace)", i):
            cut = i
            break
    head = kernel[:cut].strip()
    if head.endswith(">"):  # drop the template argument list
        depth = 0
        for i in range(len(head) - 1, -1, -1):
            depth += {">": 1, "<": -1}.get(head[i], 0)
            if depth == 0:
                head = head[:i]
                break
    words = head.split()
    name = words[-1].split("::")[-1] if words else ""
    cut = min((i for i in (name.find("$"), name.find("[")) if i > 0), default=len(name))
    return name[:cut] or kernel


def kernel_matches(pattern: re.Pattern[str], *names: str | None) -> bool:
    """Whether ``--kernel`` selects a kernel known by these names: searched in each name and in its bare
    function name (as the tracer does), so '^f$' picks f whatever its namespace, templates or suffix."""
    return any(pattern.search(n) or pattern.search(base_name(n)) for n in names if n)


def names_match(ncu_name: str, launch: dict[str, Any]) -> bool:
    """Whether ncu's kernel name (mangled, demangled or bare) names the trace launch's kernel."""
    kernel, mangled = launch.get("kernel") or "", launch.get("mangled") or ""
    if ncu_name in (kernel, mangled):
        return True
    return bool(ncu_name) and not ncu_name.startswith("_Z") and base_name(ncu_name) == base_name(kernel)


def _same_kernel(profiled: NcuLaunch, launch: dict[str, Any]) -> bool:
    return any(names_match(name, launch) for name in profiled.names) and _shape_matches(profiled, launch)


def _shape_matches(ncu_launch: NcuLaunch, launch: dict[str, Any]) -> bool:
    grid_ok = ncu_launch.grid is None or list(ncu_launch.grid) == list(launch["grid"])
    block_ok = ncu_launch.block is None or list(ncu_launch.block) == list(launch["block"])
    return grid_ok and block_ok


def match_launches(
    launches: list[dict[str, Any]], profiled: list[NcuLaunch], by_index: bool = True
) -> dict[int, NcuLaunch]:
    """For each trace launch index, its ncu launch: same ID (= launch index) when the names agree,
    otherwise the next unused profiled launch of the same kernel and shape, in order. ``by_index=False``
    (ncu profiled a selection, so its IDs are not launch indices) matches by order only."""
    by_id = {p.id: p for p in profiled} if by_index else {}
    used: set[int] = set()
    matched: dict[int, NcuLaunch] = {}
    for launch in launches:
        candidate = by_id.get(launch["index"])
        if candidate and _same_kernel(candidate, launch):
            matched[launch["index"]] = candidate
            used.add(candidate.id)
    for launch in launches:
        if launch["index"] in matched:
            continue
        for candidate in profiled:
            if candidate.id not in used and _same_kernel(candidate, launch):
                matched[launch["index"]] = candidate
                used.add(candidate.id)
                break
    return matched


def fill_counters(
    doc: dict[str, Any], profiled: list[NcuLaunch], source: str, by_index: bool = True
) -> list[int]:
    """Write counters into the trace's matching launches; returns the indices that got none."""
    matched = match_launches(doc["launches"], profiled, by_index)
    missing = []
    for launch in doc["launches"]:
        found = matched.get(launch["index"])
        counters = found.counters() if found else None
        if counters is None:
            missing.append(launch["index"])
            continue
        launch["counters"] = counters
        launch["counters_scope"] = "launch"
        traffic = found.traffic() if found else None
        if traffic is not None:
            launch["traffic"] = traffic
    if len(missing) == len(doc["launches"]):
        raise BankismError(
            f"{source}: no profiled launch matches a launch of the trace (by index, name and shape)"
        )
    return missing


def counters_only_launch(profiled: NcuLaunch) -> dict[str, Any]:
    """A trace launch holding only ncu's counters (no sites, no records)."""
    grid = list(profiled.grid or (1, 1, 1))
    block = list(profiled.block or (1, 1, 1))
    return {
        "index": profiled.id,
        "kernel": profiled.demangled or profiled.kernel or f"launch {profiled.id}",
        "mangled": profiled.kernel if profiled.demangled else None,
        "grid": grid,
        "block": block,
        "shared_bytes": {
            "static": int(profiled.metrics.get("launch__shared_mem_per_block_static", 0)),
            "dynamic": int(profiled.metrics.get("launch__shared_mem_per_block_dynamic", 0)),
        },
        "blocks_total": grid[0] * grid[1] * grid[2],
        "blocks_recorded": "all",
        "sites": [],
        "records": {"block": [], "warp": [], "site": [], "active": [], "addresses": []},
        "counters": profiled.counters(),
        "counters_scope": "launch",
        **({"traffic": profiled.traffic()} if profiled.traffic() is not None else {}),
    }


def select_kernels(profiled: list[NcuLaunch], kernel: str | None) -> list[NcuLaunch]:
    """The profiled launches whose kernel name matches ``kernel`` (a regex searched in the name)."""
    if not kernel:
        return profiled
    try:
        pattern = re.compile(kernel)
    except re.error as error:
        raise BankismError(f"--kernel {kernel!r} is not a valid regular expression: {error}") from None
    return [p for p in profiled if kernel_matches(pattern, *p.names)]
