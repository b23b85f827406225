"""The worst warp-instruction of one instruction site, found and simulated alone (``bankism show``)."""

from __future__ import annotations

from bankism.analyze.batching import analyze_launch
from bankism.analyze.model import SiteStats
from bankism.analyze.report import LaunchReport
from bankism.engine import SimulationResult, simulate
from bankism.errors import BankismError
from bankism.isa import DEFAULT_ATOMIC_OP
from bankism.trace import Trace
from bankism.trace.views import Launch


def _pick_launch(trace: Trace, site_id: int, launch_index: int | None) -> Launch:
    if launch_index is not None:
        launch = trace.launch(launch_index)
        if all(s.id != site_id for s in launch.sites):
            ids = ", ".join(str(s.id) for s in launch.sites) or "none"
            raise BankismError(
                f"{trace.path}: launch {launch_index} has no site {site_id} (its sites: {ids})"
            )
        return launch
    for launch in trace.launches:
        if any(s.id == site_id for s in launch.sites):
            return launch
    raise BankismError(f"{trace.path}: no launch has a site {site_id}")


def worst_of_site(trace: Trace, site_id: int, launch_index: int | None) -> tuple[LaunchReport, SiteStats]:
    """Analyse one site of one launch; its stats carry the worst warp-instruction."""
    launch = _pick_launch(trace, site_id, launch_index)
    report = analyze_launch(trace, launch, sites=[site_id])
    if report.unmodelled:
        raise BankismError(f"{trace.path}: launch {launch.index}, site {site_id} cannot be simulated: "
                           f"{report.unmodelled[0].unmodelled}")
    stats = report.sites[0]
    if stats.worst is None:
        raise BankismError(f"{trace.path}: launch {launch.index}, site {site_id} was never executed")
    return report, stats


def simulate_worst(stats: SiteStats, arch: str) -> SimulationResult:
    """Re-simulate the worst warp-instruction alone, for its bank map and description."""
    site, worst = stats.site, stats.worst
    assert worst is not None
    return simulate(worst.addresses, width=site.width, op=site.op, active=worst.active,
                    matrices=site.matrices, arch=arch, atomic_op=site.atomic_op or DEFAULT_ATOMIC_OP)

