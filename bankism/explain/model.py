"""The data `bankism explain` passes between its phases: the options the user gave and the
``Analysis`` (launch, shared arrays, matrices, access sites, snapshot) the report is built
from. Kept apart so that the interpreter driver (``analysis``), the trace comparison
(``against_trace``) and the report import it without importing each other."""

from __future__ import annotations

from dataclasses import dataclass, field

from bankism.arch import DEFAULT_ARCH
from bankism.explain.simt.bindings import SnapshotRequest
from bankism.explain.simt.global_data import DataRule
from bankism.explain.simt.memory import GlobalMatrix, SharedVariable
from bankism.explain.simt.recording import SourceSite

Dim3 = tuple[int, int, int]


@dataclass
class ExplainOptions:
    """What the user asked for (the CLI options of `bankism explain`)."""

    kernel: str | None = None
    grid: Dim3 | None = None
    block: Dim3 | None = None
    block_indices: list[Dim3] | None = None
    all_blocks: bool = False
    defines: dict[str, str] = field(default_factory=dict)
    snapshot: SnapshotRequest | None = None
    dynamic_shared: int | None = None
    arch: str = DEFAULT_ARCH
    trace: str | None = None
    trace_launch: int | None = None
    include_dirs: list[str] = field(default_factory=list)
    pre_includes: list[str] = field(default_factory=list)
    undefines: list[str] = field(default_factory=list)
    #: What global memory holds (`--data`): per kernel pointer name, None for every kernel pointer.
    data: dict[str | None, DataRule] = field(default_factory=dict)
    data_seed: int = 0
    #: Count accesses as written: no merging of neighbouring scalar accesses as nvcc does (vectorize.py).
    as_written: bool = False


@dataclass
class SnapshotArray:
    """One shared array's content at the snapshot: a cell per scalar element."""

    name: str
    dtype: str
    shape: list[int]
    base_offset: int
    element_size: int
    cells: list[dict]


@dataclass
class Snapshot:
    line: int
    when: dict[str, int]
    block: Dim3
    arrays: list[SnapshotArray]


@dataclass
class Analysis:
    """Everything the report needs: launch, arrays, matrices, sites, snapshot."""

    filename: str
    source_lines: list[str]
    kernel: str
    #: None where neither the options nor the source say the launch's grid (the answer is per block).
    grid: Dim3 | None
    block: Dim3
    blocks: list[Dim3]
    dynamic_shared: int
    launch_origin: str
    arch: str
    shared_arrays: list[SharedVariable]
    matrices: list[GlobalMatrix]
    sites: list[SourceSite]
    snapshot: Snapshot | None
    template: dict[str, int | str] = field(default_factory=dict)
    parameters: dict[str, int | float | None] = field(default_factory=dict)
    launches: int = 0
    trace_launch: object = None
    #: What explain assumed because the user did not say (one sentence each).
    assumptions: list[str] = field(default_factory=list)
