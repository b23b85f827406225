"""Nsight Compute's own bank-conflict estimate, computed from the same counters with its formula.

ncu's rule (``SharedMemoryConflicts.py`` in its Sections folder, Nsight Compute 2025.3.1) is applied
once for shared loads (ldmatrix included) and once for shared stores: when conflicts are at least 10% of
the class's wavefronts, it reports

    Est. Speedup = conflicts / wavefronts (of that class) x l1tex__throughput.avg.pct_of_peak_sustained_active

that is, the conflicts' share of the class's wavefronts times the L1's throughput as a share of its peak.
The rule does not look at atomics or cp.async (``atom``, ``ldgsts``): for a launch whose conflicts are
there, ncu prints no bank-conflict estimate. Measured against ncu's printed estimates on the H100 pairs
(traces/timing/ncu_rules.txt): equal to within the rounding of the printed L1 throughput.
"""

from __future__ import annotations

from collections.abc import Mapping

#: The counter classes ncu's rule covers (its shared loads and shared stores).
RULE_CLASSES = ("ld", "st")

#: The rule reports a class only when its conflicts are at least this share of its wavefronts.
RULE_THRESHOLD = 0.10


def rule_estimates(counters: Mapping[str, Mapping[str, float]], l1_pct: float) -> dict[str, float]:
    """ncu's estimate (0..1) for each class its rule covers and that has conflicts."""
    estimates = {}
    for op_class in RULE_CLASSES:
        counter = counters.get(op_class)
        if not counter or not counter.get("wavefronts"):
            continue
        share = counter["conflicts"] / counter["wavefronts"]
        if share >= RULE_THRESHOLD:
            estimates[op_class] = share * l1_pct / 100.0
    return estimates


def rule_estimate(counters: Mapping[str, Mapping[str, float]] | None, l1_pct: float | None) -> float | None:
    """The largest bank-conflict estimate ncu prints for the launch (0..1); 0 when its rule reports none,
    None without counters or without the L1 throughput."""
    if counters is None or l1_pct is None:
        return None
    return max(rule_estimates(counters, l1_pct).values(), default=0.0)
