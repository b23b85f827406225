"""Static __shared__ arrays of template ``__device__`` functions (block reductions): one array
per instantiation, placed as nvcc places them.

Measured on the H100 (traces/shared_placement/template_probe.cu, template_placement.txt) and
read in the PTX ``nvcc -arch=sm_90`` writes: NVVM emits template instantiations after every
other function, so their arrays come after the kernel's own arrays. An instantiation only
this kernel uses is moved into the kernel (after its own arrays and the non-template arrays
moved in before them); one other kernels use too stays at module scope, after the
non-template module-scope arrays. Instantiations are ordered as first called (depth first, in
source order). Which instantiations the kernel makes is learnt by running the first block
once (``discover``); which ones other kernels make is read from their calls' explicit
template arguments. Where that cannot tell the layout (a call whose instantiation is not
known: deduced arguments, a template kernel, a call that did not run), the layouts for
either count of users are compared, and the arrays whose place differs are refused when a
thread declares them."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from bankism.errors import BankismError
from bankism.explain.frontend import syntax as S
from bankism.explain.simt import ctype as C
from bankism.explain.simt.bindings import Frame, TypeAlias
from bankism.explain.simt.ctype import CType
from bankism.explain.simt.memory import SharedVariable
from bankism.explain.simt.placement import OuterShared, cached, kernel_reach
from bankism.explain.simt.values import Failure, Mask, Scalar, constant

#: Where a discovery run puts each instantiation's arrays (apart, so no placement matters).
_DISCOVERY_ALIGN = 1024


@dataclass(eq=False)
class Instance:
    """One instantiation of a template function with static shared arrays: its key and the
    bindings of its template parameters (to resolve the arrays' types)."""

    function: S.Function
    key: tuple
    bindings: dict[str, object]
    #: The type each of its arrays had when declared in the discovery run (by declarator id):
    #: sizes may use the function's own constexpr locals.
    types: dict[int, CType] = field(default_factory=dict)


@dataclass(eq=False)
class InstanceItem:
    """The declarator of a static shared array in one instantiation (what the layout places)."""

    item: S.Declarator
    key: tuple
    function: S.Function

    @property
    def name(self) -> str:
        """``partOf<double>::part``: the array, named after its instantiation."""
        return array_name(self.function, self.key, self.item)

    @property
    def line(self) -> int:
        return self.item.line


def _binding_key(binding: object) -> tuple:
    if isinstance(binding, TypeAlias):
        return ("type", binding.type.name)
    if isinstance(binding, CType):
        return ("type", binding.name)
    if isinstance(binding, Scalar):
        return ("value", int(np.asarray(binding.data).flat[0]))
    return ("value", int(binding))


def array_name(function: S.Function, key: tuple, item: S.Declarator) -> str:
    """The name explain gives one instantiation's array: ``partOf<double>::part``."""
    args = ", ".join(str(value) for _, value in key[1])
    return f"{function.name}<{args}>::{item.name}"


def instance_key(function: S.Function, scope: dict[str, object]) -> tuple:
    """The instantiation of ``function`` whose template parameters ``scope`` binds."""
    return (function, tuple(_binding_key(scope[p.name]) for p in function.template_params))


def _calls(program, body: S.Node, names: set[str]) -> list[S.Call]:  # noqa: ANN001
    """Calls by name to one of ``names`` in ``body``, in source order (found once per body)."""
    def find() -> list[S.Call]:
        found = [n for n in S.walk(body) if isinstance(n, S.Call) and n.function in names]
        return sorted(found, key=lambda c: (c.line, c.col))

    return cached(program, "calls", (body, frozenset(names)), find)


def _instantiated(program, kernel: S.Function) -> bool:  # noqa: ANN001
    """Whether the file makes ``kernel``: a plain kernel always; a template kernel when the
    file launches it or instantiates it explicitly (``template __global__ void k<4>(...);``)."""
    if not kernel.template_params:
        return True
    if any(launch.kernel == kernel.name for launch in program.launches):
        return True
    explicit = re.compile(r"\btemplate\s+(?!<)[^;{}]*\b" + re.escape(kernel.name) + r"\s*<")
    return explicit.search(program.pre.text) is not None


@dataclass
class TemplateRun:
    """What placing template functions' arrays needs from outside one block's run: the
    instantiations the discovery run made and the calls of them that ran, and the template
    arguments of the file's other instantiations of this (template) kernel (None: not known)."""

    instances: list[Instance]
    ran_calls: set[int]
    siblings: list[dict[str, object]] | None
    #: other template kernels of the file -> the template arguments of each of their launches
    #: (None: not known), so that their calls with dependent arguments tell which they make
    others: dict[str, list[dict[str, object]] | None] = field(default_factory=dict)


class TemplateShared:
    """Per-instantiation static shared arrays (a mixin of ``Machine``)."""

    def sibling_scopes(self, siblings: list[dict[str, object]] | None) -> list[dict[str, object]] | None:
        """The other instantiations' template arguments as bindings (types as aliases)."""
        if siblings is None:
            return None
        out = []
        for values in siblings:
            scope: dict[str, object] = {}
            for name, value in values.items():
                scope[name] = TypeAlias(value) if isinstance(value, CType) else constant(C.INT, int(value))
            out.append(scope)
        return out

    def templated_entries(self, templated: list[OuterShared], own: list, after: list[OuterShared],
                          full: Mask) -> tuple[list, list, set[int]]:
        """(arrays moved into the kernel, arrays kept at module scope) of the instantiations
        this kernel makes, as layout entries (InstanceItem, type, alignment), and the ids of
        the module-scope arrays in ``after`` whose place is not known (see the module
        docstring). In a discovery run there are none: each is placed when first declared."""
        self._templated = {id(outer.item): outer for outer in templated}
        self._owners = {id(outer.owner): outer.owner for outer in templated}
        self.instance_regions: dict[tuple, SharedVariable] = {}
        self.owner_calls: set[int] = set()
        self.discovered: list[Instance] = []
        if not templated or self.instances is None:
            return [], [], set()
        sequences, unknown = self._other_uses()
        others = {key for keys in sequences for key in keys}
        local, module, doubtful = [], [], []
        for instance in self.instances:
            sibling = self._sibling_use(instance)
            if instance.key in others or sibling is True:
                module.append(instance)
            elif instance.function.name in unknown or sibling is None:
                doubtful.append(instance)
            else:
                local.append(instance)
        mine = [("own", id(entry[0])) for entry in own]
        middle = [("after", id(o.item)) for o in after]
        tu_order = [i.key for i in self._module_order(sequences)]

        def sequence(alone: list[Instance], shared: list[Instance]) -> list:
            moved = [i.key for i in self.instances if i in alone]
            inside = moved + mine if self.kernel.template_params else mine + moved
            return inside + middle + [k for k in tu_order if any(i.key == k for i in shared)]

        as_local, as_module = sequence(local + doubtful, module), sequence(local, module + doubtful)
        hidden = self._calls_not_run()
        if hidden:  # an instantiation this kernel may make is not known: everything after it may move
            first = 0
        else:
            first = next((n for n, (a, b) in enumerate(zip(as_local, as_module, strict=True)) if a != b),
                         len(as_local))
            if unknown and len(module) + len(doubtful) > 1:  # the file's order of making them is not known
                first = min(first, len(as_local) - len(module))
        unsure = set(as_local[first:]) | set(as_module[first:])
        why = ("a call of a template function with static __shared__ arrays did not run in the first block"
               if hidden else "how many kernels of the file use it, or in which order they make it, is not "
                              "known (deduced template arguments, or a template kernel)")
        self._refuse([i for i in self.instances if i.key in unsure], why)
        for kind, ident in unsure:
            if kind == "own":
                self._deferred[ident] = Failure(next(e[0] for e in own if id(e[0]) == ident), "unsupported "
                                                "construct: where nvcc places this array depends on the "
                                                f"instantiations of template functions before it: {why}")
        alone = [i for i in self.instances if i not in module and i.key not in unsure]
        shared = [i for i in self.instances if i in module and i.key not in unsure]
        return self._entries(alone, full), self._entries(shared, full), {
            ident for kind, ident in unsure if kind == "after"}

    def _sibling_use(self, instance: Instance) -> bool | None:
        """For a template kernel: whether another instantiation of it the file makes also makes
        ``instance`` (True), none does (False), or that is not known (None). A plain kernel: False."""
        if not self.kernel.template_params:
            return False
        if self.siblings is None:
            return None
        direct = _calls(self.program, self.program.body(self.kernel), {instance.function.name})
        keys = [self._explicit_key(c, self.bindings) for c in direct]
        if None in keys or instance.key not in keys:
            return None  # made through a helper, or next to a call whose instantiation is not known
        calls = [c for c, key in zip(direct, keys, strict=True) if key == instance.key]
        for scope in self.siblings:
            for call in calls:
                key = self._explicit_key(call, scope)
                if key is None:
                    return None
                if key == instance.key:
                    return True
        return False

    def _module_order(self, sequences: list[list[tuple]]) -> list[Instance]:
        """This kernel's instantiations in the order the file first makes them (kernels in
        source order, this one's as they ran)."""
        seen: list[tuple] = []
        mine = [[i.key for i in self.instances]]
        for keys in sequences[:self._position] + mine + sequences[self._position:]:
            seen.extend(k for k in keys if k not in seen)
        by_key = {i.key: i for i in self.instances}
        return [by_key[k] for k in seen if k in by_key]

    def _refuse(self, instances: list[Instance], why: str) -> None:
        for instance in instances:
            for outer in self._templated.values():
                if outer.owner is instance.function:
                    self._deferred[(id(outer.item), instance.key)] = Failure(
                        outer.item, f"unsupported construct: where nvcc places the static __shared__ array "
                                    f"{outer.item.name} of {instance.function.name} is not known: {why}")

    def _entries(self, instances: list[Instance], full: Mask) -> list:
        out = []
        for instance in instances:
            for outer in self._templated.values():
                if outer.owner is not instance.function:
                    continue
                frame = Frame(instance.function, [dict(self.globals), dict(instance.bindings)],
                              np.zeros(self.threads, bool), C.VOID)
                self.frames.append(frame)
                try:
                    t = instance.types.get(id(outer.item)) or self.resolve_type(outer.item.type, full)
                    align = (self.integer_constant(outer.item.type.align, full, "alignment")
                             if outer.item.type.align is not None else None)
                except Failure as failure:
                    self._deferred[(id(outer.item), instance.key)] = failure
                    continue
                finally:
                    self.frames.pop()
                out.append((InstanceItem(outer.item, instance.key, instance.function), t, align))
        return out

    def _other_uses(self) -> tuple[list[list[tuple]], set[str]]:
        """``_find_other_uses``, once per kernel (every block's machine asks)."""
        found = cached(self.program, "other uses", id(self.kernel), self._find_other_uses)
        self._position = found[2]
        return found[0], found[1]

    def _find_other_uses(self) -> tuple[list[list[tuple]], set[str], int]:
        """The instantiations each other kernel of the file makes, in its call order (kernels
        in source order; ``_position`` is where this kernel falls), and the names of the
        template functions some other kernel calls with arguments that do not tell which."""
        sequences: list[list[tuple]] = []
        unknown: set[str] = set()
        names = {f.name for f in self._owners.values()}
        self._position = 0
        for kernel in self.program.kernels:
            if kernel is self.kernel:
                self._position = len(sequences)
                continue
            if not _instantiated(self.program, kernel):
                continue
            keys: list[tuple] = []
            for function in self._reached(kernel):
                try:
                    body = self.program.body(function)
                except BankismError:
                    unknown.update(name for name in names if name in function.text)
                    continue
                scopes = self._instance_scopes(kernel) if function is kernel else None
                for call in _calls(self.program, body, names):
                    found = ([self._explicit_key(call)] if not scopes
                             else [self._explicit_key(call, scope) for scope in scopes])
                    if None in found:
                        unknown.add(call.function)
                    keys.extend(key for key in dict.fromkeys(found) if key is not None and key not in keys)
            sequences.append(keys)
        return sequences, unknown, self._position

    def _instance_scopes(self, kernel: S.Function) -> list[dict[str, object]] | None:
        """The bindings of each instantiation the file makes of another template kernel, or
        None (a plain kernel, or instantiations not known)."""
        if not kernel.template_params:
            return None
        return self.sibling_scopes(self.other_kernels.get(kernel.name))

    def _reached(self, kernel: S.Function) -> list[S.Function]:
        """``kernel`` and the functions it may call (by name), the kernel first."""
        reached, _ = kernel_reach(self.program, kernel)
        out = [kernel]
        for overloads in self.program.functions.values():
            out.extend(f for f in overloads
                       if id(f) in reached and f is not kernel and f.body_node is not None)
        return out

    def _calls_not_run(self) -> bool:
        """Whether this kernel calls a template function with static arrays at a call that
        did not run in the discovery run, for an instantiation not known to have run."""
        names = {f.name for f in self._owners.values()}
        ran = {i.key for i in self.instances}
        for function in self._reached(self.kernel):
            try:
                body = self.program.body(function)
            except BankismError:
                continue
            for call in _calls(self.program, body, names):
                if id(call) in self.ran_calls:
                    continue
                key = self._explicit_key(call, self.bindings if function is self.kernel else None)
                if key is None or key not in ran:
                    return True
        return False

    def _explicit_key(self, call: S.Call, scope: dict[str, object] | None = None) -> tuple | None:
        """The instantiation a call names by its explicit template arguments (resolved with
        only the file's names, or ``scope``), or None when they do not say it."""
        candidates = [f for f in self._owners.values() if f.name == call.function]
        if len(candidates) != 1:
            return None
        function = candidates[0]
        full = Mask(np.ones(self.threads, bool), True, False)
        values = []
        idle = np.zeros(self.threads, bool)
        frame = Frame(self.kernel, [dict(self.globals), dict(scope or {})], idle, C.VOID)
        self.frames.append(frame)
        try:
            for i, param in enumerate(function.template_params):
                given = call.template_args[i] if i < len(call.template_args) else param.default
                if given is None:
                    return None
                value = self._template_argument_value(given, full)
                if param.is_type != isinstance(value, CType):
                    return None
                values.append(_binding_key(value))
        except (Failure, BankismError):
            return None
        finally:
            self.frames.pop()
        return (function, tuple(values))  # the function itself: a lambda's is made per call

    def note_call(self, function: S.Function, expr: S.Node) -> None:
        """A call of ``function`` ran (the discovery run keeps the calls of template
        functions with static shared arrays)."""
        if id(function) in getattr(self, "_owners", {}):
            self.owner_calls.add(id(expr))

    def templated_region(self, item: S.Declarator) -> SharedVariable | None:
        """The array ``item`` of the instantiation running now (None: not a template
        function's array). A discovery run places each new one apart, after everything."""
        if id(item) not in getattr(self, "_templated", {}):
            return None
        frame = self.frame
        key = instance_key(frame.function, frame.scopes[0])
        failure = self._deferred.get((id(item), key))
        if failure is not None:
            raise failure
        region = self.instance_regions.get((id(item), key))
        if region is not None:
            return region
        if self.instances is not None:
            raise Failure(item, f"unsupported construct: an instantiation of {frame.function.name} the first "
                                "simulated block did not make (where nvcc places its static __shared__ array "
                                "is not known)")
        instance = next((i for i in self.discovered if i.key == key), None)
        if instance is None:
            bindings = {p.name: frame.scopes[0][p.name] for p in frame.function.template_params}
            instance = Instance(frame.function, key, bindings)
            self.discovered.append(instance)
        full = Mask(np.ones(self.threads, bool), True, False)
        t = self.resolve_type(item.type, full)
        instance.types[id(item)] = t
        end = max([a.base + a.size for a in self.shared_arrays], default=self.static_end)
        base = -(-end // _DISCOVERY_ALIGN) * _DISCOVERY_ALIGN
        region = SharedVariable(array_name(frame.function, key, item), t, base, t.size, item.line)
        self.shared_arrays.append(region)
        self.store.grow(base + t.size)
        self.instance_regions[(id(item), key)] = region
        return region
