"""What names are bound to while the interpreter runs (variables, type aliases, global
arrays), the lvalues it reads and writes, call frames and loop states, and the small records
describing one block run."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bankism.explain import syntax as S
from bankism.explain.ctype import CType
from bankism.explain.memory import GlobalMatrix
from bankism.explain.values import Value


class Variable:
    """A named scalar/vector/pointer variable; ``ref`` makes it an alias (C++ reference)."""

    __slots__ = ("name", "type", "value", "ref")

    def __init__(self, name: str, type: CType, value: Value | None, ref: object = None) -> None:
        self.name = name
        self.type = type
        self.value = value
        self.ref = ref


@dataclass(slots=True)
class TypeAlias:
    type: CType


@dataclass(slots=True)
class GlobalArray:
    """A file-scope __constant__ or __device__ variable: global memory with symbolic content."""

    matrix: GlobalMatrix
    type: CType


@dataclass(slots=True)
class VarLV:
    var: Variable


@dataclass(slots=True)
class MemLV:
    region: object
    offset: np.ndarray | np.generic
    type: CType
    node: S.Node


@dataclass(slots=True)
class CompLV:
    base: object
    index: int
    type: CType


LValue = VarLV | MemLV | CompLV


@dataclass
class Frame:
    """One function invocation: its scopes, the lanes that returned, and the return value."""

    function: S.Function
    scopes: list[dict[str, object]]
    returned: np.ndarray
    return_type: CType
    result: Value | None = None


@dataclass
class LoopState:
    broken: np.ndarray
    continued: np.ndarray


@dataclass(frozen=True)
class SnapshotRequest:
    """--snapshot LINE --when VAR=VALUE: take the shared memory after LINE when VARs match."""

    line: int
    when: tuple[tuple[str, int], ...] = ()


@dataclass
class BlockContext:
    """What one block run needs from the outside."""

    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    block_index: tuple[int, int, int]
    dynamic_shared: int
    filename: str
    arch: str = "sm_90"

