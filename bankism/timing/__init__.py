"""What a launch's bank conflicts cost in time, predicted from its trace and the counters of the same launch.

``model`` holds the time model (built from the kernel pairs measured on the H100, docs/time.md),
``ncu_rule`` Nsight Compute's own estimate from the same counters, ``fix`` the per-launch answer with the
saving attributed to sites and source lines. ``bankism analyze`` prints it; its JSON carries it as
``launches[i].fix``.
"""

from bankism.timing.fix import LaunchFix, SiteExcess, SiteSaving, launch_fix
from bankism.timing.model import PARAMETERS, ClockPrediction, Parameters, TimePrediction, predict
from bankism.timing.ncu_rule import rule_estimate, rule_estimates

__all__ = [
    "PARAMETERS",
    "ClockPrediction",
    "LaunchFix",
    "Parameters",
    "SiteExcess",
    "SiteSaving",
    "TimePrediction",
    "launch_fix",
    "predict",
    "rule_estimate",
    "rule_estimates",
]
