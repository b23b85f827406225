"""bankism: exact shared-memory wavefront and bank-conflict counts for CUDA warps."""

from bankism import testing
from bankism.arch import ARCHITECTURES, Architecture, Rule, get_arch
from bankism.engine import BankMap, SimulationResult, simulate
from bankism.errors import BankismError
from bankism.review import Access, Fix, Report, SharedArray, Swizzle, advise, check

__version__ = "0.1.0"

__all__ = [
    "ARCHITECTURES",
    "Access",
    "Fix",
    "Report",
    "SharedArray",
    "Swizzle",
    "advise",
    "check",
    "testing",
    "Architecture",
    "BankMap",
    "BankismError",
    "Rule",
    "SimulationResult",
    "get_arch",
    "simulate",
    "__version__",
]
