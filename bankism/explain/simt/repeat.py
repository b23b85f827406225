"""Loops whose iterations repeat the same shared-memory accesses, simulated once.

A counted loop (``for (int k = A; k < B; k += C)`` with A, B, C uniform and known, the
counter not written in the body, no ``return`` and no ``break``/``continue`` of its own)
runs its first two iterations as usual. The third runs as a probe: every variable whose
value changed from the start of the first iteration to the start of the second (the
counter, pointers that advance, accumulators), and every byte of shared memory whose content
changed, is made unknown. If the probe finishes without needing any of them (an address, a
branch or a trip count that needs an unknown value is refused, as always) and leaves every
other variable and every other byte of shared memory as it found it, then every later
iteration starts in the same state as far as shared memory can tell, and makes exactly the
probe's accesses: they are recorded once per remaining iteration without being interpreted.
When that fails, the same is tried with a period of two iterations (a double buffer whose
index alternates): what is the same two iterations apart is kept, the probe runs two
iterations and must come back to where it started, and the pair is recorded for every later
pair (one iteration more runs first when the count left is odd). Variables that changed by
the same amount in each iteration (the counter, advancing pointers) get their exact final
values; the others stay unknown. If both probes fail, everything they did is undone and the
loop runs on as usual. The report says which loops were counted this way."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from bankism.errors import BankismError
from bankism.explain.frontend import syntax as S
from bankism.explain.simt import ctype as C
from bankism.explain.simt.bindings import LoopState, Variable
from bankism.explain.simt.machine import SimtMachine
from bankism.explain.simt.memory import LocalArray
from bankism.explain.simt.values import Failure, Mask, Pointer, Scalar, Vector, all_known, forget
from bankism.explain.simt.vectorize import kept_for_size

#: Loops with fewer iterations run as usual: they are quick, and their report stays plain.
MIN_TRIPS = 32
_CONSTANT = (S.Literal, S.Name, S.Binary, S.Unary, S.Cast, S.SizeOf, S.TypeName, S.Member)


def counted_loop(machine: SimtMachine, stmt: S.For, mask: Mask) -> tuple[Variable, int] | None:
    """(counter, iterations) of a counted ``for`` whose shape allows repetition, else None.
    Called after the init statement ran."""
    if machine.snapshot is not None or stmt in machine.no_repeat:
        return None
    shape = loop_trips(machine, stmt, mask)
    if shape is None or shape[1] < MIN_TRIPS or not _body_allows(stmt.body, shape[0].name):
        return None
    return shape


def loop_trips(machine: SimtMachine, stmt: S.For, mask: Mask) -> tuple[Variable, int] | None:
    """(counter, iterations) of a ``for`` whose counter runs from a uniform start by a uniform step to a
    constant bound, else None. Called after the init statement ran."""
    condition, update = stmt.condition, stmt.update
    if condition is None or update is None:
        return None
    if not isinstance(condition, S.Binary) or condition.op not in ("<", "<=", "!=", ">", ">="):
        return None
    if not isinstance(condition.left, S.Name) or not _constant(condition.right):
        return None
    name = condition.left.name
    step = _step(update, name)
    if step is None:
        return None
    counter = next((scope[name] for scope in reversed(machine.frame.scopes) if name in scope), None)
    if not isinstance(counter, Variable) or not isinstance(counter.value, Scalar):
        return None
    try:
        start = _uniform(counter.value, mask)
        bound = _uniform(machine.eval(condition.right, mask), mask)
        delta = _uniform(machine.eval(step[1], mask), mask)
    except (Failure, BankismError):
        return None
    if start is None or bound is None or not delta:  # a step not known (a parameter not given) is no count
        return None
    delta *= step[0]
    trips = _trips(start, bound, delta, condition.op)
    if trips is None:
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


def _bindings(machine: SimtMachine) -> list[tuple[object, object]]:
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
        return a.type == b.type and _same_known(a.known, b.known, a.data, b.data)
    if isinstance(a, Pointer) and isinstance(b, Pointer):
        return (
            a.region is b.region
            and np.array_equal(np.asarray(a.offset), np.asarray(b.offset))
            and np.array_equal(np.asarray(a.known), np.asarray(b.known))
        )
    if isinstance(a, Vector) and isinstance(b, Vector):
        return all(_same(x, y) for x, y in zip(a.comps, b.comps, strict=True))
    if isinstance(a, tuple) and isinstance(b, tuple):  # LocalArray.state(): data, known, src, unit
        return a[3] == b[3] and a[0].shape == b[0].shape and _same_known(a[1], b[1], a[0], b[0])
    return False


def _same_known(known_a: object, known_b: object, data_a: object, data_b: object) -> bool:
    """Whether two values are known in the same threads and equal there (what a value holds
    where it is not known is never read)."""
    known_a, known_b = np.asarray(known_a), np.asarray(known_b)
    if not np.array_equal(known_a, known_b):
        return False
    data_a, data_b = np.asarray(data_a), np.asarray(data_b)
    if known_a.all():
        return np.array_equal(data_a, data_b)
    if data_a.shape != data_b.shape and data_a.ndim and data_b.ndim:
        return False
    same = np.broadcast_to(data_a == data_b, np.broadcast_shapes(data_a.shape, data_b.shape, known_a.shape))
    return bool(np.all(same | ~known_a))


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
            v.known is True or np.all(v.known) for v in (first, second, third)
        ):
            return None
        a, b, c = (np.asarray(v.offset, np.int64) for v in (first, second, third))
        if not np.array_equal(b - a, c - b):
            return None
        offset = a + trips * (b - a)
        return Pointer(first.type, first.region, offset if offset.ndim else offset[()])
    return None


def sized_body(machine: SimtMachine, stmt: S.For, trips: int, body: Callable[[Mask], Mask]
               ) -> Callable[[Mask], Mask]:
    """``body`` of the loop ``stmt``, each iteration its own straight-line stretch when nvcc keeps the
    loop: after ``#pragma unroll 1``, or from the second iteration on when the first shows the loop too
    large to unroll (vectorize.kept_for_size)."""
    kept: list[bool | None] = [None if stmt.unrolled else True]

    def run(mask: Mask) -> Mask:
        if kept[0]:
            machine.recorder.boundary()
        executed = machine.executed
        out = body(mask)
        if kept[0] is None:
            kept[0] = kept_for_size(stmt, trips, machine.executed - executed)
        return out
    return run


# --- the driver ---------------------------------------------------------------------------------------


def run_repeating(machine: SimtMachine, stmt: S.For, mask: Mask, counter: Variable, trips: int) -> Mask:
    """Run the counted loop ``stmt`` (its init already ran) for ``trips`` iterations, the
    repeating ones recorded from a probe of one iteration, else of two (a double buffer
    whose index alternates); see the module docstring."""
    starts = [_bindings(machine)]
    contents = [_content(machine.store)]
    body = sized_body(machine, stmt, trips, lambda m: machine.exec(stmt.body, m))

    def iteration() -> None:
        state = LoopState(np.zeros(machine.threads, bool), np.zeros(machine.threads, bool))
        machine.loops.append(state)
        try:
            body(mask)
        finally:
            machine.loops.pop()
        machine.eval(stmt.update, mask)

    for _ in range(2):
        iteration()
        starts.append(_bindings(machine))
        contents.append(_content(machine.store))
    done = 2
    for period in (1, 2):
        if period == 2 and (trips - done) % 2:  # an even number of iterations after the first ones
            iteration()
            done += 1
            starts.append(_bindings(machine))
            contents.append(_content(machine.store))
        before, now = starts[-1 - period], starts[-1]
        changed = [(b, old) for (b, old), (_, new) in zip(before, now, strict=True) if not _same(old, new)]
        moved = _differ(contents[-1 - period], contents[-1])
        if moved is None or trips - done < 2 * period:
            break
        executed = machine.executed
        machine.store.held += 1  # the store's record ids the probe may restore must not be renumbered
        try:
            probe = _probe(machine, iteration, period, changed, moved, now)
        finally:
            machine.store.held -= 1
        if probe is not None:
            _replicate(machine, stmt, probe, changed, starts, trips, done, period)
            # the copied iterations count as run in the loop's size (vectorize.kept_for_size)
            machine.executed += (machine.executed - executed) * ((trips - done - period) // period)
            return mask
    machine.no_repeat.add(stmt)  # the loop's iterations differ: do not probe it again
    for _ in range(trips - done):
        iteration()
    return mask


def _replicate(machine: SimtMachine, stmt: S.For, probe: tuple, changed: list, starts: list, trips: int,
               done: int, period: int) -> None:
    """Record the probe's accesses for the iterations after it, and give counters and
    advancing pointers their final values."""
    (records, calls, stretches), names = probe
    repeats = (trips - done - period) // period
    copies = machine.recorder.copies
    if copies is not None:  # counted against the copies limit before they take memory
        copies.spend(repeats * sum(len(site.blocks) - site.block_start for site, _ in records))
    for site, start in records:
        for field in ("warps", "addresses", "active"):
            chunk = getattr(site, field)[start:]
            getattr(site, field).extend(chunk * repeats)
        seq, epoch = site.seq[start:], site.epoch[start:]
        for repeat in range(1, repeats + 1):  # the copies follow the probe in program order
            site.seq.extend(s + repeat * calls for s in seq)
            site.epoch.extend(e + repeat * stretches for e in epoch)
        blocks = site.blocks[site.block_start :]
        site.blocks.extend(blocks * repeats)
    machine.recorder.clock += repeats * calls
    machine.recorder.epoch += repeats * stretches
    first, second, third = ({id(b): v for b, v in state} for state in starts[-3:])
    for binding, state in starts[-1]:
        if not any(binding is b for b, _ in changed) or not isinstance(binding, Variable):
            continue
        final = _linear(first.get(id(binding)), second.get(id(binding)), state, trips - done + 2)
        if final is not None:
            binding.value = final
    what = (f"iteration {done + 1}" if period == 1 else
            f"iterations {done + 1} and {done + 2} in turn (a period of two: a double buffer)")
    machine.notes.append(
        f"{stmt.file or machine.context.filename}:{stmt.line}: the loop's iterations {done + period + 1} to "
        f"{trips} make the shared-memory accesses of {what} (they do not depend on "
        f"{', '.join(names) or 'what changes between iterations'}): simulated once, counted "
        f"{repeats * period} more time{'s' if repeats * period != 1 else ''}"
    )


def _content(store) -> np.ndarray:  # noqa: ANN001
    """What a later read of each byte of the shared window can learn: (known, bits, start,
    width, type) of the store that wrote it where its value is known, zeros elsewhere."""
    safe = np.maximum(store.owner, 0)
    known = (store.owner >= 0) & store.known[safe]
    fields = (store.bits[safe], store.start[safe], store.width[safe], store.type_id[safe])
    return np.stack([known.astype(np.int64)] + [np.where(known, f, 0) for f in fields])


def _differ(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """Bytes whose content differs (None when the window changed size: no shortcut)."""
    if a.shape != b.shape:
        return None
    return np.flatnonzero((a != b).any(axis=0))


def _probe(machine: SimtMachine, iteration: Callable[[], object], period: int, changed: list,
           moved: np.ndarray, start: list) -> tuple[tuple[list, int, int], list[str]] | None:
    """Run ``period`` iterations with the changed variables and shared bytes unknown; (new
    records per site, names) when the rest of the state comes back as it was, else None
    (with everything it did undone)."""
    recorder = machine.recorder
    lengths = {id(site): (len(site.warps), len(site.blocks)) for site in recorder.sites.values()}
    clock, epoch = recorder.clock, recorder.epoch
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
    if moved.size:
        names.append("shared memory the loop writes")
        store.store(moved, C.UCHAR, np.zeros(moved.size, np.uint8), np.zeros(moved.size, bool),
                    np.full(moved.size, -1, np.int64))
    entry = _bindings(machine)
    entry_content = _content(store)
    ok = True
    recorder.probing = True
    try:
        with np.errstate(all="ignore"):
            for _ in range(period):
                iteration()
    except (Failure, BankismError):
        ok = False
    finally:
        recorder.probing = False
    if ok:
        unchanged = {id(b) for b, _ in changed}
        content = _content(store)
        keep = np.ones(content.shape[1], bool)
        keep[moved] = False
        ok = (
            (machine.unsure_lanes() is None) == (unsure_before is None)
            and content.shape == entry_content.shape
            and bool((content[:, keep] == entry_content[:, keep]).all())
            and all(_same(old, _state_of(binding)) for binding, old in entry if id(binding) not in unchanged)
        )
    if not ok:
        for site in list(recorder.sites.values()):
            if id(site) not in lengths:
                del recorder.sites[next(k for k, v in recorder.sites.items() if v is site)]
                continue
            warps, blocks = lengths[id(site)]
            for field in ("warps", "addresses", "active", "seq", "epoch"):
                del getattr(site, field)[warps:]
            del site.blocks[blocks:]
        recorder.clock, recorder.epoch = clock, epoch
        store.owner, store._count = owner, count
        _restore(start)
        return None
    records = []
    for site in recorder.sites.values():
        warps, blocks = lengths.get(id(site), (0, 0))
        if len(site.warps) > warps:
            site.block_start = blocks
            records.append((site, warps))
    return (records, recorder.clock - clock, recorder.epoch - epoch), names
