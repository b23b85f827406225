"""Kernel-design reviews: a shared array, a thread mapping, the engine's verdict, and the fix.

A reviewer states a layout (``layout.SharedArray``, ``layout.Swizzle``) and how the threads of a block
index it (``access.Access``). ``check`` (``report``) evaluates every warp and loop value with NumPy
(``evaluate``) and hands the warp-instructions to the engine; ``advise`` searches row paddings and XOR
swizzles and proves each proposal with ``check``; ``testing`` wraps both as test assertions.
No hardware rule lives here: every count comes from the engine.
"""

from bankism.review.access import Access, RecordNames, Threads, threads
from bankism.review.advise import Fix, advise, swizzle_expression
from bankism.review.layout import SharedArray, Swizzle
from bankism.review.report import Collision, Report, Site, WarpInstruction, check, lane_ranges

__all__ = [
    "Access",
    "Collision",
    "Fix",
    "RecordNames",
    "Report",
    "SharedArray",
    "Site",
    "Swizzle",
    "Threads",
    "WarpInstruction",
    "advise",
    "check",
    "lane_ranges",
    "swizzle_expression",
    "threads",
]
