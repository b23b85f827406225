"""Nsight Compute reports as saved (``.ncu-rep``), read through NVIDIA's ``ncu_report`` Python module.

``ncu_report`` ships with Nsight Compute (``extras/python``) and on PyPI as ``ncu-report``; its licence
is NVIDIA's, not an open one, so it is an optional extra (``pip install 'bankism[ncu]'``) and the CSV
export stays ``ncu-import``'s default route. Each profiled kernel launch (an ``IAction``, numbered in
report order as ncu's CSV ``ID`` column numbers them) becomes the same ``NcuLaunch`` the CSV parser
makes: its mangled name (and the demangled one where it differs), grid, block, GPU, compute
capability and every numeric metric the report holds.
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path
from typing import Any

from bankism.capture.ncu import NcuLaunch
from bankism.errors import BankismError

#: Where Nsight Compute installs keep the module, tried when it is not importable as installed.
NSIGHT_PYTHON_DIRS = ("/opt/nvidia/nsight-compute", "/usr/local/cuda/nsight-compute")


def load_module() -> Any:
    """The ``ncu_report`` module: installed (``bankism[ncu]``), or from an Nsight Compute install."""
    try:
        return importlib.import_module("ncu_report")
    except ImportError:
        pass
    for root in [os.environ.get("BANKISM_NCU_REPORT_DIR"), *NSIGHT_PYTHON_DIRS]:
        if not root:
            continue
        for candidate in sorted(Path(root).glob("**/extras/python"), reverse=True) + [Path(root)]:
            if (candidate / "ncu_report.py").is_file():
                sys.path.insert(0, str(candidate))
                try:
                    return importlib.import_module("ncu_report")
                except ImportError:
                    sys.path.remove(str(candidate))
    raise BankismError(
        "reading an .ncu-rep needs NVIDIA's ncu_report module: pip install 'bankism[ncu]' (PyPI ncu-report; "
        "NVIDIA's licence), or export a CSV: ncu --import REPORT.ncu-rep --csv --page raw > REPORT.csv")


def _value(action: Any, name: str) -> float | str | None:
    metric = action.metric_by_name(name)
    if metric is None:
        return None
    kinds = type(metric)
    kind = metric.kind()
    if kind == kinds.ValueKind_STRING:
        return metric.as_string()
    if kind in (kinds.ValueKind_FLOAT, kinds.ValueKind_DOUBLE):
        return float(metric.as_double())
    if kind in (kinds.ValueKind_UINT32, kinds.ValueKind_UINT64):
        return float(metric.as_uint64())
    return None


def _dim3(action: Any, prefix: str) -> tuple[int, int, int] | None:
    values = [_value(action, f"{prefix}_{axis}") for axis in "xyz"]
    if any(not isinstance(v, float) for v in values):
        return None
    return tuple(int(v) for v in values)  # type: ignore[return-value]


def read_report(path: str | Path) -> list[NcuLaunch]:
    """The profiled launches of an ``.ncu-rep`` file, in report order (IDs 0, 1, ...)."""
    path = Path(path)
    if not path.is_file():
        raise BankismError(f"{path}: no such file")
    module = load_module()
    try:
        context = module.load_report(str(path))
    except Exception as error:  # the module raises its own types (and RuntimeError) on a bad file
        raise BankismError(f"{path}: ncu_report cannot read it: {' '.join(str(error).split())}") from None
    names = module.IAction
    launches: list[NcuLaunch] = []
    for r in range(context.num_ranges()):
        profiled_range = context.range_by_idx(r)
        for a in range(profiled_range.num_actions()):
            action = profiled_range.action_by_idx(a)
            mangled = action.name(names.NameBase_MANGLED)
            demangled = action.name(names.NameBase_DEMANGLED)
            major = _value(action, "device__attribute_compute_capability_major")
            minor = _value(action, "device__attribute_compute_capability_minor")
            device = _value(action, "device__attribute_display_name")
            launch = NcuLaunch(
                len(launches), mangled, _dim3(action, "launch__grid_dim"), _dim3(action, "launch__block_dim"),
                demangled=demangled if demangled != mangled else None,
                device=device if isinstance(device, str) else None,
                compute_capability=f"{int(major)}.{int(minor)}" if isinstance(major, float) and
                isinstance(minor, float) else None,
            )
            for name in action.metric_names():
                if "__" in name:
                    value = _value(action, name)
                    if isinstance(value, float):
                        launch.metrics[name] = value
            launches.append(launch)
    if not launches:
        raise BankismError(f"{path}: the report holds no profiled launch")
    return launches
