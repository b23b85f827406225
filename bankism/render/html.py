"""One self-contained HTML page (no script, no network) per report, and SVG bank maps.

Every front end (``analyze --html``, ``explain --html``, ``layout --html``, ``show --svg``) turns its
own typed report into a ``Page`` of ``Section`` tables whose rows carry their numbers, a heat value
and, for each access site, a ``BankPicture`` of its worst warp-instruction (built from the engine's
``BankMap``). The page draws each picture as an SVG: 32 bank columns, one row per wavefront of each
transaction, each cell naming the lanes that ask that bank for that word. Numeric cells carry their
raw value in ``data-value`` (what ``--json`` prints), so a test can read the page back.
"""

from __future__ import annotations

import html
import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from bankism.engine import BankMap

#: Width and height of one bank cell of the SVG, in pixels.
CELL_WIDTH = 38
CELL_HEIGHT = 26


def lane_text(lanes: Iterable[int]) -> str:
    """Lanes as ranges: ``0-3,8,12-13``."""
    ordered = sorted(set(int(v) for v in lanes))
    runs = []
    for _, group in itertools.groupby(enumerate(ordered), lambda p: p[1] - p[0]):
        run = [v for _, v in group]
        runs.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
    return ",".join(runs)


@dataclass(frozen=True)
class BankCell:
    """One distinct word a bank serves in one transaction, and the lanes asking for it."""

    word: int
    lanes: tuple[int, ...]


@dataclass(frozen=True)
class Transaction:
    """One transaction of a warp-instruction: its lanes, wavefronts, and per bank the words served."""

    lanes: tuple[int, int]
    wavefronts: int
    banks: tuple[tuple[BankCell, ...], ...]

    @property
    def depth(self) -> int:
        return max((len(cells) for cells in self.banks), default=0)


@dataclass(frozen=True)
class BankPicture:
    """The bank map of one warp-instruction, ready to draw."""

    caption: str
    transactions: tuple[Transaction, ...]
    ideal: int
    bank_bytes: int = 4

    @property
    def wavefronts(self) -> int:
        return sum(t.wavefronts for t in self.transactions)

    @classmethod
    def of(cls, bank_map: BankMap, caption: str, ideal: int) -> BankPicture:
        """From the engine's ``BankMap`` (``SimulationResult.bank_map(i)``)."""
        transactions = []
        for t, (lo, hi) in enumerate(bank_map.transactions):
            banks = tuple(tuple(BankCell(int(word), tuple(int(v) for v in lanes))
                                for word, lanes in bank_map.words(t, b))
                          for b in range(len(bank_map.banks[t])))
            wavefronts = int(bank_map.wavefronts_per_transaction[t])
            transactions.append(Transaction((int(lo), int(hi) - 1), wavefronts, banks))
        return cls(caption, tuple(transactions), int(ideal), int(getattr(bank_map, "bank_bytes", 4)))


def bank_map_svg(picture: BankPicture, key: str = "") -> str:
    """The picture as one SVG element: per transaction a grid of banks (columns) by wavefront (rows)."""
    banks = max((len(t.banks) for t in picture.transactions), default=0)
    left, top = 64, 18
    width = left + banks * CELL_WIDTH + 4
    parts, y = [], 0
    for b in range(banks):
        parts.append(f'<text x="{left + b * CELL_WIDTH + CELL_WIDTH / 2}" y="12" class="bank">{b}</text>')
    y = top
    for number, transaction in enumerate(picture.transactions):
        lo, hi = transaction.lanes
        parts.append(f'<text x="0" y="{y + 12}" class="head">transaction {number}: lanes {lo}-{hi}, '
                     f'{transaction.wavefronts} wavefront(s)</text>')
        y += 18
        for row in range(max(transaction.depth, 1)):
            parts.append(f'<text x="0" y="{y + CELL_HEIGHT / 2 + 4}" class="row">wavefront {row + 1}</text>')
            for b in range(banks):
                cells = transaction.banks[b] if b < len(transaction.banks) else ()
                x = left + b * CELL_WIDTH
                if row < len(cells):
                    cell = cells[row]
                    kind = "extra" if row else "first"
                    tip = (f"bank {b}, word {cell.word} (byte {cell.word * picture.bank_bytes}): "
                           f"lanes {lane_text(cell.lanes)}")
                    box = f'x="{x}" y="{y}" width="{CELL_WIDTH - 2}" height="{CELL_HEIGHT - 2}"'
                    parts.append(f'<g class="{kind}"><title>{html.escape(tip)}</title><rect {box}/>'
                                 f'<text x="{x + CELL_WIDTH / 2 - 1}" y="{y + CELL_HEIGHT / 2 + 3}">'
                                 f'{html.escape(_short_lanes(cell.lanes))}</text></g>')
                else:
                    parts.append(f'<rect class="empty" x="{x}" y="{y}" width="{CELL_WIDTH - 2}" '
                                 f'height="{CELL_HEIGHT - 2}"/>')
            y += CELL_HEIGHT
        y += 6
    height = y + 4
    label = html.escape(picture.caption)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="bankmap" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" data-picture="{html.escape(key)}" '
            f'data-wavefronts="{picture.wavefronts}" data-ideal="{picture.ideal}" role="img" '
            f'aria-label="{label}"><style>{_SVG_STYLE}</style>{"".join(parts)}</svg>')


def _short_lanes(lanes: Sequence[int]) -> str:
    text = "L" + lane_text(lanes)
    return text if len(text) <= 7 else text[:6] + "…"


_SVG_STYLE = (
    "text{font:10px sans-serif;text-anchor:middle}text.head,text.row{text-anchor:start;font-size:10px}"
    "text.bank{font-size:9px;fill:#555}.first rect{fill:#cdebd3;stroke:#4a8}"
    ".extra rect{fill:#f3a5a5;stroke:#c33}rect.empty{fill:#fafafa;stroke:#e4e4e4}"
)


def standalone_svg(picture: BankPicture) -> str:
    """A whole SVG file: the caption above the bank map."""
    body = bank_map_svg(picture)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{body}\n'


@dataclass(frozen=True)
class Column:
    """A table column: its heading, the key of its value in each row, whether it is a number."""

    title: str
    key: str
    numeric: bool = True


@dataclass(frozen=True)
class Row:
    """One row: values by column key, a heat in [0, 1] (share of excess), and its worst bank map."""

    key: str
    values: dict[str, object]
    heat: float = 0.0
    picture: BankPicture | None = None
    attributes: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Section:
    """A heading, sentences, and a table with an optional total row."""

    title: str
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]
    sentences: tuple[str, ...] = ()
    total: dict[str, object] | None = None
    key: str = ""


@dataclass(frozen=True)
class Page:
    title: str
    subtitle: str
    sections: tuple[Section, ...]
    notes: tuple[str, ...] = ()


def heat(excess: float, wavefronts: float) -> float:
    """The share of a row's wavefronts that are excess, in [0, 1]."""
    return 0.0 if not wavefronts else max(0.0, min(1.0, excess / wavefronts))


def _heat_colour(value: float) -> str:
    if value <= 0:
        return "#eef8ee"
    lightness = 94 - 40 * value
    return f"hsl(0, 75%, {lightness:.0f}%)"


def _number_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and math.isnan(value):
        return "n/a"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.1f}"
    if isinstance(value, int | float):
        return f"{value:,.0f}"
    return str(value)


def _cell(column: Column, value: object) -> str:
    text = html.escape(_number_text(value) if column.numeric else str(value if value is not None else ""))
    raw = "" if value is None else html.escape(str(value))
    kind = ' class="num"' if column.numeric else ""
    return f'<td{kind} data-key="{html.escape(column.key)}" data-value="{raw}">{text}</td>'


def _section_html(section: Section) -> str:
    head = "".join(f"<th>{html.escape(c.title)}</th>" for c in section.columns)
    body = []
    pictures = []
    for row in section.rows:
        extra = "".join(f' data-{html.escape(k)}="{html.escape(v)}"' for k, v in row.attributes.items())
        cells = "".join(_cell(c, row.values.get(c.key)) for c in section.columns)
        link = ""
        if row.picture is not None:
            link = f'<td><a href="#map-{html.escape(section.key)}-{html.escape(row.key)}">bank map</a></td>'
            pictures.append((row, row.picture))
        else:
            link = "<td></td>"
        colour = _heat_colour(row.heat)
        opening = f'<tr data-row="{html.escape(row.key)}"{extra} style="background:{colour}">'
        body.append(f"{opening}{cells}{link}</tr>")
    if section.total is not None:
        cells = "".join(_cell(c, section.total.get(c.key)) for c in section.columns)
        body.append(f'<tr class="total" data-row="total">{cells}<td></td></tr>')
    sentences = "".join(f"<p>{html.escape(s)}</p>" for s in section.sentences)
    maps = []
    for row, picture in pictures:
        anchor = f"map-{section.key}-{row.key}"
        maps.append(f'<figure id="{html.escape(anchor)}"><figcaption>{html.escape(picture.caption)} — '
                    f"{picture.wavefronts} wavefront(s), ideal {picture.ideal}</figcaption>"
                    f"{bank_map_svg(picture, f'{section.key}-{row.key}')}</figure>")
    table = (f'<table data-table="{html.escape(section.key)}"><thead><tr>{head}<th></th></tr></thead>'
             f"<tbody>{''.join(body)}</tbody></table>")
    return (f'<section data-section="{html.escape(section.key)}"><h2>{html.escape(section.title)}</h2>'
            f"{sentences}{table}{''.join(maps)}</section>")


_PAGE_STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.4em;margin-bottom:0}h2{font-size:1.15em;margin-top:1.6em}
.sub{color:#555;margin-top:.2em}
table{border-collapse:collapse;margin:.6em 0}
th,td{border:1px solid #ccc;padding:2px 8px;text-align:left}
td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.total td{font-weight:bold;background:#f4f4f4}
figure{margin:1em 0;overflow-x:auto}figcaption{font-size:.9em;color:#333;margin-bottom:.3em}
.legend span{display:inline-block;padding:0 6px;margin-right:8px;border:1px solid #999}
"""


def render_page(page: Page) -> str:
    """The whole HTML document."""
    legend = ('<p class="legend">rows: <span style="background:#eef8ee">no excess</span>'
              '<span style="background:hsl(0,75%,74%)">half the wavefronts excess</span>'
              '<span style="background:hsl(0,75%,54%)">all excess</span> bank maps: '
              '<span style="background:#cdebd3">first wavefront of a bank</span>'
              '<span style="background:#f3a5a5">each further distinct word (a conflict)</span></p>')
    sections = "".join(_section_html(s) for s in page.sections)
    notes = "".join(f"<p>{html.escape(n)}</p>" for n in page.notes)
    title = html.escape(page.title)
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
            f"<style>{_PAGE_STYLE}</style></head><body><h1>{html.escape(page.title)}</h1>"
            f'<p class="sub">{html.escape(page.subtitle)}</p>{legend}{sections}{notes}</body></html>\n')
