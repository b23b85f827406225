"""The engine: how many wavefronts each shared-memory warp-instruction costs.

``simulate`` validates and packs the input with NumPy, then one Numba kernel walks the
warp-instructions in parallel. For each instruction it cuts the active lanes into
transactions following the architecture's rule (``arch.py``), merges neighbouring
transactions when the rule's xor condition holds, and counts, per transaction, the
largest number of distinct bank-wide units requested from one bank group. The bank
geometry (banks, bytes per bank) comes from ``Architecture``; every rule field is
interpreted, none looked up by op name.
The package, by job: ``api`` (``simulate``, ``simulate_many``), ``inputs`` (checking and packing the
input), ``table`` (the per-kind table and the kernel's column names), ``kernel`` (the Numba kernel),
``parallel`` (its threads), ``result`` (``SimulationResult``) and ``bankmap`` (``BankMap``).
"""

from __future__ import annotations

from bankism.engine.api import AddressError, Kind, KindTotals, check_kind, simulate, simulate_many
from bankism.engine.bankmap import BankMap
from bankism.engine.inputs import FULL_MASK
from bankism.engine.parallel import engine_threads
from bankism.engine.result import SimulationResult
from bankism.engine.table import ErrorCode, KindColumn, TotalColumn, WorstColumn

__all__ = [
    "FULL_MASK", "AddressError", "BankMap", "ErrorCode", "Kind", "KindColumn", "KindTotals",
    "SimulationResult", "TotalColumn", "WorstColumn", "check_kind", "engine_threads", "simulate",
    "simulate_many",
]
