"""Running ncu: finding it, choosing which launches it profiles (``Selection``), and exporting its
report to CSV for ``exports.parse_csv``."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bankism.capture.ncu.exports import NcuLaunch, all_metrics, parse_csv
from bankism.errors import BankismError
from bankism.files import write_text


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
