"""`bankism layout`: a CuTe layout and its tiled copies, or a Triton shared encoding and the accesses
Triton lowers onto it: wavefronts, conflicts, the worst warp's bank map, and the layout that fixes it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, Any

import typer

from bankism.arch import DEFAULT_ARCH
from bankism.errors import BankismError
from bankism.version import __version__

JSON_FORMAT = "bankism-layout"
JSON_VERSION = 1

_KEYS = ("tv", "tile", "thr", "val", "side")


def parse_copy(spec: str, extents: tuple[int, ...] | None = None) -> Any:
    """``ATOM tv=LAYOUT tile=M,N`` or ``ATOM thr=LAYOUT val=LAYOUT`` (``side=src|dst`` for a universal
    copy) as a TiledCopy; its threads, and its tile against the layout's ``extents`` when given, are
    checked before any table is built."""
    from bankism.review.cute_copy import copy_atom, make_tiled_copy, tiled_copy

    parts = re.split(r"\s+(?=(?:{})=)".format("|".join(_KEYS)), spec.strip())
    atom_name, options = parts[0].strip(), {}
    for part in parts[1:]:
        key, _, value = part.partition("=")
        options[key.strip()] = value.strip()
    if not atom_name:
        raise BankismError(f"--copy {spec!r}: expected 'ATOM tv=LAYOUT tile=M,N' or "
                           "'ATOM thr=LAYOUT val=LAYOUT'")
    atom = copy_atom(atom_name, options.get("side"))
    if "tv" in options:
        if "tile" not in options:
            raise BankismError(f"--copy {spec!r}: tv= needs tile=M,N (the Tiler_MN print(tiled_copy) shows)")
        tile = _integers(options["tile"], f"--copy {spec!r}: tile")
        return tiled_copy(atom, options["tv"], tile, extents)
    if "thr" in options:
        return make_tiled_copy(atom, options["thr"], options.get("val", "1:0"), extents)
    raise BankismError(f"--copy {spec!r}: give tv=... tile=... or thr=... val=...")


def _integers(text: str, what: str) -> tuple[int, ...]:
    try:
        values = tuple(int(v) for v in text.strip("()[] ").replace("_", "").split(",") if v.strip())
    except ValueError:
        raise BankismError(f"{what} {text!r}: expected integers such as 64,64") from None
    if not values or any(v < 1 for v in values):
        raise BankismError(f"{what} {text!r}: expected positive integers such as 64,64")
    return values


def _bank_map_text(report: Any) -> list[str]:
    worst = report.worst
    if worst is None or not worst[1].conflicts:
        return []
    site, instruction = worst
    return ["", f"worst warp-instruction: {site.label}, {instruction.where}", instruction.describe(),
            str(instruction.bank_map)]


def _print_check(title: str, report: Any, fixes: list, fix_label: str) -> None:
    print(title)
    print(report.table())
    print(report.verdict)
    for line in _bank_map_text(report):
        print(line)
    if fixes:
        print(f"\n{fix_label}:")
        for fix in fixes:
            print(f"  {fix}")
    elif report.conflicts:
        print(f"\n{fix_label}: none in the search space improves on it")
    print()


def register(app: typer.Typer) -> None:
    """Add the `layout` command to ``app``."""

    @app.command("layout")
    def layout_command(
        layout: Annotated[str | None, typer.Argument(
            help="A CuTe layout as CuTe prints it, e.g. 'Sw<3,3,3> o _0 o (64,64):(64,1)'.")] = None,
        dtype: Annotated[str, typer.Option(help="Element type: half, float, bf16, int8, ...")] = "half",
        copy: Annotated[list[str] | None, typer.Option(
            help="A tiled copy: 'ATOM tv=LAYOUT tile=M,N' or 'ATOM thr=LAYOUT val=LAYOUT' (repeatable).",
        )] = None,
        triton: Annotated[str | None, typer.Option(
            help="A Triton shared encoding: '#ttg.swizzled_shared<{vec=..., perPhase=..., maxPhase=..., "
                 "order=[1, 0]}>' or '#ttg.nvmma_shared<{...}>'.")] = None,
        shape: Annotated[str | None, typer.Option(help="With --triton: the tile shape, e.g. 64,64.")] = None,
        blocked: Annotated[str | None, typer.Option(
            help="With --triton: the #ttg.blocked layout the tile is stored from (local_store).")] = None,
        no_dot: Annotated[bool, typer.Option(
            "--no-dot", help="With --triton: the tile is not a dot operand (no ldmatrix reads).")] = False,
        ttgir: Annotated[str | None, typer.Option(
            help="A TTGIR file: check every shared tile its local_alloc/store/load touch.")] = None,
        name: Annotated[str, typer.Option(help="The shared array's name in messages.")] = "smem",
        fixes: Annotated[int, typer.Option(help="How many fixes to list (0: none).")] = 3,
        arch: Annotated[str, typer.Option(help="Architecture the engine models.")] = DEFAULT_ARCH,
        as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
        html_path: Annotated[Path | None, typer.Option(
            "--html", help="Also write a self-contained HTML report with bank maps to this file.")] = None,
    ) -> None:
        """Bank conflicts of a CuTe layout under its tiled copies, or of a Triton shared encoding."""
        if fixes < 0:
            raise BankismError(f"--fixes {fixes}: expected 0 or more")
        modes = sum(x is not None for x in (layout, triton, ttgir))
        if modes != 1:
            raise BankismError("give one of: a CuTe LAYOUT (with --copy), --triton ENCODING (with --shape), "
                               "or --ttgir FILE")
        if html_path is not None:
            from bankism.files import check_output

            check_output(html_path, "--html", [p for p in (ttgir,) if p])
        checks = _run(layout, dtype, copy or [], triton, shape, blocked, no_dot, ttgir, name, fixes, arch)
        if as_json:
            envelope = {"format": JSON_FORMAT, "version": JSON_VERSION, "bankism": __version__}
            print(json.dumps({**envelope, "checks": [c["json"] for c in checks]}, indent=1))
        else:
            for c in checks:
                _print_check(c["title"], c["report"], c["fixes"], c["fix_label"])
        if html_path is not None:
            _write_html(checks, html_path)
            if not as_json:
                print(f"HTML report written to {html_path}")


def _run(layout, dtype, copies, triton, shape, blocked, no_dot, ttgir, name, limit, arch) -> list[dict]:
    if layout is not None:
        from bankism.review.cute import parse_layout
        from bankism.review.cute_check import check_layout, layout_extents

        if not copies:
            raise BankismError("a CuTe layout needs at least one --copy 'ATOM tv=LAYOUT tile=M,N'")
        parsed = parse_layout(layout)
        extents = layout_extents(parsed)  # the layout's size checked before the copies are built
        result = check_layout(parsed, dtype, [parse_copy(c, extents) for c in copies], name, arch)
        found = result.fixes(limit) if limit else []
        data = {"kind": "cute", **result.to_dict(), "fixes": [_fix_json(f) for f in found]}
        span = result.layout.cosize() * result.array.itemsize
        title = f"{result.array.cuda_type} {name}: {result.layout} ({span} bytes)"
        return [{"title": title, "report": result.report, "fixes": found, "json": data,
                 "fix_label": "layouts that fix it (CuTe notation)"}]
    from bankism.review.triton_shared import Blocked, SharedEncoding, check_encoding, parse_encoding

    if ttgir is not None:
        return _run_ttgir(ttgir, limit, arch)
    if shape is None:
        raise BankismError("--triton needs --shape, e.g. --shape 64,64")
    encoding = parse_encoding(triton)
    if not isinstance(encoding, SharedEncoding):
        raise BankismError(f"--triton {triton!r}: expected a shared encoding, not a blocked one")
    layout_blocked = None
    if blocked is not None:
        layout_blocked = parse_encoding(blocked)
        if not isinstance(layout_blocked, Blocked):
            raise BankismError(f"--blocked {blocked!r}: expected a #ttg.blocked layout")
    from bankism.review.triton_shared import blocked_accesses, dot_operand_reads, encoding_array, tile_shape

    dims = tile_shape(_integers(shape, "--shape"), encoding)

    itemsize = encoding_array(dims, dtype, encoding).itemsize
    accesses = []
    if layout_blocked is not None:
        accesses.append(blocked_accesses(dims, layout_blocked, encoding, itemsize))
    if not no_dot:
        accesses.append(dot_operand_reads(dims, encoding, itemsize))
    if not accesses:
        raise BankismError("--no-dot without --blocked leaves nothing to check")
    result = check_encoding(dims, dtype, encoding, accesses, arch=arch, name=name)
    return [_encoding_entry(result, limit)]


def _encoding_entry(result: Any, limit: int, where: str = "") -> dict:
    found = result.fixes(limit) if limit else []
    data = {"kind": "triton", **result.to_dict(), "fixes": [
        {"encoding": str(f.encoding), "excess": f.excess, "wavefronts": f.report.wavefronts,
         "per_access": [s.conflicts for s in f.report.sites]} for f in found]}
    title = f"{where}{result.dtype} tile {list(result.shape)} in {result.encoding}"
    return {"title": title, "report": result.report, "fixes": found, "json": data,
            "fix_label": "encodings (vec/perPhase/maxPhase) that do better"}


def _run_ttgir(path: str, limit: int, arch: str) -> list[dict]:
    from bankism.inputs import read_text
    from bankism.review.triton_shared import check_encoding
    from bankism.review.ttgir import shared_tiles

    # A regular file under the source size cap (a FIFO or /dev/zero is refused before a byte is read).
    try:
        text = read_text(path, "source", errors="replace")
    except BankismError as error:
        reason = str(error).removeprefix(f"{path}: ")
        raise BankismError(f"{path}: cannot read: {reason}") from None
    tiles = shared_tiles(text)
    entries = []
    for tile in tiles:
        if not tile.accesses:
            continue
        result = check_encoding(tile.shape, tile.dtype, tile.encoding, tile.accesses, arch=arch,
                                name=tile.encoding_name.lstrip("#"))
        where = f"{tile.encoding_name} (lines {tile.lines[0]}-{tile.lines[-1]}): "
        entry = _encoding_entry(result, limit, where)
        entry["json"]["not_modelled"] = tile.not_modelled
        entries.append(entry)
    if not entries:
        raise BankismError(f"{path}: no local_alloc/local_store/local_load of a shared encoding with a "
                           "modelled access (blocked tensors, dot operands)")
    return entries


def _fix_json(fix: Any) -> dict:
    return {"layout": str(fix.layout), "kind": fix.kind, "extra_bytes": fix.extra_bytes, "excess": fix.excess,
            "wavefronts": fix.report.wavefronts}


def _write_html(checks: list[dict], path: Path) -> None:
    from bankism.cli.pages import review_section
    from bankism.files import write_text
    from bankism.render.html import Page, render_page

    sections = []
    for number, c in enumerate(checks):
        sentences = [c["report"].verdict]
        sentences += [f"{c['fix_label']}: {f}" for f in c["fixes"]]
        sections.append(review_section(c["title"], f"check{number}", c["report"], tuple(sentences)))
    page = Page("bankism layout", f"bankism {__version__}", tuple(sections))
    write_text(path, render_page(page), "--html")
