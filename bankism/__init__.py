"""bankism: exact shared-memory wavefront and bank-conflict counts for CUDA warps.

The root imports lazily: ``import bankism`` loads neither numba (the engine) nor the review API until a
name from them is first used, so the command line and the pure-Python paths start fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from bankism.arch import ARCHITECTURES, Architecture, Rule, get_arch
from bankism.errors import BankismError
from bankism.version import __version__

if TYPE_CHECKING:
    from bankism import testing
    from bankism.engine import BankMap, SimulationResult, simulate
    from bankism.review import Access, Fix, Report, SharedArray, Swizzle, advise, check

#: Public name -> the module that defines it, imported on first use.
_LAZY = {
    "BankMap": "bankism.engine",
    "SimulationResult": "bankism.engine",
    "simulate": "bankism.engine",
    "Access": "bankism.review",
    "Fix": "bankism.review",
    "Report": "bankism.review",
    "SharedArray": "bankism.review",
    "Swizzle": "bankism.review",
    "advise": "bankism.review",
    "check": "bankism.review",
}


def __getattr__(name: str) -> Any:
    if name == "testing":
        return importlib.import_module("bankism.testing")
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'bankism' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "ARCHITECTURES",
    "Access",
    "Architecture",
    "BankMap",
    "BankismError",
    "Fix",
    "Report",
    "Rule",
    "SharedArray",
    "SimulationResult",
    "Swizzle",
    "__version__",
    "advise",
    "check",
    "get_arch",
    "simulate",
    "testing",
]
