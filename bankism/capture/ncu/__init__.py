"""Nsight Compute counters for shared memory: run ncu, parse its CSV exports, put counters into traces.

By job: ``exports`` (the metrics and both CSV layouts ncu writes), ``profile`` (running ncu on chosen
launches) and ``match`` (pairing profiled launches with a trace's and filling their counters). Every
name stays importable as ``bankism.capture.ncu.<name>``.
"""

from __future__ import annotations

from bankism.capture.ncu.exports import (
    ADDRESSED_MATRIX_METRICS,
    ADDRESSED_METRICS,
    COUNT_METRICS,
    COUNTER_KINDS,
    LAUNCH_METRICS,
    OPTIONAL_COUNTER_KINDS,
    SHARED_METRICS,
    TIME_METRIC_NAMES,
    TRAFFIC_METRICS,
    NcuLaunch,
    all_metrics,
    parse_count,
    parse_csv,
    parse_dim3,
    parse_number,
    read_csv,
)
from bankism.capture.ncu.match import (
    base_name,
    counters_only_launch,
    fill_counters,
    kernel_matches,
    match_launches,
    names_match,
    select_kernels,
    set_time,
)
from bankism.capture.ncu.profile import (
    Selection,
    check_selection,
    exact_selection,
    export_command,
    find_ncu,
    literal_regex,
    profile_command,
    run_profile,
)

__all__ = [
    "COUNTER_KINDS", "COUNT_METRICS", "LAUNCH_METRICS", "NcuLaunch", "OPTIONAL_COUNTER_KINDS",
    "SHARED_METRICS", "Selection", "all_metrics", "base_name", "check_selection", "counters_only_launch",
    "exact_selection", "export_command", "fill_counters", "find_ncu", "kernel_matches", "literal_regex",
    "match_launches", "names_match", "parse_count", "parse_csv", "parse_dim3", "parse_number",
    "profile_command", "read_csv", "run_profile", "select_kernels",
    "set_time", "TIME_METRIC_NAMES", "TRAFFIC_METRICS", "ADDRESSED_METRICS", "ADDRESSED_MATRIX_METRICS",
]
