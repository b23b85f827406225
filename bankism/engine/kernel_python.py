"""The engine kernel (``bankism.engine.kernel``'s source, loaded a second time) as plain Python:
the same functions, not compiled. ``bankism.engine`` runs small batches with it when Numba is
not imported yet, so a short ``explain`` never pays for importing Numba;
tests/test_engine_python.py checks that both give the same answers."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np

_NAME = "bankism.engine.kernel_python_copy"


def _load():  # noqa: ANN202
    if _NAME in sys.modules:
        return sys.modules[_NAME]
    spec = importlib.util.spec_from_file_location(_NAME, Path(__file__).with_name("kernel.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[_NAME] = module
    spec.loader.exec_module(module)
    return module


def simulate_kernel(*args) -> None:  # noqa: ANN002
    """``kernel.simulate_kernel`` as plain Python (its popcount multiplies wrap around, as they
    do compiled: NumPy's overflow warnings are silenced)."""
    with np.errstate(over="ignore"):
        _kernel.simulate_kernel(*args)


_kernel = _load()
merged_pairs = _kernel.merged_pairs
