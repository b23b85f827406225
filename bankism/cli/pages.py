"""The HTML pages of `analyze --html`, `explain --html` and `layout --html`, built from the same typed
reports (and JSON) that `--json` prints; ``bankism.render.html`` draws them."""

from __future__ import annotations

import re
from typing import Any

from bankism.render.html import BankCell, BankPicture, Column, Page, Row, Section, Transaction, heat
from bankism.version import __version__

_COUNTS = (Column("executions", "executions"), Column("wavefronts", "wavefronts"), Column("ideal", "ideal"),
           Column("excess", "excess"), Column("conflicts", "conflicts"), Column("cycles", "cycles"))


def _plain(text: str) -> str:
    """Rich markup removed: ``[bold red]x[/bold red]`` -> ``x``."""
    return re.sub(r"\[/?[a-z ]+\]", "", text)


def _key(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.:-]+", "_", text)


def _place(file: str | None, line: int | None) -> str:
    """file:line with the file's name only."""
    if not file:
        return "?"
    name = file.replace("\\", "/").rsplit("/", 1)[-1]
    return f"{name}:{line}" if line else name


def analyze_page(report: Any, pictures: dict[tuple[int, int], BankPicture],
                 sentences: dict[int, tuple[str, ...]]) -> Page:
    """``bankism analyze --html``: per launch, the per-line table with heat and each line's worst warp.

    ``pictures`` holds the bank map of each (launch, site) whose worst warp-instruction is drawn,
    ``sentences`` what the text report says of each launch (verdict, coverage)."""
    sections = []
    for launch in report.launches:
        rows = []
        for line in launch.lines():
            first = line.sites[0].site
            worst_site = line.worst_site
            picture = None if worst_site is None else pictures.get((launch.index, worst_site.id))
            ids = ",".join(str(s.id) for s in line.sites)
            values = {"source": _place(first.file, first.line), "op": line.op, "sites": ids,
                      "executions": line.executions, "wavefronts": line.wavefronts, "ideal": line.ideal,
                      "excess": line.excess, "conflicts": line.conflicts, "cycles": line.cycles}
            key = _key(f"{first.file}:{first.line}:{line.op}")
            rows.append(Row(key, values, heat(line.excess, line.wavefronts), picture, {"sites": ids}))
        totals = launch.totals()
        columns = (Column("source", "source", False), Column("op", "op", False),
                   Column("sites", "sites", False), *_COUNTS)
        said = (f"grid {list(launch.launch.grid)} x block {list(launch.launch.block)}; "
                f"{launch.records:,} warp-instructions recorded; {launch.scaling_note()}",
                *(_plain(text) for text in sentences.get(launch.index, ())))
        total = {"source": "total", **{k: totals[k] for k in ("executions", "wavefronts", "ideal", "excess",
                                                               "conflicts", "cycles")}}
        sections.append(Section(f"launch {launch.index}: {launch.kernel}", columns, tuple(rows), said,
                                total, f"launch{launch.index}"))
    gpu = report.environment.get("gpu") or "GPU unknown"
    return Page(f"bankism analyze {report.trace}", f"{report.arch}, {gpu}; bankism {__version__}",
                tuple(sections))


def _picture_from_json(bank_map: dict[str, Any], caption: str, ideal: int, banks: int) -> BankPicture:
    """A ``BankPicture`` from explain's JSON bank map (groups of lanes, banks, words)."""
    transactions = []
    for group, wavefronts in zip(bank_map["groups"], bank_map["wavefronts_per_group"], strict=True):
        per_bank: list[tuple[BankCell, ...]] = [() for _ in range(banks)]
        for bank in group["banks"]:
            cells = tuple(BankCell(int(w["word"]), tuple(int(v) for v in w["lanes"])) for w in bank["words"])
            if bank["bank"] >= len(per_bank):
                per_bank.extend(() for _ in range(bank["bank"] + 1 - len(per_bank)))
            per_bank[bank["bank"]] = cells
        transactions.append(Transaction((int(group["lanes"][0]), int(group["lanes"][1])), int(wavefronts),
                                        tuple(per_bank)))
    return BankPicture(caption, tuple(transactions), ideal)


def explain_page(report: dict[str, Any]) -> Page:
    """``bankism explain --html``: one row per access site (file:line, expression), heat, worst warp."""
    rows = []
    for number, site in enumerate(report.get("sites", [])):
        explanations = site.get("split", {}).get("explanations", [])
        worst = max(explanations, key=lambda e: (e["wavefronts"] - e["ideal"], e["wavefronts"]), default=None)
        picture = None
        if worst is not None and worst.get("bank_map"):
            example = worst["example"]
            caption = (f"line {site['line']}: {site['expression']}: block {tuple(example['block'])}, warp "
                       f"{example['warp']} ({worst['instructions']} warp-instruction(s) cost the same)")
            banks = int(report["bank_geometry"]["banks"])
            picture = _picture_from_json(worst["bank_map"], caption, int(worst["ideal"]), banks)
        values = {"line": f"{site['file'].rsplit('/', 1)[-1]}:{site['line']}", "access": site["expression"],
                  "op": site["op"], "bytes": site["width"], "instructions": site["instructions"],
                  "wavefronts": site["wavefronts"], "ideal": site["ideal"],
                  "excess": site["wavefronts"] - site["ideal"], "conflicts": site["conflicts"],
                  "cycles": site["cycles"]}
        rows.append(Row(str(number), values, heat(values["excess"], site["wavefronts"]), picture,
                        {"site": str(number)}))
    columns = (Column("line", "line", False), Column("access", "access", False), Column("op", "op", False),
               Column("bytes", "bytes"), Column("instructions", "instructions"),
               Column("wavefronts", "wavefronts"), Column("ideal", "ideal"), Column("excess", "excess"),
               Column("conflicts", "conflicts"), Column("cycles", "cycles"))
    launch = report.get("launch", {})
    grid = launch.get("grid") or "not known (per block)"
    sentences = [f"grid {grid} x block {launch.get('block')} ({launch.get('from', '')}); "
                 f"{len(report.get('sites', []))} access site(s)"]
    sentences += [f"not modelled: line {u.get('line')}: {u.get('note', '')}"
                  for u in report.get("unmodelled", [])]
    section = Section(f"kernel {report.get('kernel')}", columns, tuple(rows), tuple(sentences), None, "sites")
    subtitle = f"{report.get('arch')}; bankism {__version__}"
    return Page(f"bankism explain {report.get('file')}", subtitle, (section,))


def review_section(title: str, key: str, report: Any, sentences: tuple[str, ...]) -> Section:
    """A review ``Report`` (check, check_layout, check_encoding) as a section: one row per access."""
    rows = []
    for number, site in enumerate(report.sites):
        worst = site.worst
        picture = None
        if worst is not None:
            caption = f"{site.label}: {worst.where}"
            picture = BankPicture.of(worst.bank_map, caption, worst.ideal)
        values = {"access": site.label, "op": site.access.op, "bytes": site.access.width,
                  "instructions": site.instructions, "wavefronts": site.wavefronts, "ideal": site.ideal,
                  "conflicts": site.conflicts, "cycles": site.cycles}
        row_heat = heat(site.conflicts, site.wavefronts)
        rows.append(Row(str(number), values, row_heat, picture, {"site": str(number)}))
    columns = (Column("access", "access", False), Column("op", "op", False), Column("bytes", "bytes"),
               Column("instructions", "instructions"), Column("wavefronts", "wavefronts"),
               Column("ideal", "ideal"), Column("conflicts", "conflicts"), Column("cycles", "cycles"))
    total = {"access": "total", "instructions": report.instructions, "wavefronts": report.wavefronts,
             "ideal": report.ideal, "conflicts": report.conflicts, "cycles": report.cycles}
    return Section(title, columns, tuple(rows), sentences, total, key)
