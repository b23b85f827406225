"""Predictions against measurement: every recorded trace in traces/ whose launches carry ncu counters.

For each launch with records and counters, the predicted ld/st/atom instructions and wavefronts must
agree with what ncu measured on the GPU, within ``bankism.analyze.TOLERANCE`` (the single table the
report uses too). Launches that hold counters but no records (profiled, not traced) predict nothing
and are left out. Skips cleanly while traces/ holds no trace with counters.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bankism import analyze
from bankism.trace import open_trace

TRACES = Path(__file__).resolve().parent.parent / "traces"


def _has_counters(path: Path) -> bool:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return True
    launches = document.get("launches") if isinstance(document, dict) else None
    return isinstance(launches, list) and any(
        isinstance(item, dict) and item.get("counters") for item in launches
    )


def _corpus() -> list[Path]:
    return sorted(path for path in TRACES.glob("*.json") if _has_counters(path))


def _figures(path: Path, launch: analyze.LaunchReport) -> str:
    lines = [f"{path.name}: launch {launch.index} {launch.kernel} ({launch.scaling_note()})",
             f"  {'class':5} {'counter':12} {'measured':>12} {'predicted':>14} {'difference':>12}  verdict"]
    for row in launch.comparisons():
        verdict = {True: "ok", False: "OFF", None: "-"}[row.within_tolerance]
        lines.append(f"  {row.op_class:5} {row.metric:12} {row.measured:>12,} {row.predicted:>14,.1f} "
                     f"{row.difference:>12,.1f}  {verdict}  {row.explanation}")
    return "\n".join(lines)


@pytest.mark.parametrize("path", _corpus() or [None], ids=lambda p: p.stem if p else "none")
def test_predictions_match_measured_counters(path: Path | None) -> None:
    if path is None:
        pytest.skip("traces/ holds no trace with measured counters yet")
    report = analyze.analyze(open_trace(path))
    judged = [item for item in report.launches if item.measured is not None and item.records > 0]
    if not judged:
        pytest.skip(f"{path.name}: no launch has both records and counters")
    failures = [item for item in judged if item.agrees() is False]
    print("\n\n".join(_figures(path, item) for item in judged))
    assert not failures, "prediction outside analyze.TOLERANCE:\n" + "\n\n".join(
        _figures(path, item) for item in failures
    )
