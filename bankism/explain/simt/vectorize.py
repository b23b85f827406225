"""nvcc's merging of neighbouring scalar shared-memory accesses into one wider instruction.

LLVM's load/store vectorizer, which nvcc runs after unrolling, turns accesses of one warp to consecutive
addresses of one array, in one straight-line stretch of code, into LDS.64/LDS.128 (STS.64/STS.128)
where the first address is aligned to the wider width: `acc += As[ty][k] * Bs[k][tx]` over an unrolled
k becomes one LDS.128 of As per four k, `r[i] = s[c + i]` (c a multiple of 4) one per four i.

What was checked (sm_90 SASS of the 518 public kernels the explain scouts accept, compiled with
nvcc 13.0 outside the repository, line by line against explain's widths): nvcc merged on 166 lines of
111 kernels, always from an aligned start of consecutive elements; it did not merge across a barrier or
a branch around memory accesses, loads across a store to the same array (read-modify-write), or stores
interleaved with stores to another array. Limits: the alignment is taken from the addresses of the run
(nvcc needs to prove it: a row stride that is a kernel parameter or blockDim keeps scalar accesses, so
such a stride is not merged here either, see ``runtime_stride``); separate ``__shared__`` scalars that
nvcc places side by side are not merged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

import numpy as np

from bankism.explain.frontend import syntax as S
from bankism.explain.simt.ctype import CType
from bankism.explain.simt.recording import Recorder, SourceSite

#: The widest shared-memory access (LDS.128 / STS.128), bytes.
WIDEST = 16
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
        """Whether this access reads or writes the bytes right after ``previous``'s, in every running lane
        of the same warps, in the same stretch of code, at a distance nvcc sees in the source: the same
        expression (an unrolled loop) or one that adds a constant (``s[2 * t]``, ``s[2 * t + 1]``)."""
        return (self.site.op == previous.site.op and self.site.region is previous.site.region
                and (self.site is previous.site
                     or _constant_apart(previous.site.expression, self.site.expression))
                and self.width == previous.width and self.epoch == previous.epoch
                and self.block == previous.block and np.array_equal(self.warps, previous.warps)
                and np.array_equal(self.active, previous.active)
                and bool((self.addresses[self.active] == previous.addresses[self.active] + self.width).all()))


def merge_neighbours(recorder: Recorder, runtime_stride: set[int] | None = None
                     ) -> list[SourceSite]:
    """Rewrite ``recorder``'s sites as nvcc merges their accesses; returns the sites of merged accesses.
    ``runtime_stride``: ids of sites whose address nvcc cannot prove aligned."""
    calls = sorted(_calls(recorder.sites.values()), key=lambda call: call.seq)
    if not calls:
        return []
    runtime_stride = runtime_stride or set()
    out: list[tuple[SourceSite, Call]] = []
    open_chains: dict[tuple[int, str], list[Call]] = {}

    def flush(key: tuple[int, str]) -> None:
        out.extend(_split(open_chains.pop(key)))

    for call in calls:
        site = call.site
        region = id(site.region)
        for key in [k for k, chain in open_chains.items() if chain[-1].epoch != call.epoch
                    or chain[-1].block != call.block]:
            flush(key)
        mergeable = (site.op in MERGED_OPS and site.width < WIDEST and site.type.kind != "vec"
                     and site.merged_from is None and id(site) not in runtime_stride)
        if site.op == "load":  # a load ends a store chain of its array: the store must stay before it
            breaks = [(region, "store")]
        elif site.op == "store":  # a store ends loads of its array and stores to other arrays
            breaks = [(region, "load")] + [k for k in open_chains if k[1] == "store" and k[0] != region]
        else:
            breaks = [k for k in open_chains if k[0] == region]
        for key in breaks:
            if key in open_chains:
                flush(key)
        key = (region, site.op)
        chain = open_chains.get(key)
        if mergeable and chain is not None and call.follows(chain[-1]):
            chain.append(call)
            continue
        if chain is not None:
            flush(key)
        if mergeable:
            open_chains[key] = [call]
        else:
            out.append((site, call))
    for key in list(open_chains):
        flush(key)
    return _rebuild(recorder, out)


def _calls(sites: Iterable[SourceSite]) -> Iterable[Call]:
    for site in sites:
        start = 0
        for index, warps in enumerate(site.warps):
            if len(warps) == 0:  # a call no warp issued: nothing to merge or keep
                continue
            yield Call(site, site.seq[index], site.epoch[index], site.blocks[start], warps,
                       site.addresses[index], site.active[index])
            start += len(warps)


def _split(chain: list[Call]) -> Iterable[tuple[SourceSite | tuple[SourceSite, int], Call]]:
    """The chain's accesses as nvcc issues them: from its start, the widest power-of-two group of
    elements (at most 16 bytes) whose first address every running lane has aligned, else one alone."""
    i = 0
    while i < len(chain):
        first = chain[i]
        width = first.width
        count = 1
        for size in (WIDEST, 8):
            n = size // width
            if n >= 2 and i + n <= len(chain) and bool((first.addresses[first.active] % size == 0).all()):
                count = n
                break
        if count == 1:
            yield first.site, first
        else:
            yield (chain[i + count - 1].site, width * count), first
        i += count


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


def _constant_apart(first: str, second: str) -> bool:
    """Whether two access expressions differ only by a constant index (``d[0]``, ``d[1]``) or a constant
    added to the last index (``s[2 * t]``, ``s[2 * t + 1]``): addresses whose distance nvcc knows."""
    def canonical(text: str) -> str:
        return _LITERAL_INDEX.sub("[#]", _LAST_INDEX_PLUS.sub("]", "".join(text.split())))
    return canonical(first) == canonical(second)


_MEMBER = re.compile(r"(\.|->)\s*[A-Za-z_]\w*")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


def runtime_stride_sites(sites: Iterable[SourceSite], uniform: set[str]) -> set[int]:
    """Ids of the sites whose index names a value nvcc only knows at run time and cannot prove aligned."""
    return {id(site) for site in sites
            if set(_IDENTIFIER.findall(_MEMBER.sub("", site.expression))) & uniform}


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
