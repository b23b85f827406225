"""Typed, read-only views of a trace's launches and sites: the fields by name instead of dict lookups.

The JSON document stays the source of truth (``load``/``save`` read and write it); ``Launch.of`` and
``TraceSite.of`` wrap one of its launch or site objects once the document has been validated, so every
field the format defines is an attribute with its type. ``json`` keeps the wrapped object for output
and for fields a newer format adds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bankism.arch import NCU_COUNTER_OF_OP
from bankism.isa import atomic_op_of_sass


@dataclass(frozen=True)
class TraceSite:
    """One instruction site of a launch: the SASS instruction (or source access) and its shape."""

    id: int
    op: str
    width: int
    matrices: int | None = None
    trans: bool = False
    pc: int | None = None
    sass: str | None = None
    file: str | None = None
    line: int | None = None
    #: cp.async sites: the most global 128-byte lines one store group read, and the executions where
    #: two lanes of a group read the same bytes (docs/rules.md, cp.async).
    source_lines: int = 1
    source_repeats: int = 0
    #: Stores: where they sit against the kernel's global loads (``fed``, ``before_loads``, ``other``;
    #: capture.phases), None where the trace does not say.
    phase: str | None = None
    json: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def of(cls, site: Mapping[str, Any]) -> TraceSite:
        """The view of a validated site object."""
        return cls(
            id=int(site["id"]), op=str(site["op"]), width=int(site["width"]),
            matrices=None if site.get("matrices") is None else int(site["matrices"]),
            trans=bool(site.get("trans", False)), pc=site.get("pc"), sass=site.get("sass"),
            file=site.get("file"), line=site.get("line"), source_lines=int(site.get("source_lines", 1)),
            source_repeats=int(site.get("source_repeats", 0)), phase=site.get("phase"), json=site,
        )

    @property
    def ncu_class(self) -> str:
        """The Nsight Compute counter family (ld, st, atom, ...) that counts this site."""
        return NCU_COUNTER_OF_OP[self.op]

    @property
    def atomic_op(self) -> str | None:
        """The engine's atomic_op of an atomic site, decoded from its SASS opcode; None otherwise."""
        return atomic_op_of_sass(self.sass) if self.op == "atomic" else None


@dataclass(frozen=True)
class Launch:
    """One kernel launch of a trace: its shape, the blocks recorded, its sites and ncu counters."""

    index: int
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_static: int
    shared_dynamic: int
    blocks_total: int
    blocks_recorded: str | tuple[tuple[int, int, int], ...]
    sites: tuple[TraceSite, ...]
    mangled: str | None = None
    counters: Mapping[str, Mapping[str, int]] | None = None
    #: Async-copy and wgmma events the tracer saw (cp.async.bulk, wgmma), per docs/trace-format.md.
    async_events: Mapping[str, Any] | None = None
    #: Shared-memory SASS of the kernel the tracer cannot record (TMA, ...), with their counts.
    unrecorded_shared: tuple[Mapping[str, Any], ...] | None = None
    #: Instructions with lanes in other blocks' shared memory (a cluster's distributed shared memory):
    #: per instruction its pc, sass, file, line, op, executions and lanes; not simulated.
    distributed_shared: tuple[Mapping[str, Any], ...] = ()
    #: ncu's global-memory and L1 figures for the whole launch (capture.ncu.TRAFFIC_METRICS), when measured.
    traffic: Mapping[str, float] | None = None
    json: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def of(cls, launch: Mapping[str, Any]) -> Launch:
        """The view of a validated launch object."""
        recorded = launch["blocks_recorded"]
        return cls(
            index=int(launch["index"]), kernel=str(launch["kernel"]),
            grid=tuple(launch["grid"]), block=tuple(launch["block"]),  # type: ignore[arg-type]
            shared_static=int(launch["shared_bytes"]["static"]),
            shared_dynamic=int(launch["shared_bytes"]["dynamic"]),
            blocks_total=int(launch["blocks_total"]),
            blocks_recorded=recorded if isinstance(recorded, str) else tuple(tuple(b) for b in recorded),
            sites=tuple(TraceSite.of(s) for s in launch["sites"]), mangled=launch.get("mangled"),
            counters=launch.get("counters"), async_events=launch.get("async"),
            unrecorded_shared=None if launch.get("unrecorded_shared") is None
            else tuple(launch["unrecorded_shared"]),
            distributed_shared=tuple(launch.get("distributed_shared") or ()),
            traffic=launch.get("traffic"),
            json=launch,
        )

    @property
    def threads_per_block(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    @property
    def shared_bytes(self) -> int:
        """Static plus dynamic shared memory of one block."""
        return self.shared_static + self.shared_dynamic

    def __getitem__(self, key: str) -> Any:
        """Deprecated: the launch's JSON field ``key`` (``Trace.launch()`` returned the JSON object
        before it returned this view); use the attributes."""
        return self.json[key]

    def __contains__(self, key: str) -> bool:
        """Deprecated, as ``__getitem__``: whether the launch's JSON object has ``key``."""
        return key in self.json

    def get(self, key: str, default: Any = None) -> Any:
        """Deprecated, as ``__getitem__``."""
        return self.json.get(key, default)

    def site(self, site_id: int) -> TraceSite:
        """The site with this id (a KeyError names it when absent)."""
        for site in self.sites:
            if site.id == site_id:
                return site
        raise KeyError(f"launch {self.index} has no site {site_id}")


#: ``TraceSite``'s first name, kept for scripts (deprecated: ``bankism.review.Site`` is another thing).
Site = TraceSite
