"""Loops whose iterations repeat the same shared-memory accesses, simulated once.

A counted loop (``for (int k = A; k < B; k += C)`` with A, B, C uniform and known, the
counter not written in the body, no ``return`` and no ``break``/``continue`` of its own)
runs its first two iterations as usual. The third runs as a probe: every variable whose
value changed from the start of the first iteration to the start of the second (the
counter, pointers that advance, accumulators) is made unknown. If the probe finishes
without needing any of them (an address, a branch or a trip count that needs an unknown
value is refused, as always) and leaves every other variable as it found it, then every
later iteration starts in the same state as far as shared memory can tell, and makes
exactly the probe's accesses: they are recorded once per remaining iteration without being
interpreted. Variables that changed by the same amount in each of the first iterations
(the counter, advancing pointers) get their exact final values; the others stay unknown.
If the probe fails, everything it did is undone and the loop runs on as usual. The report
says which loops were counted this way."""

from __future__ import annotations

import numpy as np

from bankism.errors import BankismError
from bankism.explain.frontend import syntax as S
from bankism.explain.simt.bindings import LoopState, Variable
from bankism.explain.simt.memory import LocalArray
from bankism.explain.simt.values import Failure, Mask, Pointer, Scalar, Vector, all_known, forget

#: Loops with fewer iterations run as usual: they are quick, and their report stays plain.
MIN_TRIPS = 32
_CONSTANT = (S.Literal, S.Name, S.Binary, S.Unary, S.Cast, S.SizeOf, S.TypeName, S.Member)


def counted_loop(machine, stmt: S.For, mask: Mask) -> tuple[Variable, int] | None:  # noqa: ANN001
    """(counter, iterations) of a counted ``for`` whose shape allows repetition, else None.
    Called after the init statement ran."""
    condition, update = stmt.condition, stmt.update
    if machine.snapshot is not None or condition is None or update is None or id(stmt) in machine.no_repeat:
        return None
    if not isinstance(condition, S.Binary) or condition.op not in ("<", "<=", "!=", ">", ">="):
        return None
    if not isinstance(condition.left, S.Name) or not _constant(condition.right):
        return None
    name = condition.left.name
    step = _step(update, name)
    if step is None or not _body_allows(stmt.body, name):
        return None
    counter = machine.frame.scopes[-1].get(name)
    if not isinstance(counter, Variable) or not isinstance(counter.value, Scalar):
        return None
    try:
        start = _uniform(counter.value, mask)
        bound = _uniform(machine.eval(condition.right, mask), mask)
        delta = _uniform(machine.eval(step[1], mask), mask) * step[0]
    except (Failure, BankismError):
        return None
    if start is None or bound is None or not delta:
        return None
    trips = _trips(start, bound, delta, condition.op)
    if trips is None or trips < MIN_TRIPS:
        return None
    info = np.iinfo(counter.value.type.dtype) if counter.value.type.kind == "int" else None
    if info is None or not info.min <= start + trips * delta <= info.max:
        return None
    return counter, trips


def _constant(expr: S.Expr) -> bool:
    return all(isinstance(n, _CONSTANT) and not (isinstance(n, S.Unary) and n.op in ("*", "&"))
               for n in S.walk(expr))


def _step(update: S.Expr, name: str) -> tuple[int, S.Expr] | None:
    if isinstance(update, S.IncDec) and isinstance(update.target, S.Name) and update.target.name == name:
        one = S.Literal(update.line, "1", 1, "int")
        return (1 if update.op == "++" else -1), one
    if (isinstance(update, S.Assign) and update.op in ("+=", "-=") and isinstance(update.target, S.Name)
            and update.target.name == name and _constant(update.value)):
        return (1 if update.op == "+=" else -1), update.value
    return None


def _body_allows(body: S.Stmt, name: str) -> bool:
    """No write to the counter, no return, and break/continue only inside nested loops."""
    def walk(node: object, nested: bool) -> bool:
        if isinstance(node, list):
            return all(walk(n, nested) for n in node)
        if not isinstance(node, S.Node):
            return True
        if isinstance(node, S.Return | S.Refused):
            return False
        if isinstance(node, S.Break | S.Continue) and not nested:
            return False
        if (
            isinstance(node, S.Assign | S.IncDec)
            and isinstance(node.target, S.Name)
            and node.target.name == name
        ):
            return False
        if (
            isinstance(node, S.Unary)
            and node.op == "&"
            and isinstance(node.operand, S.Name)
            and (node.operand.name == name)
        ):
            return False
        inner = nested or isinstance(node, S.For | S.While | S.DoWhile)
        for field in type(node).__dataclass_fields__:
            if field in ("line", "text", "col", "file", "body_node", "_body"):
                continue
            value = getattr(node, field, None)
            if isinstance(value, S.Node | list) and not walk(value, inner):
                return False
        return True

    return walk(body, False)


def _uniform(value: object, mask: Mask) -> int | None:
    if not isinstance(value, Scalar) or not value.type.is_integer or not all_known(value.known, mask):
        return None
    data = np.asarray(value.data)
    if data.ndim and not (data[mask.arr] == data[mask.arr][0]).all():
        return None
    return int(data[mask.arr][0] if data.ndim else data)


def _trips(start: int, bound: int, delta: int, op: str) -> int | None:
    """How many times ``for (k = start; k op bound; k += delta)`` runs (None: not a plain count)."""
    if op == "!=":
        if (bound - start) % delta or (bound - start) // delta < 0:
            return None
        return (bound - start) // delta
    if delta > 0 and op == "<":
        return max(0, -(-(bound - start) // delta))
    if delta > 0 and op == "<=":
        return max(0, (bound - start) // delta + 1)
    if delta < 0 and op == ">":
        return max(0, -(-(start - bound) // -delta))
    if delta < 0 and op == ">=":
        return max(0, (start - bound) // -delta + 1)
    return None


# --- state --------------------------------------------------------------------------------------------


def _bindings(machine) -> list[tuple[object, object]]:  # noqa: ANN001
    """Every variable and local array of the running frames, with a copy of its state."""
    out = []
    seen = set()
    for frame in machine.frames:
        for scope in frame.scopes:
            for binding in scope.values():
                if id(binding) in seen:
                    continue
                seen.add(id(binding))
                if isinstance(binding, Variable) and binding.ref is None:
                    out.append((binding, binding.value))
                elif isinstance(binding, LocalArray):
                    out.append((binding, binding.state()))
    return out


def _same(a: object, b: object) -> bool:
    if a is b:
        return True
    if isinstance(a, Scalar) and isinstance(b, Scalar):
        return (
            a.type == b.type
            and np.array_equal(np.asarray(a.known), np.asarray(b.known))
            and np.array_equal(np.asarray(a.data), np.asarray(b.data))
        )
    if isinstance(a, Pointer) and isinstance(b, Pointer):
        return (
            a.region is b.region
            and np.array_equal(np.asarray(a.offset), np.asarray(b.offset))
            and np.array_equal(np.asarray(a.known), np.asarray(b.known))
        )
    if isinstance(a, Vector) and isinstance(b, Vector):
        return all(_same(x, y) for x, y in zip(a.comps, b.comps, strict=True))
    if isinstance(a, tuple) and isinstance(b, tuple):  # LocalArray.state(): arrays and the unit type
        return a[3] == b[3] and all(np.array_equal(x, y) for x, y in zip(a[:3], b[:3], strict=True))
    return False


def _state_of(binding: object) -> object:
    if isinstance(binding, LocalArray):
        return binding.state()
    return binding.value


def _restore(saved: list[tuple[object, object]]) -> None:
    for binding, state in saved:
        if isinstance(binding, LocalArray):
            binding.restore(state)
        else:
            binding.value = state


def _linear(first: object, second: object, third: object, trips: int) -> object | None:
    """The value after ``trips`` iterations of something that changed by the same amount in
    each of the first two (counters, advancing pointers), or None."""
    if isinstance(first, Scalar) and isinstance(second, Scalar) and isinstance(third, Scalar):
        if not (
            first.type.is_integer and all(v.known is True or np.all(v.known) for v in (first, second, third))
        ):
            return None
        a, b, c = (np.asarray(v.data).astype(np.int64) for v in (first, second, third))
        if not np.array_equal(b - a, c - b):
            return None
        data = (a + trips * (b - a)).astype(first.type.dtype)
        return Scalar(first.type, data if data.ndim else data[()])
    if isinstance(first, Pointer) and isinstance(second, Pointer) and isinstance(third, Pointer):
        if not (first.region is second.region is third.region) or not all(
            v.known is True for v in (first, second, third)
        ):
            return None
        a, b, c = (np.asarray(v.offset, np.int64) for v in (first, second, third))
        if not np.array_equal(b - a, c - b):
            return None
        offset = a + trips * (b - a)
        return Pointer(first.type, first.region, offset if offset.ndim else offset[()])
    return None


# --- the driver ---------------------------------------------------------------------------------------


def run_repeating(machine, stmt: S.For, mask: Mask, counter: Variable, trips: int) -> Mask:  # noqa: ANN001
    """Run the counted loop ``stmt`` (its init already ran) for ``trips`` iterations, the
    repeating ones recorded from one probe; see the module docstring."""
    starts = [_bindings(machine)]
    done = 0

    def iteration() -> None:
        state = LoopState(np.zeros(machine.threads, bool), np.zeros(machine.threads, bool))
        machine.loops.append(state)
        try:
            machine.exec(stmt.body, mask)
        finally:
            machine.loops.pop()
        machine.eval(stmt.update, mask)

    for _ in range(2):
        iteration()
        done += 1
        starts.append(_bindings(machine))
    first, second, third = starts
    changed = [
        (binding, old) for (binding, old), (_, new) in zip(second, third, strict=True) if not _same(old, new)
    ]
    probe = _probe(machine, iteration, changed, third)
    if probe is None:
        machine.no_repeat.add(id(stmt))  # the loop's iterations differ: do not probe it again
        for _ in range(trips - done):
            iteration()
        return mask
    records, names = probe
    repeats = trips - done - 1
    for site, start in records:
        for field in ("warps", "addresses", "active"):
            chunk = getattr(site, field)[start:]
            getattr(site, field).extend(chunk * repeats)
        blocks = site.blocks[site.block_start :]
        site.blocks.extend(blocks * repeats)
    by_binding = {id(b): s for b, s in first}
    after_two = {id(b): s for b, s in second}
    for binding, state in third:
        if not any(binding is b for b, _ in changed):
            continue
        final = _linear(by_binding.get(id(binding)), after_two.get(id(binding)), state, trips)
        if final is not None and isinstance(binding, Variable):
            binding.value = final
    machine.notes.append(
        f"{stmt.file or machine.context.filename}:{stmt.line}: the loop's iterations {done + 2} to {trips} "
        f"make "
        f"the shared-memory accesses of iteration {done + 1} (they do not depend on "
        f"{', '.join(names) or 'what changes between iterations'}): simulated once, counted {repeats} more "
        f"time{'s' if repeats != 1 else ''}"
    )
    return mask


def _probe(machine, iteration, changed: list, start: list):  # noqa: ANN001, ANN202
    """Run one iteration with the changed variables unknown; (new records per site, names)
    when it repeats, else None (with everything it did undone)."""
    recorder = machine.recorder
    lengths = {id(site): (len(site.warps), len(site.blocks)) for site in recorder.sites.values()}
    store = machine.store
    owner, count = store.owner.copy(), store._count
    unsure_before = machine.unsure_lanes()
    lanes = np.ones(machine.threads, bool)
    names = []
    for binding, _ in changed:
        names.append(binding.name)
        if isinstance(binding, LocalArray):
            binding.known[...] = False
        elif binding.value is not None:
            binding.value = forget(
                binding.value, lanes, "a value that changes from one iteration to the next"
            )
    entry = _bindings(machine)
    ok = True
    try:
        with np.errstate(all="ignore"):
            iteration()
    except (Failure, BankismError):
        ok = False
    if ok:
        unchanged = {id(b) for b, _ in changed}
        ok = (machine.unsure_lanes() is None) == (unsure_before is None) and all(
            _same(old, _state_of(binding)) for binding, old in entry if id(binding) not in unchanged
        )
    if not ok:
        for site in list(recorder.sites.values()):
            if id(site) not in lengths:
                del recorder.sites[next(k for k, v in recorder.sites.items() if v is site)]
                continue
            warps, blocks = lengths[id(site)]
            for field in ("warps", "addresses", "active"):
                del getattr(site, field)[warps:]
            del site.blocks[blocks:]
        store.owner, store._count = owner, count
        _restore(start)
        return None
    records = []
    for site in recorder.sites.values():
        warps, blocks = lengths.get(id(site), (0, 0))
        if len(site.warps) > warps:
            site.block_start = blocks
            records.append((site, warps))
    return records, names
