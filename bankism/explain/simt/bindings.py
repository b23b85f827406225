"""What names are bound to while the interpreter runs (variables, type aliases, global
arrays), the lvalues it reads and writes, call frames and loop states, and the small records
describing one block run."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from bankism.arch import DEFAULT_ARCH
from bankism.explain.frontend import syntax as S
from bankism.explain.simt.ctype import CType
from bankism.explain.simt.global_data import GlobalData
from bankism.explain.simt.memory import GlobalMatrix
from bankism.explain.simt.values import Value


class Variable:
    """A named scalar/vector/pointer variable; ``ref`` makes it an alias (C++ reference)."""

    __slots__ = ("name", "type", "value", "ref", "born_unsure")

    def __init__(self, name: str, type: CType, value: Value | None, ref: object = None) -> None:
        self.name = name
        self.type = type
        self.value = value
        self.ref = ref
        #: Lanes that were only maybe running where the variable was declared: inside that
        #: code the variable's values in those lanes are exact (it does not outlive it).
        self.born_unsure = None


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
    """A place in memory: region, byte offset per thread (``known`` where it is known, with
    ``taint`` saying why not), type, and the access expression (the site)."""

    region: object
    offset: np.ndarray | np.generic
    type: CType
    node: S.Node
    known: object = True
    taint: str | None = None


@dataclass(slots=True)
class CompLV:
    """A vector component (``index`` an int) or a struct member (``index`` its name) of an
    object that is not in memory (a local variable)."""

    base: object
    index: int | str
    type: CType


LValue = VarLV | MemLV | CompLV


@dataclass
class Frame:
    """One function invocation: its scopes, the lanes that returned, and the return value."""

    function: S.Function
    scopes: list[dict[str, object]]
    returned: np.ndarray
    return_type: CType | None
    result: Value | None = None
    #: The object of a member function (an lvalue), its struct type, and the lvalue a
    #: function returning a reference returned.
    this: object = None
    this_type: CType | None = None
    result_lvalue: object = None
    #: Lanes that may or may not have returned (a return under a condition bankism does
    #: not know): they run on, but may not touch shared memory.
    unsure: np.ndarray | None = None


@dataclass
class LoopState:
    broken: np.ndarray
    continued: np.ndarray
    #: Lanes that may or may not have left the loop (break under an unknown condition).
    unsure: np.ndarray | None = None


@dataclass(frozen=True)
class SnapshotRequest:
    """--snapshot LINE --when VAR=VALUE: take the shared memory after LINE when VARs match."""

    line: int
    when: tuple[tuple[str, int], ...] = ()
    #: The file of LINE (``header.cuh`` in ``--snapshot header.cuh:40``); None: any file.
    file: str | None = None


@dataclass
class BlockContext:
    """What one block run needs from the outside."""

    #: None where the launch's grid is not known: gridDim is then an unknown value.
    grid: tuple[int, int, int] | None
    block: tuple[int, int, int]
    block_index: tuple[int, int, int]
    dynamic_shared: int
    filename: str
    arch: str = DEFAULT_ARCH
    #: What global memory holds where the user said (`explain --data`); one object for every block.
    data: GlobalData | None = None



#: Types whose values are objects, not bytes (WMMA fragments, kind "wmma"): per kind, the
#: handler of ``obj.member`` (machine, lvalue of the object, Member node, mask) -> LValue.
#: The kind's module registers it (as built-ins register in BUILTINS).
OBJECT_MEMBERS: dict[str, Callable[..., object]] = {}
#: Per kind, the handler of ``obj.method(args)`` (machine, lvalue of the object, MethodCall, mask).
OBJECT_METHODS: dict[str, Callable[..., object]] = {}
#: Resolvers of the names of such types (machine, TypeName) -> CType or None, tried in order.
OBJECT_TYPES: list[Callable[..., CType | None]] = []


def object_type(machine: object, type_name: S.TypeName) -> CType | None:
    """The object type ``type_name`` denotes (``wmma::fragment<...>``, ``cuda::barrier<...>``), else None."""
    for resolve in OBJECT_TYPES:
        t = resolve(machine, type_name)
        if t is not None:
            return t
    return None


class ObjectArray:
    """An array of objects (``wmma::fragment<...> acc[2][4]``): one Variable per element,
    whose value is the object (or, for an inner dimension, another ObjectArray)."""

    __slots__ = ("type", "items")

    def __init__(self, name: str, t: CType) -> None:
        self.type = t
        inner = t.elem
        self.items = [Variable(f"{name}[{i}]", inner, ObjectArray(f"{name}[{i}]", inner)
                               if inner.kind == "array" else None) for i in range(t.count)]
