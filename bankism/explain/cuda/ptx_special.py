"""PTX special registers an inline-asm statement may read beyond the thread and block
indices: clocks, timers and hardware placement (%clock, %clock64, %globaltimer, %smid,
%warpid, ...) have values nobody knows before the run (unknown values: harmless unless a
shared address, branch or trip count needs them); the lane masks (%lanemask_lt, ...) and
%warpsize follow from the lane."""

from __future__ import annotations

import numpy as np

from bankism.arch import LANES
from bankism.explain.simt import ctype as C
from bankism.explain.simt.values import Scalar, constant, unknown

#: Special registers whose value is not known from the source, with their PTX type.
UNKNOWN_SPECIAL = {
    "%clock": C.UINT, "%clock_hi": C.UINT, "%clock64": C.ULLONG, "%globaltimer": C.ULLONG,
    "%globaltimer_lo": C.UINT, "%globaltimer_hi": C.UINT, "%smid": C.UINT, "%nsmid": C.UINT,
    "%warpid": C.UINT, "%nwarpid": C.UINT, "%gridid": C.ULLONG,
}
_LANEMASKS = {
    "%lanemask_eq": lambda lane: np.left_shift(1, lane),
    "%lanemask_lt": lambda lane: np.left_shift(1, lane) - 1,
    "%lanemask_le": lambda lane: np.left_shift(2, lane) - 1,
    "%lanemask_gt": lambda lane: ~(np.left_shift(2, lane) - 1),
    "%lanemask_ge": lambda lane: ~(np.left_shift(1, lane) - 1),
}


def is_lane_special(name: str) -> bool:
    """Whether ``name`` is one of the special registers this module evaluates."""
    return name in UNKNOWN_SPECIAL or name in _LANEMASKS or name == "%warpsize"


def lane_special(name: str, lanes: np.ndarray) -> Scalar:
    """The value of special register ``name`` in each thread (``lanes``: linear thread ids)."""
    if name in UNKNOWN_SPECIAL:
        return unknown(UNKNOWN_SPECIAL[name], f"the PTX special register {name}")
    if name == "%warpsize":
        return constant(C.UINT, LANES)
    masks = _LANEMASKS[name]((lanes % LANES).astype(np.int64)) & 0xFFFFFFFF
    return Scalar(C.UINT, masks.astype(np.uint32))
