"""`bankism advise`: the cheapest padding or XOR swizzle that removes the conflicts recorded in a trace.

The input is a trace (``bankism.trace``, format "bankism-trace") or the JSON that
``bankism explain --json`` prints. Either gives, per access site, the byte address each
lane used. The shared arrays those addresses fall in are declared with ``--array`` (an
``explain`` result names its arrays itself); each site's addresses are mapped back to
array indices, and ``bankism.review.advise`` re-lays the array out under every candidate
padding and swizzle, counting all of the array's sites together with the engine.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from typing import Annotated, Any

import numpy as np
import typer

from bankism.arch import DECLARED_ARRAY_ALIGN, DEFAULT_ARCH, LANES, get_arch, window_base
from bankism.cli.advise_input import (  # noqa: F401
    RecordedSite,
    load_document,
    load_input,
    sites_from_explain,
    sites_from_trace,
)
from bankism.errors import BankismError
from bankism.review import Access, Fix, Report, SharedArray, Swizzle, advise, check
from bankism.version import __version__

SOURCE_HELP = "A trace (bankism-trace JSON) or the JSON that `bankism explain --json` prints."
ARRAY_HELP = (
    "A shared array the kernel uses: NAME:TYPE\\[D0]\\[D1]...\\[+PAD]\\[^B,M,S]\\[@BASE], e.g. "
    "tile:float\\[32]\\[32]+1@1024 (rows of 32 floats padded by 1, at byte 1024). Without @BASE arrays "
    "follow one another from the start of the block's shared memory. Repeat for each array."
)

_SPEC = re.compile(
    r"^(?P<name>[A-Za-z_]\w*):(?P<dtype>[A-Za-z_][\w ]*?)\s*(?P<dims>(\[\d+\])+)"
    r"(\+(?P<pad>\d+))?(\^(?P<swizzle>\d+,\d+,-?\d+))?(@(?P<base>0x[0-9a-fA-F]+|\d+))?$",
    re.ASCII,  # digits are 0-9 only: int() would take other scripts' digits, or fail on '²'
)


def parse_array_spec(spec: str, default_base: int) -> SharedArray:
    """``NAME:TYPE[D0][D1]...[+PAD][^B,M,S][@BASE]`` as a SharedArray (the layout the kernel used)."""
    match = _SPEC.match(spec.strip())
    if match is None:
        raise BankismError(
            f"--array {spec!r}: expected NAME:TYPE[D0][D1]...[+PAD][^B,M,S][@BASE], "
            "e.g. tile:float[32][32]+1@1024"
        )
    shape = tuple(int(d) for d in re.findall(r"\d+", match["dims"]))
    base = int(match["base"], 0) if match["base"] else default_base
    try:
        swizzle = Swizzle(*(int(v) for v in match["swizzle"].split(","))) if match["swizzle"] else None
        return SharedArray(match["dtype"], shape, pad=int(match["pad"] or 0), base=base, swizzle=swizzle,
                           name=match["name"])
    except BankismError as error:
        raise BankismError(f"--array {spec!r}: {error}") from None


def declare_arrays(specs: Sequence[str], base: int, arch: str = DEFAULT_ARCH) -> list[SharedArray]:
    """The arrays of ``--array``; those without @BASE follow the previous one (16-byte aligned).

    Each must fit in the architecture's shared memory and overlap no other declared array.
    """
    arrays: list[SharedArray] = []
    next_base = base
    size = get_arch(arch).shared_bytes
    for spec in specs:
        array = parse_array_spec(spec, next_base)
        if any(a.name == array.name for a in arrays):
            raise BankismError(f"--array {spec!r}: array {array.name} is declared twice")
        if array.base + array.nbytes > size:
            raise BankismError(
                f"--array {spec!r}: {array.nbytes:,} bytes at byte {array.base} do not fit in the "
                f"{size:,}-byte ({size // 1024} KB) shared memory of {arch}")
        for other in arrays:
            if array.base < other.base + other.nbytes and other.base < array.base + array.nbytes:
                raise BankismError(
                    f"--array {spec!r}: bytes {array.base}-{array.base + array.nbytes - 1} overlap "
                    f"{other.name} (bytes {other.base}-{other.base + other.nbytes - 1})")
        arrays.append(array)
        end = array.base + array.nbytes
        next_base = -(-end // DECLARED_ARRAY_ALIGN) * DECLARED_ARRAY_ALIGN
    return arrays


def _covers(array: SharedArray, site: RecordedSite) -> bool:
    lanes = ((site.active[:, np.newaxis] >> np.arange(LANES)) & 1).astype(bool)
    used = site.addresses[lanes]
    return used.size > 0 and bool(((used >= array.base) & (used < array.base + array.nbytes)).all())


def attribute(
    sites: list[RecordedSite], arrays: list[SharedArray]
) -> tuple[dict[str, list[Access]], list[str]]:
    """Each site as an Access of the array its addresses fall in; sites that fit none, with the reason."""
    by_array: dict[str, list[Access]] = {a.name: [] for a in arrays}
    left_out = []
    for site in sites:
        named = [a for a in arrays if a.name == site.array]
        holders = named or [a for a in arrays if _covers(a, site)]
        if not holders:
            lanes = ((site.active[:, np.newaxis] >> np.arange(LANES)) & 1).astype(bool)
            used = site.addresses[lanes]
            span = f"bytes {int(used.min())}-{int(used.max())}" if used.size else "no active lane"
            left_out.append(f"{site.label}: {span} lie in no declared array")
            continue
        array = holders[0]
        by_array[array.name].append(Access.from_addresses(
            array, site.addresses, op=site.op, width=site.width, active=site.active,
            matrices=site.matrices, name=site.label, places=site.places,
        ))
    return {name: accesses for name, accesses in by_array.items() if accesses}, left_out


def _fix_dict(rank: int, fix: Fix, given: Report) -> dict[str, Any]:
    swizzle = fix.array.swizzle
    return {
        "rank": rank, "kind": fix.kind, "change": fix.change, "code": fix.code,
        "pad": fix.array.pad, "swizzle": [swizzle.bits, swizzle.base, swizzle.shift] if swizzle else None,
        "extra_bytes": fix.extra_bytes, "wavefronts": fix.wavefronts, "ideal": fix.ideal,
        "excess": fix.excess, "cycles": _finite(fix.report.cycles),
        "cycles_removed": _finite(given.cycles - fix.report.cycles),
    }


def _finite(value: float) -> float | None:
    """A cycle count for JSON: None where some instruction has no measured cycle model (NaN)."""
    return None if math.isnan(value) else value


def _cycles_removed(fix: Fix, given: Report) -> str:
    """What the fix saves of the shared pipe, as a lower bound on time."""
    if math.isnan(given.cycles - fix.report.cycles):
        return "  shared-pipe cycles not modelled for these instructions"
    removed = given.cycles - fix.report.cycles
    return (f"  removes {removed:,.0f} of the {given.cycles:,.0f} shared-pipe cycles of the accesses "
            f"as given (a lower bound on the time it saves)")


def advise_arrays(
    arrays: list[SharedArray], accesses: dict[str, list[Access]], arch: str, limit: int
) -> list[tuple[SharedArray, Report, list[Fix]]]:
    """For each array with sites: its report as given and the ranked fixes."""
    results = []
    for array in arrays:
        own = accesses.get(array.name)
        if own:
            results.append((array, check(own, arch=arch), advise(array, own, arch=arch, limit=limit)))
    return results


EXPLAIN_NOTE = ("explain keeps the lane addresses of one execution per warp: sites in loops are "
                "advised on their first iteration")


def _text(results, left_out: list[str], note: str | None, not_counted: list[str] = ()) -> str:
    parts = [f"note: {note}", ""] if note else []
    for array, report, fixes in results:
        parts += [f"=== {array} at byte {array.base}: {len(report.sites)} site(s)", report.table(), "",
                  report.verdict]
        if fixes:
            parts.append("fixes, cheapest first:")
            parts += [f"{n}. {fix}\n{_cycles_removed(fix, report)}" for n, fix in enumerate(fixes, 1)]
        else:
            parts.append("no padding or swizzle does better than the layout as given")
        parts.append("")
    if left_out:
        parts.append("sites left out (declare their arrays with --array):")
        parts += [f"  {line}" for line in left_out]
    if not_counted:
        parts.append("accesses left out (explain lists them as not counted; the verdicts above omit them):")
        parts += [f"  {line}" for line in not_counted]
    return "\n".join(parts).rstrip()


def _json(results, left_out: list[str], source: str, arch: str, note: str | None) -> str:
    return json.dumps({
        "format": "bankism-advise", "version": 1, "bankism": __version__, "input": source, "arch": arch,
        "note": note,
        "arrays": [
            {"name": array.name, "declaration": array.declaration, "base": array.base,
             "given": report.to_dict(), "fixes": [_fix_dict(n, f, report) for n, f in enumerate(fixes, 1)]}
            for array, report, fixes in results
        ],
        "left_out": left_out,
    }, indent=2)


def register(app: typer.Typer) -> None:
    """Add the `advise` command to ``app``."""

    @app.command("advise")
    def advise_command(
        source: Annotated[str, typer.Argument(help=SOURCE_HELP)],
        array: Annotated[list[str] | None, typer.Option("--array", help=ARRAY_HELP)] = None,
        launch: int = typer.Option(None, help="Only this launch of a trace (its index)."),
        limit: int = typer.Option(5, help="How many fixes to list per array."),
        arch: str = typer.Option(None, help=f"Architecture (default: the input's, else {DEFAULT_ARCH})."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
    ) -> None:
        """Find the cheapest padding or XOR swizzle that removes the bank conflicts of each shared array."""
        kind, sites, declared, input_arch, not_counted = load_document(source, launch)
        arch = arch or input_arch
        if limit < 1:
            raise BankismError(f"--limit {limit}: list at least 1 fix")
        arrays = declare_arrays(array, window_base(arch), arch) if array else declared
        if not arrays:
            raise BankismError(
                f"{source}: declare the shared arrays with --array NAME:TYPE[D0][D1]...[+PAD][@BASE]; "
                + _address_summary(sites)
            )
        accesses, left_out = attribute(sites, arrays)
        if not accesses:
            raise BankismError(
                f"{source}: no site's addresses fall in the declared arrays (check @BASE); {left_out[0]}"
                if left_out else f"{source}: the input has no access sites"
            )
        results = advise_arrays(arrays, accesses, arch, limit)
        note = EXPLAIN_NOTE if kind == "explain" else None
        if as_json:
            print(_json(results, left_out + not_counted, str(source), arch, note))
        else:
            print(_text(results, left_out, note, not_counted))


def _address_summary(sites: list[RecordedSite]) -> str:
    if not sites:
        return "the input has no access sites"
    lows, highs = [], []
    for site in sites:
        lanes = ((site.active[:, np.newaxis] >> np.arange(LANES)) & 1).astype(bool)
        used = site.addresses[lanes]
        if used.size:
            lows.append(int(used.min()))
            highs.append(int(used.max()))
    span = f"bytes {min(lows)}-{max(highs)}" if lows else "no active lanes"
    return f"its {len(sites)} site(s) touch {span}"
