"""Assertions for a project's own test suite: a layout is conflict-free, or costs at most N wavefronts.

Both run ``bankism.review.check`` and, on failure, raise ``AssertionError`` with what a
reviewer needs to act: the access, the worst warp (its threads) and loop values, the
engine's explanation, and the banks that collide with the lanes in each. On success they
return the ``Report``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from bankism.arch import DEFAULT_ARCH
from bankism.errors import BankismError
from bankism.review.access import Access
from bankism.review.report import Report, Site, WarpInstruction, check

#: How many colliding banks a failure message lists before summarizing the rest.
SHOWN_COLLISIONS = 8


def assert_conflict_free(
    accesses: Access | Iterable[Access],
    block: object = None,
    loops: Mapping[str, Iterable] | None = None,
    arch: str = DEFAULT_ARCH,
) -> Report:
    """Fail unless every warp-instruction of every access costs its ideal number of wavefronts."""
    report = check(accesses, block=block, loops=loops, arch=arch)
    failing = [site for site in report.sites if not site.conflict_free]
    if failing:
        raise AssertionError("\n\n".join(_conflict_message(site, block, loops) for site in failing))
    return report


def assert_max_wavefronts(
    accesses: Access | Iterable[Access],
    wavefronts: int,
    block: object = None,
    loops: Mapping[str, Iterable] | None = None,
    arch: str = DEFAULT_ARCH,
) -> Report:
    """Fail if any warp-instruction of any access costs more than ``wavefronts`` wavefronts."""
    if isinstance(wavefronts, bool) or not isinstance(wavefronts, int | float) or not wavefronts >= 0 \
            or wavefronts != wavefronts // 1:  # NaN compares false: it would pass every access
        raise BankismError(f"assert_max_wavefronts: wavefronts={wavefronts!r} must be a whole number >= 0")
    report = check(accesses, block=block, loops=loops, arch=arch)
    failing = [site for site in report.sites if site.max_wavefronts > wavefronts]
    if failing:
        raise AssertionError("\n\n".join(_budget_message(site, wavefronts, block, loops) for site in failing))
    return report


def _conflict_message(site: Site, block: object, loops: Mapping | None) -> str:
    worst = site.worst
    bad = sum(n for (_, _, conflicts), n in site.costs.items() if conflicts > 0)
    head = (
        f"{site.label} is not conflict-free: {site.conflicts} excess wavefront(s) in {bad} of "
        f"{site.instructions} warp-instruction(s) ({site.wavefronts} wavefronts where {site.ideal} would do)."
    )
    return "\n".join([head, *_details(site, worst), _hint(site, block, loops)])


def _budget_message(site: Site, wavefronts: int, block: object, loops: Mapping | None) -> str:
    peak = site.peak
    over = sum(n for (cost, _, _), n in site.costs.items() if cost > wavefronts)
    head = (
        f"{site.label} costs up to {peak.wavefronts} wavefronts per warp-instruction, more than the "
        f"{wavefronts} allowed, in {over} of {site.instructions} warp-instruction(s)."
    )
    lines = [head, *_details(site, peak)]
    if peak.conflicts:
        lines.append(_hint(site, block, loops))
    elif peak.ideal > wavefronts:
        lines.append(
            f"no bank conflict: the engine splits this access into {peak.ideal} transaction(s), so "
            f"{peak.ideal} wavefronts is its floor; use narrower lanes or fewer active lanes to go lower."
        )
    return "\n".join(lines)


def _details(site: Site, instruction: WarpInstruction) -> list[str]:
    """Where the instruction ran, the engine's sentence and the banks that collide."""
    alike = site.count_like(instruction)
    lines = [
        f"worst: {instruction.summary()}"
        + (f" ({alike} of {site.instructions} warp-instructions cost the same)" if alike > 1 else ""),
        f"engine: {instruction.describe()}",
    ]
    collisions = instruction.collisions
    if collisions:
        lines.append("banks that collide (distinct words asked of one bank in one transaction):")
        lines += [f"  {c}" for c in collisions[:SHOWN_COLLISIONS]]
        if len(collisions) > SHOWN_COLLISIONS:
            rest = collisions[SHOWN_COLLISIONS:]
            words = f"{len(rest[-1].words)}-{len(rest[0].words)}"
            lines.append(f"  ... and {len(rest)} more bank(s) with {words} words")
    return lines


def _hint(site: Site, block: object, loops: Mapping | None) -> str:
    where = f", block={block!r}" if block is not None else ""
    where += ", loops=..." if loops else ""
    return (
        f"fix: bankism.review.advise({site.access.array.name}, [accesses]{where}) searches row "
        "paddings and XOR swizzles that bring every access to its ideal."
    )
