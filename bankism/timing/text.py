"""The one line ``bankism analyze`` prints per launch about time: the predicted saving, the clock it holds
for, and Nsight Compute's estimate beside it."""

from __future__ import annotations

from pathlib import Path

from bankism.timing.fix import LaunchFix


def _duration(ns: float) -> tuple[str, str]:
    """A duration as (number, unit): ms from 0.1 ms up, µs from 0.1 µs up, else ns."""
    if ns >= 1e5:
        return f"{ns / 1e6:.3g}", "ms"
    if ns >= 100:
        return f"{ns / 1e3:.3g}", "µs"
    return f"{ns:.3g}", "ns"


def _part_of(part: float, whole: float) -> str:
    """'0.14 of 0.34 ms', or '650 ns of 0.525 ms' when the units differ."""
    (a, unit_a), (b, unit_b) = _duration(part), _duration(whole)
    return f"{a} of {b} {unit_b}" if unit_a == unit_b else f"{a} {unit_a} of {b} {unit_b}"


def _clock(hz: float) -> str:
    return f"{hz / 1e9:.3g} GHz"


def _ncu_text(fix: LaunchFix) -> str:
    if fix.ncu_estimate is None:
        return "Nsight Compute's rule estimate is unknown (the counters lack the L1 throughput)"
    if fix.ncu_rule:
        return f"Nsight Compute's rule estimates {fix.ncu_estimate:.0%}"
    return ("Nsight Compute's rule gives no estimate (it looks only at shared loads and stores with "
            "conflicts on at least 10% of their wavefronts)")


def fix_line(fix: LaunchFix | None, missing: str | None) -> str:
    """'Time: removing the conflicts saves about 54% (0.218 of 0.402 ms) at 1.59 GHz (clocks locked by ncu);
    about 43% at 1.98 GHz (the GPU's top clock); Nsight Compute's rule estimates 87%. Most at f.cu:12
    (0.218 ms).', or why no time can be predicted."""
    if fix is None:
        return f"Time: not predicted: {missing}."
    measured = fix.measured_ns
    if fix.excess_wavefronts <= 0:
        return (f"Time: no excess wavefronts, so removing conflicts saves nothing of the "
                f"{' '.join(_duration(measured))}; {_ncu_text(fix)}.")
    prediction = fix.prediction
    locked = " (clocks locked by ncu)" if prediction.clock_control == "base" else ""
    text = (f"Time: removing the conflicts saves about {fix.saved_fraction:.0%} "
            f"({_part_of(fix.saved_ns, measured)}) at {_clock(prediction.profiled.clock_hz)}{locked}")
    application = prediction.application
    if application is not None and abs(application.clock_hz - prediction.profiled.clock_hz) > 1e7:
        top = _clock(application.clock_hz)
        text += f"; about {application.saved_fraction:.0%} at {top} (the GPU's top clock)"
    text += f"; {_ncu_text(fix)}."
    hot = prediction.hot_slice
    if hot is not None:
        text += (f" One L2 slice is busy {hot.busy_pct:.0f}% of the launch (the slices' mean "
                 f"{hot.mean_pct:.0f}%: blocks storing to the same lines?); if the fix leaves it as busy, "
                 f"the saving is at most {hot.saved_fraction_at_most:.0%}.")
    lines = fix.lines()
    if lines and lines[0].saved_ns > 0:
        top = lines[0]
        where = f"{Path(top.file).name}:{top.line}" if top.file and top.line else f"site {top.sites[0]}"
        text += f" Most at {where} ({' '.join(_duration(top.saved_ns))})."
    return text
