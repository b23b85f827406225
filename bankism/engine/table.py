"""The per-kind table the kernel reads, and the column names of every array the kernel shares.

``kind_table`` turns (width, op, matrices, rule) kinds into one int64 row each (columns
``KindColumn``), their merge xor masks and their cycle model; the kernel writes per-kind sums
(``TotalColumn``), worst instructions (``WorstColumn``) and the first invalid lane (``ErrorCode``).
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

from bankism.arch import Architecture, Rule
from bankism.engine.inputs import geometry, lanes_used, log2_exact


class KindColumn(IntEnum):
    """Columns of the per-kind parameter table (one row per instruction kind)."""

    WIDTH = 0
    LANES = 1
    GROUP_LANES = 2
    GROUP_SHIFT = 3
    BASE = 4
    TX_SHIFT = 5
    XORS = 6
    WARP_SCOPE = 7
    SERIALISED = 8
    BANKED = 9
    PER_PASS = 10
    UNIT_SHIFT = 11
    SUPER_SHIFT = 12
    LIMIT = 13


class TotalColumn(IntEnum):
    """Per (piece, kind) sums the kernel keeps."""

    EXECUTIONS = 0
    WAVEFRONTS = 1
    IDEAL = 2
    CONFLICTS = 3


class WorstColumn(IntEnum):
    """Per (piece, kind) worst instruction: its index, excess wavefronts, wavefronts."""

    INDEX = 0
    EXCESS = 1
    WAVEFRONTS = 2


class ErrorCode(IntEnum):
    """Why a lane's address is invalid (third column of the kernel's ``errors``)."""

    NONE = 0
    NEGATIVE = 1
    RANGE = 2
    ALIGN = 3


def kind_table(
    kinds: list[tuple[int, str, int | None, Rule]], arch: Architecture, limit: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The kernel's per-kind tables (``KindColumn`` columns, merge xor masks, cycle model) for (width, op,
    matrices, rule) kinds whose active lanes must lie in [0, limit)."""
    table = np.zeros((len(kinds), len(KindColumn)), np.int64)
    most_xors = max([len(rule.merge_xors) for *_, rule in kinds] + [1])
    xors = np.zeros((len(kinds), most_xors), np.int64)
    floats = np.full((len(kinds), 2), np.nan)
    for k, (width, op, matrices, rule) in enumerate(kinds):
        lanes = lanes_used(op, matrices)
        group = rule.lanes_per_transaction
        base = lanes // group
        unit_shift, super_shift = geometry(arch, width)
        table[k] = 0
        table[k, KindColumn.WIDTH] = width
        table[k, KindColumn.LANES] = lanes
        table[k, KindColumn.GROUP_LANES] = group
        table[k, KindColumn.GROUP_SHIFT] = log2_exact(group, "lanes per transaction")
        table[k, KindColumn.BASE] = base
        table[k, KindColumn.TX_SHIFT] = max(0, (base - 1).bit_length())
        table[k, KindColumn.XORS] = len(rule.merge_xors)
        table[k, KindColumn.WARP_SCOPE] = rule.merge_scope == "warp"
        table[k, KindColumn.SERIALISED] = rule.same_address_serialised
        table[k, KindColumn.BANKED] = rule.banked
        table[k, KindColumn.PER_PASS] = rule.wavefronts_per_pass
        table[k, KindColumn.UNIT_SHIFT] = unit_shift
        table[k, KindColumn.SUPER_SHIFT] = super_shift
        table[k, KindColumn.LIMIT] = limit
        xors[k, :len(rule.merge_xors)] = rule.merge_xors
        if rule.cycles_floor is not None and rule.cycles_per_wavefront is not None:
            floats[k] = (rule.cycles_floor, rule.cycles_per_wavefront)
    return table, xors, floats
