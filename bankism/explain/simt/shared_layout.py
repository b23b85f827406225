"""Where the SIMT machine puts a block's __shared__ arrays before any thread runs: the static arrays
the kernel uses (nvcc drops unused ones) in nvcc's order, around them the file-scope and
__device__-function ones (``placement``), and the extern array at the dynamic shared memory.
A mixin of ``interpreter.Machine``."""

from __future__ import annotations

import contextlib

import numpy as np

from bankism.arch import get_arch, window_base
from bankism.errors import BankismError
from bankism.explain.frontend import syntax as S
from bankism.explain.frontend.preprocess import stand_in_name
from bankism.explain.simt import ctype as C
from bankism.explain.simt.bindings import Frame, TypeAlias
from bankism.explain.simt.ctype import CType
from bankism.explain.simt.memory import (
    SharedVariable,
    dynamic_base,
    layout_static,
)
from bankism.explain.simt.placement import plan_outer
from bankism.explain.simt.template_shared import InstanceItem
from bankism.explain.simt.values import Failure, Mask


def check_shared_fits(arrays: list[SharedVariable], end: int, arch: str, filename: str) -> None:
    """Shared arrays past the architecture's shared memory are a limit error, before any is allocated."""
    limit = get_arch(arch).shared_bytes
    if end > limit:
        last = max(arrays, key=lambda a: a.base + a.size)
        raise BankismError(
            f"{filename}:{last.line}: the shared arrays end at byte {end:,} ({last.name} takes "
            f"{last.size:,} bytes); a block of {arch} has at most {limit:,} bytes ({limit // 1024} KB) of "
            "shared memory")


class SharedLayout:
    """The layout of the block's shared arrays (a mixin of ``Machine``)."""

    def _plan_shared(self) -> None:
        """Lay out the static __shared__ arrays the kernel uses (nvcc drops unused ones) and
        the extern one, before any thread runs: see memory.layout_static."""
        body = self.program.body(self.kernel)
        used = self._names_used(body)
        full = Mask(np.ones(self.threads, bool), True, False)
        static: list[tuple[S.Declarator, CType, int | None]] = []
        externs: list[tuple[S.Declarator, CType, int]] = []
        frame = Frame(self.kernel, [dict(self.bindings), {}], np.zeros(self.threads, bool), C.VOID)
        self.frames.append(frame)
        snapshot, self.snapshot = self.snapshot, None
        try:
            for node in S.walk(body):
                if isinstance(node, S.TypeDef):  # `using acc_t = ...;` may type a later array
                    with contextlib.suppress(Failure):
                        self.declare(node.name, TypeAlias(self.resolve_type(node.type, full)))
                    continue
                if not isinstance(node, S.Decl):
                    continue
                if not node.shared:
                    self._try_constant_decl(node, full)
                    continue
                for item in node.items:
                    if item.name not in used:
                        self._unused_shared.add(id(item))
                        continue
                    try:
                        align = (self.integer_constant(item.type.align, full, "alignment")
                                 if item.type.align is not None else None)
                        if node.extern:
                            element = self.resolve_type(self._element_type(item), full)
                            externs.append((item, element, align or element.align))
                        else:
                            t = self.resolve_type(item.type, full)
                            if _never_accessed(t):  # named (bound by reference), never laid out
                                self._unused_shared.add(id(item))
                                self._dropped_storage[id(item)] = SharedVariable(item.name, t, 0, t.size,
                                                                                 item.line)
                                continue
                            static.append((item, t, align))
                    except Failure as failure:
                        self._deferred[id(item)] = failure
        finally:
            self.frames.pop()
            self.snapshot = snapshot
        static = self._outer_shared(static, externs, full)
        start = window_base(self.context.arch)
        placed, end = layout_static([(item.name, t, item.line, align) for item, t, align in static], start)
        for (item, _, _), region in zip(static, placed, strict=True):
            if isinstance(item, InstanceItem):  # a template function's array, one instantiation's
                self.instance_regions[(id(item.item), item.key)] = region
                continue
            self.shared[id(item)] = region
            if item.name in self._file_shared and self._file_shared[item.name] is item:
                self.globals[item.name] = region
        self.shared_arrays = list(placed)
        self.static_end = end
        for item, element, align in externs:
            region = self._place_extern(item, element, align)
            if self._file_shared.get(item.name) is item:
                self.globals[item.name] = region

    def _names_used(self, body: S.Block) -> set[str]:
        """The names ``body`` uses, the bodies of its lambdas included (an array used only in a
        ``[&]`` lambda is used: scout 7's double-buffered WMMA GEMMs)."""
        used: set[str] = set()
        pending = [body]
        while pending:
            for node in S.walk(pending.pop()):
                if isinstance(node, S.Name):
                    used.add(node.name)
                elif isinstance(node, S.Lambda):
                    with contextlib.suppress(BankismError, Failure):  # unparsable: refused when run
                        pending.append(self.program.lambda_body(node))
        return used

    def _outer_shared(self, own: list, externs: list, full: Mask) -> list:
        """The kernel's own static arrays with the file-scope and __device__-function ones it
        uses placed around them as nvcc does (see placement.py); file-scope extern arrays
        join ``externs``."""
        self._file_shared: dict[str, S.Declarator] = {}
        plan = plan_outer(self.program, self.kernel)
        for outer in plan.before + plan.after:
            if outer.owner is None:
                self._file_shared[outer.item.name] = outer.item
        for outer, why in plan.refused:
            if outer.owner is None:
                raise Failure(outer.item, why)
            self._deferred[id(outer.item)] = Failure(outer.item, why)

        def entries(outers: list) -> list:
            out = []
            for outer in outers:
                item = outer.item
                try:
                    align = (self.integer_constant(item.type.align, full, "alignment")
                             if item.type.align is not None else None)
                    if outer.decl.extern:
                        element = self.resolve_type(self._element_type(item), full)
                        externs.append((item, element, align or element.align))
                    else:
                        out.append((item, self.resolve_type(item.type, full), align))
                except Failure as failure:
                    if outer.owner is None:
                        raise
                    self._deferred[id(item)] = failure
            return out

        local, module, unsure = self.templated_entries(plan.templated, own, plan.after, full)
        after = []
        for outer in plan.after:
            if id(outer.item) not in unsure:
                after.append(outer)
                continue
            why = Failure(outer.item, f"unsupported construct: where nvcc places {outer.item.name} depends "
                                      "on the instantiations of template functions with static __shared__ "
                                      "arrays before it, which are not known")
            if outer.owner is None:
                raise why
            self._deferred[id(outer.item)] = why
        idle = np.zeros(self.threads, bool)
        self.frames.append(Frame(self.kernel, [dict(self.bindings), {}], idle, C.VOID))
        try:
            # a template kernel is emitted after the instantiations it makes: theirs come first
            inside = local + own if self.kernel.template_params else own + local
            return entries(plan.before) + inside + entries(after) + module
        finally:
            self.frames.pop()

    @staticmethod
    def _element_type(item: S.Declarator) -> S.TypeName:
        """The element type of an extern __shared__ array: its type without the first
        dimension (``half s[][40]`` holds rows of 40 halves)."""
        t = item.type
        return S.TypeName(t.line, t.text, t.base, t.pointers, list(t.dims[1:]), False, False, None, t.args,
                          t.scope, file=t.file)

    def _place_extern(self, item: S.Declarator, element: CType, align: int) -> SharedVariable:
        """The extern __shared__ array ``item``: the dynamic shared memory, after the static
        arrays (every extern array of the block starts there, whichever function declares it).
        The region is the whole dynamic size, even when it is not a whole number of rows."""
        count = self.context.dynamic_shared // element.size
        t = C.array_of(element, count)
        size = max(count * element.size, self.context.dynamic_shared)
        base = dynamic_base(self.static_end, align)
        region = SharedVariable(item.name, t, base, size, item.line, extern=True)
        self.shared[id(item)] = region
        self.shared_arrays.append(region)
        if hasattr(self, "store"):
            self.store.grow(region.base + region.size)
        return region


def _never_accessed(t: CType) -> bool:
    """Storage a stand-in library header declares and never touches (``cub::WarpReduce``'s
    ``TempStorage``): nvcc drops a ``__shared__`` array of it, as it drops unused arrays."""
    while t.kind == "array":
        t = t.elem
    definition = t.info.definition if t.kind == "struct" and t.info is not None else None
    return (definition is not None and definition.name.endswith("NullStorage")
            and stand_in_name(definition.file) is not None)
