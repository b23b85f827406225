"""Matching ncu's profiled launches with a trace's launches (by kernel name and shape), and putting
their counters into the trace."""

from __future__ import annotations

import re
from typing import Any

from bankism.capture.ncu.exports import NcuLaunch
from bankism.errors import BankismError


def base_name(kernel: str) -> str:
    """The bare function name of a (demangled) kernel signature, as users write it: 'void ns::f<1>(int*)'
    -> 'f'; Numba's 'cudapy::__main__::f$241(...)' and 'cudapy::__main__::f[abi:v1](...)' -> 'f'.
    tracer.cpp's base_name does the same."""
    depth, cut = 0, len(kernel)
    for i, char in enumerate(kernel):  # the parameter list: the first '(' outside template arguments
        depth += {"<": 1, ">": -1}.get(char, 0)
        if char == "(" and depth == 0 and not kernel.startswith("(anonymous namespace)", i):
            cut = i
            break
    head = kernel[:cut].strip()
    if head.endswith(">"):  # drop the template argument list
        depth = 0
        for i in range(len(head) - 1, -1, -1):
            depth += {">": 1, "<": -1}.get(head[i], 0)
            if depth == 0:
                head = head[:i]
                break
    words = head.split()
    name = words[-1].split("::")[-1] if words else ""
    cut = min((i for i in (name.find("$"), name.find("[")) if i > 0), default=len(name))
    return name[:cut] or kernel


def kernel_matches(pattern: re.Pattern[str], *names: str | None) -> bool:
    """Whether ``--kernel`` selects a kernel known by these names: searched in each name and in its bare
    function name (as the tracer does), so '^f$' picks f whatever its namespace, templates or suffix."""
    return any(pattern.search(n) or pattern.search(base_name(n)) for n in names if n)


def names_match(ncu_name: str, launch: dict[str, Any]) -> bool:
    """Whether ncu's kernel name (mangled, demangled or bare) names the trace launch's kernel."""
    kernel, mangled = launch.get("kernel") or "", launch.get("mangled") or ""
    if ncu_name in (kernel, mangled):
        return True
    return bool(ncu_name) and not ncu_name.startswith("_Z") and base_name(ncu_name) == base_name(kernel)


def _same_kernel(profiled: NcuLaunch, launch: dict[str, Any]) -> bool:
    return any(names_match(name, launch) for name in profiled.names) and _shape_matches(profiled, launch)


def _shape_matches(ncu_launch: NcuLaunch, launch: dict[str, Any]) -> bool:
    grid_ok = ncu_launch.grid is None or list(ncu_launch.grid) == list(launch["grid"])
    block_ok = ncu_launch.block is None or list(ncu_launch.block) == list(launch["block"])
    return grid_ok and block_ok


def match_launches(
    launches: list[dict[str, Any]], profiled: list[NcuLaunch], by_index: bool = True
) -> dict[int, NcuLaunch]:
    """For each trace launch index, its ncu launch: same ID (= launch index) when the names agree,
    otherwise the next unused profiled launch of the same kernel and shape, in order. ``by_index=False``
    (ncu profiled a selection, so its IDs are not launch indices) matches by order only."""
    by_id = {p.id: p for p in profiled} if by_index else {}
    used: set[int] = set()
    matched: dict[int, NcuLaunch] = {}
    for launch in launches:
        candidate = by_id.get(launch["index"])
        if candidate and _same_kernel(candidate, launch):
            matched[launch["index"]] = candidate
            used.add(candidate.id)
    for launch in launches:
        if launch["index"] in matched:
            continue
        for candidate in profiled:
            if candidate.id not in used and _same_kernel(candidate, launch):
                matched[launch["index"]] = candidate
                used.add(candidate.id)
                break
    return matched


def set_time(launch: dict[str, Any], profiled: NcuLaunch, clock_control: str | None) -> None:
    """Write the launch's time block, or null and the reason when ncu did not report its metrics."""
    block, why = profiled.time(clock_control)
    launch["time"] = block
    if why:
        launch["time_missing"] = why
    else:
        launch.pop("time_missing", None)


def fill_counters(
    doc: dict[str, Any], profiled: list[NcuLaunch], source: str, by_index: bool = True,
    clock_control: str | None = None,
) -> list[int]:
    """Write counters and the time block into the trace's matching launches; returns the indices that got
    no counters. ``clock_control`` says how ncu held the clocks (None: not known, as for an import)."""
    matched = match_launches(doc["launches"], profiled, by_index)
    missing = []
    for launch in doc["launches"]:
        found = matched.get(launch["index"])
        counters = found.counters() if found else None
        if counters is None:
            missing.append(launch["index"])
            continue
        launch["counters"] = counters
        launch["counters_scope"] = "launch"
        set_time(launch, found, clock_control)
    if len(missing) == len(doc["launches"]):
        raise BankismError(
            f"{source}: no profiled launch matches a launch of the trace (by index, name and shape)"
        )
    return missing


def counters_only_launch(profiled: NcuLaunch, clock_control: str | None = None) -> dict[str, Any]:
    """A trace launch holding only ncu's counters and time block (no sites, no records)."""
    grid = list(profiled.grid or (1, 1, 1))
    block = list(profiled.block or (1, 1, 1))
    return {
        "index": profiled.id,
        "kernel": profiled.demangled or profiled.kernel or f"launch {profiled.id}",
        "mangled": profiled.kernel if profiled.demangled else None,
        "grid": grid,
        "block": block,
        "shared_bytes": {
            "static": int(profiled.metrics.get("launch__shared_mem_per_block_static", 0)),
            "dynamic": int(profiled.metrics.get("launch__shared_mem_per_block_dynamic", 0)),
        },
        "blocks_total": grid[0] * grid[1] * grid[2],
        "blocks_recorded": "all",
        "sites": [],
        "records": {"block": [], "warp": [], "site": [], "active": [], "addresses": []},
        "counters": profiled.counters(),
        "counters_scope": "launch",
        **_time_fields(profiled, clock_control),
    }


def _time_fields(profiled: NcuLaunch, clock_control: str | None) -> dict[str, Any]:
    block, why = profiled.time(clock_control)
    return {"time": block} if why is None else {"time": None, "time_missing": why}


def select_kernels(profiled: list[NcuLaunch], kernel: str | None) -> list[NcuLaunch]:
    """The profiled launches whose kernel name matches ``kernel`` (a regex searched in the name)."""
    if not kernel:
        return profiled
    try:
        pattern = re.compile(kernel)
    except re.error as error:
        raise BankismError(f"--kernel {kernel!r} is not a valid regular expression: {error}") from None
    return [p for p in profiled if kernel_matches(pattern, *p.names)]
