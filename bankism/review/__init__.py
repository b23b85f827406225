"""Kernel-design reviews: a shared array, a thread mapping, the engine's verdict, and the fix.

A reviewer states a layout (``layout.SharedArray``, ``layout.Swizzle``) and how the threads of a block
index it (``access.Access``). ``check`` (``report``) evaluates every warp and loop value with NumPy
(``evaluate``) and hands the warp-instructions to the engine; ``advise`` searches row paddings and XOR
swizzles and proves each proposal with ``check``; ``testing`` wraps both as test assertions.
CuTe layouts and tiled copies (``cute``, ``cute_copy``, ``cute_check``) and Triton shared encodings
(``triton_shared``, ``ttgir``) become SharedArrays and Accesses of the same kind (docs/layouts.md).
No hardware rule lives here: every count comes from the engine.
"""

from bankism.review.access import Access, RecordNames, Threads, threads
from bankism.review.advise import Fix, advise, swizzle_expression
from bankism.review.cute import CuteLayout, parse_layout
from bankism.review.cute_check import LayoutCheck, LayoutFix, check_layout
from bankism.review.cute_copy import copy_atom, make_tiled_copy, tiled_copy
from bankism.review.layout import SharedArray, Swizzle
from bankism.review.report import Collision, Report, Site, WarpInstruction, check, lane_ranges
from bankism.review.triton_shared import Blocked, SharedEncoding, check_encoding, parse_encoding

__all__ = [
    "Access",
    "Blocked",
    "Collision",
    "CuteLayout",
    "LayoutCheck",
    "LayoutFix",
    "SharedEncoding",
    "check_encoding",
    "check_layout",
    "copy_atom",
    "make_tiled_copy",
    "parse_encoding",
    "parse_layout",
    "tiled_copy",
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
