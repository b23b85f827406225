"""Loads nvcc does not issue: a shared load of what the same lanes loaded or stored earlier in a stretch.

Within one straight-line stretch (no barrier, fence or call between, vectorize.py's ``epoch``) and with
no other store or atomic to the array between, a load of the same addresses gives the value loaded or
stored before, and nvcc keeps it in a register (LLVM's GVN, loop-invariant code motion, store-to-load
forwarding): ``out[i] = (x - s_max) / s_sum`` in a loop reads ``s_max`` and ``s_sum`` once, not per
iteration. Measured on a public online softmax (H100 trace, device run 2026-11-25, docs/explain.md):
10,240 shared loads, where counting every read gave 67,584. Not applied when the program says
``volatile`` anywhere outside ``asm``: explain does not track which pointer is volatile, and a volatile
load is issued every time.
"""

from __future__ import annotations

import re

import numpy as np

from bankism.explain.simt.recording import Recorder, SourceSite

_VOLATILE = re.compile(r"(?<![\w)])volatile\b")
_ASM_VOLATILE = re.compile(r"\b(?:asm|__asm__|__asm)\s+(?:__)?volatile")


def says_volatile(source: str) -> bool:
    """Whether ``source`` declares something ``volatile`` (``asm volatile`` aside)."""
    return bool(_VOLATILE.search(_ASM_VOLATILE.sub("asm", source)))


def drop_reloads(recorder: Recorder) -> list[SourceSite]:
    """Remove from ``recorder`` every load call that an earlier load or store of the stretch already made (the
    same warps, lanes among those that accessed, the same addresses and width, no other store or atomic to
    the array between);
    returns the sites that lost calls (a site that lost every call is removed)."""
    calls = []
    blocks: dict[int, list[tuple[int, int, int]]] = {}
    for site in recorder.sites.values():
        blocks[id(site)] = site.call_blocks()
        for index in range(len(site.warps)):
            calls.append((site.seq[index], site, index))
    calls.sort(key=lambda item: item[0])
    writes: dict[int, int] = {}  # array -> stores and atomics so far
    seen: dict[tuple, np.ndarray] = {}  # the lanes that loaded or stored each key so far
    dropped: dict[int, list[int]] = {}
    for _, site, index in calls:
        region = id(site.region)
        if site.unknown is not None:  # addresses not known: a write may have hit any key of the array
            if site.op != "load":
                writes[region] = writes.get(region, 0) + 1
            continue
        if site.op != "load":
            writes[region] = writes.get(region, 0) + 1
            if site.op != "store":
                continue
        active = site.active[index]
        if len(site.warps[index]) == 0 or not active.any():
            continue
        addresses = site.addresses[index]
        used = addresses[active]
        shape = int(used[0]) if bool((used == used[0]).all()) else addresses.tobytes()
        key = (site.epoch[index], blocks[id(site)][index], region, writes.get(region, 0), site.width,
               site.warps[index].tobytes(), shape)
        if site.op == "store":  # a load of what the same lanes just stored reads the register stored
            seen[key] = active.copy()
            continue
        before = seen.get(key)
        if before is not None and bool((before | ~active).all()):
            dropped.setdefault(id(site), []).append(index)
            continue
        if before is None:
            seen[key] = active.copy()
        else:
            before |= active
    return _remove(recorder, dropped)


def _remove(recorder: Recorder, dropped: dict[int, list[int]]) -> list[SourceSite]:
    changed = []
    for key, site in list(recorder.sites.items()):
        indices = dropped.get(id(site))
        if not indices:
            continue
        site.drop_calls(set(indices))
        changed.append(site)
        if not site.warps:
            del recorder.sites[key]
    return changed


def reload_notes(sites: list[SourceSite]) -> list[str]:
    """One assumption line per site whose repeated loads were left out."""
    return [f"{site.file}:{site.line}: loads of {site.expression} that repeat an earlier load of the same "
            f"addresses (no store between) left out: nvcc keeps the value in a register" for site in sites]
