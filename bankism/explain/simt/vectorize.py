"""nvcc's merging of neighbouring scalar shared-memory accesses into one wider instruction.

LLVM's load/store vectorizer, which nvcc runs after unrolling, turns accesses of one warp to consecutive
addresses of one array, in one straight-line stretch of code, into LDS.64/LDS.128 (STS.64/STS.128)
where the first address is aligned to the wider width: `acc += As[ty][k] * Bs[k][tx]` over an unrolled
k becomes one LDS.128 of As per four k, `r[i] = s[c + i]` (c a multiple of 4) one per four i.

What was checked (sm_90 SASS of the 518 public kernels the explain scouts accept, compiled with
nvcc 13.0 outside the repository, line by line against explain's widths): nvcc merged on 166 lines of
111 kernels, always from an aligned start of consecutive elements; it did not merge across a barrier or
a branch around memory accesses, loads across a store to the same array (read-modify-write), or stores
interleaved with stores to another array; it merged in any order within a stretch, 2-byte elements up
to 8 bytes, and not across the iterations of a loop it kept for its size (``kept_for_size``). Limits: the
alignment is taken from the addresses of the run, capped where the index uses a run-time value by what
nvcc can prove (a row stride that is a kernel parameter or blockDim keeps scalar accesses, ``tid % 16 * 8``
merges: ``runtime_stride_sites``, ``alignment.py``); separate ``__shared__`` scalars that nvcc places side
by side are not merged, and a loop nvcc unrolls by parts counts as kept. docs/explain.md has the figures.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

import numpy as np

from bankism.explain.frontend import syntax as S
from bankism.explain.simt.alignment import Definitions, provable_alignment
from bankism.explain.simt.ctype import CType
from bankism.explain.simt.recording import Recorder, SourceSite

#: The widest shared-memory access (LDS.128 / STS.128), bytes.
WIDEST = 16
#: The widest merged access of 2-byte elements (LDS.64 / STS.64).
HALFWORD_WIDEST = 8
MERGED_OPS = ("load", "store")


@dataclass(slots=True)
class Call:
    """One recorded call: every warp of one block running one access once."""

    site: SourceSite
    seq: int
    epoch: int
    block: tuple[int, int, int]
    warps: np.ndarray
    addresses: np.ndarray
    active: np.ndarray

    @property
    def width(self) -> int:
        return self.site.width

    def follows(self, previous: Call) -> bool:
        """Whether this access reads or writes the bytes right after ``previous``'s in every running lane
        (the two are of one group: same warps, lanes, stretch and source expression up to a constant)."""
        return bool((self.addresses[self.active] == previous.addresses[self.active] + self.width).all())


def merge_neighbours(recorder: Recorder, runtime_stride: dict[int, int] | None = None
                     ) -> list[SourceSite]:
    """Rewrite ``recorder``'s sites as nvcc merges their accesses; returns the sites of merged accesses.
    ``runtime_stride``: site id -> the bytes nvcc can prove its address aligned to, where that is less than
    the widest merge (``runtime_stride_sites``): no merge wider than that.

    As LLVM's vectorizer does, accesses of one stretch are merged whatever their order in it (``As[(ty +
    j) * BK + i]`` with ``i`` the outer loop merges over ``i``), unless an access in between must stay
    between them: a store to the array for loads, a load of it or a store to another array for stores."""
    calls = sorted(_calls(recorder.sites.values()), key=lambda call: call.seq)
    if not calls:
        return []
    runtime_stride = runtime_stride or {}
    canonical = {id(site): _canonical(site.expression, _vector_of(site) is not None)
                 for site in recorder.sites.values()}
    out: list[tuple[SourceSite | tuple[SourceSite, int], Call]] = []
    groups: dict[tuple, list[Call]] = {}
    fences: dict[tuple[int, str], int] = {}  # (array, op): how many accesses so far must stay apart
    store_switches = 0  # stores that went to another array than the store before them
    last_store: int | None = None
    for call in calls:
        site = call.site
        region = _merge_region(site)
        if site.op == "load":  # a load stays after a store of its array before it
            fences[(region, "store")] = fences.get((region, "store"), 0) + 1
        elif site.op == "store":  # a store stays between the loads of its array around it
            fences[(region, "load")] = fences.get((region, "load"), 0) + 1
            if last_store is not None and last_store != region:
                store_switches += 1
            last_store = region
        else:
            for op in MERGED_OPS:
                fences[(region, op)] = fences.get((region, op), 0) + 1
        mergeable = (site.op in MERGED_OPS and site.width < _widest(site) and site.type.kind != "vec"
                     and site.merged_from is None and site.unknown is None
                     and runtime_stride.get(id(site), WIDEST) >= 2 * site.width and bool(call.active.any()))
        if not mergeable:
            out.append((site, call))
            continue
        key = (call.epoch, call.block, region, site.op, site.width, fences.get((region, site.op), 0),
               store_switches if site.op == "store" else 0,
               "" if region == SCALARS else canonical[id(site)],
               call.warps.tobytes(), call.active.tobytes())
        groups.setdefault(key, []).append(call)
    for group in groups.values():
        for chain in _chains(group):
            out.extend(_split(chain, runtime_stride.get(id(chain[0].site), WIDEST)))
    return _rebuild(recorder, out)


#: The region every ``__shared__`` scalar merges in: nvcc places a block's scalars side by side and merges
#: neighbours (``final_m``, ``final_d`` of a public softmax: one LDS.64 on the H100, 2026-11-25).
SCALARS = -1


def _merge_region(site: SourceSite) -> int:
    """The array whose accesses ``site``'s may merge with: its own, or all ``__shared__`` scalars."""
    region = site.region
    scalar = getattr(region, "type", None) is not None and region.type.kind in ("int", "float")
    return SCALARS if scalar else id(region)


def _widest(site: SourceSite) -> int:
    """The widest access nvcc merges ``site``'s elements into: 16 bytes, 8 for 2-byte elements (nvcc 13.0
    gives ``short``/``half`` runs LDS.64, never LDS.128: 23 of 24 public lines, our own kernel)."""
    return HALFWORD_WIDEST if site.width == 2 else WIDEST


def _chains(group: list[Call]) -> list[list[Call]]:
    """The runs of consecutive addresses in ``group`` (calls of one source expression in one stretch),
    each in address order; an address met twice starts a run of its own."""
    chains: list[list[Call]] = []
    open_at: dict[bytes, list[list[Call]]] = {}  # the next address a run takes -> runs waiting for it
    for call in sorted(group, key=lambda c: (int(c.addresses[c.active][0]), c.seq)):
        here = call.addresses[call.active]
        waiting = open_at.get(here.tobytes())
        index = next((n for n, c in enumerate(waiting or []) if call.follows(c[-1])), None)
        if index is None:
            chain = []
            chains.append(chain)
        else:
            chain = waiting.pop(index)
        chain.append(call)
        open_at.setdefault((here + call.width).tobytes(), []).append(chain)
    return chains


def _calls(sites: Iterable[SourceSite]) -> Iterable[Call]:
    for site in sites:
        for index, (warps, block) in enumerate(zip(site.warps, site.call_blocks(), strict=True)):
            if len(warps) == 0:  # a call no warp issued: nothing to merge or keep
                continue
            yield Call(site, site.seq[index], site.epoch[index], block, warps,
                       site.addresses[index], site.active[index])


def _split(chain: list[Call], proven: int = WIDEST
           ) -> Iterable[tuple[SourceSite | tuple[SourceSite, int], Call]]:
    """The chain's accesses as nvcc issues them: from its lowest address, the widest power-of-two group of
    elements (at most 16 bytes, at most ``proven``: the alignment nvcc can prove) whose first address every
    running lane has aligned, else one alone (three components of a float4: the whole vector); a group is
    reported where ``_reported`` says."""
    i = 0
    while i < len(chain):
        first = chain[i]
        width = first.width
        # LLVM widens a 12-byte load of an aligned float4 to LDS.128
        if proven >= WIDEST and _three_of_four(chain[i:], width):
            yield (_reported(chain[i:i + 3]).site, 4 * width), first
            i += 3
            continue
        count = 1
        for size in (_widest(first.site), 8):
            if size > proven:
                continue
            n = size // width
            if n >= 2 and i + n <= len(chain) and bool((first.addresses[first.active] % size == 0).all()):
                count = n
                break
        if count == 1:
            yield first.site, first
        else:
            yield (_reported(chain[i:i + count]).site, width * count), first
        i += count


def _reported(group: list[Call]) -> Call:
    """The access whose site a merged group is reported at: the last in program order, except for loads of
    a vector's components, which nvcc issues at the first (vector_components.cu: the LDS.128 of ``.x``,
    ``.y``, ``.z`` read on three lines is on the first)."""
    if group[0].site.op == "load" and _vector_of(group[0].site) is not None:
        return min(group, key=lambda call: call.seq)
    return max(group, key=lambda call: call.seq)


def _three_of_four(rest: list[Call], width: int) -> bool:
    """Whether ``rest`` starts with loads of exactly the first three components of one 16-byte vector
    (``.x``, ``.y``, ``.z`` of a ``float4``): nvcc loads the whole vector (LDS.128; our kernel
    tests/data/explain/vector/vector_components.cu, whose SASS its header quotes)."""
    first = rest[0]
    if (first.site.op != "load" or _vector_of(first.site) != WIDEST or width * 4 != WIDEST
            or len(rest) < 3 or (len(rest) > 3 and rest[3].follows(rest[2]))):
        return False
    return bool((first.addresses[first.active] % WIDEST == 0).all())


def _rebuild(recorder: Recorder, out: list[tuple[SourceSite | tuple[SourceSite, int], Call]]
             ) -> list[SourceSite]:
    """Replace the recorder's sites by the calls as issued, in program order (merged ones at the site of
    the group's last access, with the group's width)."""
    if not any(isinstance(target, tuple) for target, _ in out):
        return []
    merged: dict[tuple[int, int], SourceSite] = {}
    sites: dict[tuple, SourceSite] = {}
    keys = {id(site): key for key, site in recorder.sites.items()}
    for target, call in sorted(out, key=lambda item: item[1].seq):
        if isinstance(target, tuple):
            site, width = target
            fresh = merged.get((id(site), width))
            if fresh is None:
                fresh = merged[(id(site), width)] = _merged_site(site, width)
            key = keys[id(site)] + (width,)
        else:
            site, fresh, key = target, None, keys[id(target)]
        holder = sites.get(key)
        if holder is None:
            holder = sites[key] = fresh or _emptied(site)
        holder.blocks.extend([call.block] * len(call.warps))
        holder.warps.append(call.warps)
        holder.addresses.append(call.addresses)
        holder.active.append(call.active)
        holder.seq.append(call.seq)
        holder.epoch.append(call.epoch)
    recorder.sites = sites
    return [site for site in sites.values() if site.merged_from is not None]


def _merged_site(site: SourceSite, width: int) -> SourceSite:
    element = site.type
    vector = CType(f"{width // element.size} x {element.name}", "vec", width, width, None, element.signed, 0,
                   element, width // element.size)
    return _emptied(site, width=width, type=vector, merged_from=site.width)


def _emptied(site: SourceSite, **changes: object) -> SourceSite:
    """A copy of ``site`` (with ``changes``) that holds no recorded call yet."""
    return replace(site, blocks=[], warps=[], addresses=[], active=[], seq=[], epoch=[], **changes)


_LAST_INDEX_PLUS = re.compile(r"\+\d+[uUlL]*\]$")
_LITERAL_INDEX = re.compile(r"\[\d+[uUlL]*\]")


def _canonical(expression: str, component: bool = False) -> str:
    """``expression`` with its constant indices (``d[0]``, ``d[1]``) and a constant added to its last index
    (``s[2 * t]``, ``s[2 * t + 1]``) left out, and with ``component`` its vector component (``sp[j].x``,
    ``sp[j].y``): accesses whose canonical forms are equal are a distance apart that nvcc knows."""
    text = "".join(expression.split())
    if component:
        text = _COMPONENT.sub("", text)
    return _LITERAL_INDEX.sub("[#]", _LAST_INDEX_PLUS.sub("]", text))


#: A vector component at the end of an access expression (``sp[j].x``).
_COMPONENT = re.compile(r"\.[xyzw]$")


def _vector_of(site: SourceSite) -> int | None:
    """The size of the vector one of whose components ``site`` accesses (``sp[j].x`` of a ``float4``
    array: 16), else None."""
    element = getattr(site.region, "type", None)
    while element is not None and element.kind == "array":
        element = element.elem
    if element is None or element.kind != "vec" or not _COMPONENT.search("".join(site.expression.split())):
        return None
    return element.size


_MEMBER = re.compile(r"(\.|->)\s*[A-Za-z_]\w*")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


def runtime_stride_sites(sites: Iterable[SourceSite], uniform: set[str],
                         found: dict[str, Definitions] | None = None, constants: dict[str, int] | None = None,
                         kernel: str = "") -> dict[int, int]:
    """The sites whose index names a value nvcc only knows at run time and cannot prove aligned to the widest
    access it would merge them into (``alignment.provable_alignment``, given the definitions of the function
    the access is in): site id -> the bytes it is provably aligned to (0: nothing proven)."""
    capped = {}
    for site in sites:  # the accessed variable itself is no index (`m = out[0]` sets `m`)
        if not (set(_IDENTIFIER.findall(_MEMBER.sub("", site.expression))) - {site.array}) & uniform:
            continue
        aligned = None
        array_type = getattr(site.region, "type", None)
        mine = (found or {}).get(site.stack[0][0] if site.stack else kernel)
        if mine is not None and site.node is not None and array_type is not None:
            aligned = provable_alignment(site.node, array_type, uniform, mine, constants or {})
        if aligned is None or aligned < _widest(site):
            capped[id(site)] = aligned or 0
    return capped


def runtime_uniform_names(functions: Iterable[tuple[S.Function, S.Block]], kernel: S.Function) -> set[str]:
    """Names whose value comes from the launch (``blockDim``, ``gridDim``) or the kernel's arguments, in any
    function of the file (by name: a conservative over-approximation across scopes)."""
    tainted = {"blockDim", "gridDim"} | {param.name for param in kernel.params}
    depends: dict[str, set[str]] = {}
    params = {function.name: [param.name for param in function.params] for function, _ in functions}

    def names(expr: object) -> set[str]:
        return {node.name for node in S.walk(expr) if isinstance(node, S.Name)}

    for _function, body in functions:
        for node in S.walk(body):
            if isinstance(node, S.Declarator) and node.init is not None:
                depends.setdefault(node.name, set()).update(names(node.init))
            elif isinstance(node, S.Assign) and isinstance(node.target, S.Name):
                depends.setdefault(node.target.name, set()).update(names(node.value))
            elif isinstance(node, S.Call) and node.function in params:
                for name, arg in zip(params[node.function], node.args, strict=False):
                    depends.setdefault(name, set()).update(names(arg))
    changed = True
    while changed:
        changed = False
        for name, sources in depends.items():
            if name not in tainted and sources & tainted:
                tainted.add(name)
                changed = True
    return tainted


#: A loop without ``#pragma unroll`` is unrolled by nvcc 13.0 only while its iterations run at most about
#: this many simple statements in all, its inner loops' initialisations included (our GEMM-shaped kernels
#: compiled -O3 -arch=sm_90: 8 x 31 = 248 and 16 x 9 unrolled; 32 x 9 = 288, 4 x 91, 8 x 55 and 16 x 31
#: kept; tests/data/explain/vector/unroll_size.cu). The midpoint.
UNROLL_LIMIT = 268


def kept_for_size(loop: S.For, trips: int, statements: int) -> bool:
    """Whether nvcc keeps ``loop`` (no access then merges across its iterations): it has no ``#pragma
    unroll`` and ``trips`` iterations of ``statements`` simple statements each pass ``UNROLL_LIMIT``.
    nvcc may still unroll such a loop by parts (2 to 8 iterations); that is not modelled."""
    return not loop.forced and trips * statements > UNROLL_LIMIT


def merge_notes(merged: list[SourceSite]) -> list[str]:
    """One assumption line per site of merged accesses."""
    return [f"{site.file}:{site.line}: {site.op}s of {site.expression} ({site.merged_from}-byte "
            f"{site.type.elem}) to consecutive aligned addresses counted as the {site.width}-byte "
            f"{'LDS' if site.op == 'load' else 'STS'}.{8 * site.width} nvcc merges them into"
            for site in merged]


def touches_memory(stmt: S.If) -> bool:
    """Whether an ``if``'s branches access memory or call something (nvcc keeps them as branches, which
    end a straight-line stretch); a branch of plain arithmetic becomes a select and ends nothing."""
    branches = [stmt.then] + ([stmt.otherwise] if stmt.otherwise is not None else [])
    return any(
        isinstance(node, S.Subscript | S.Call | S.MethodCall)
        or (isinstance(node, S.Unary) and node.op == "*") or (isinstance(node, S.Member) and node.arrow)
        for node in S.walk(branches))
