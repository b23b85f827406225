"""The bank map of one warp-instruction as HTML grids (Jupyter's view of a ``check`` report), and the
compact lane lists review prints."""

from __future__ import annotations

import itertools
from collections.abc import Iterable

import numpy as np

from bankism.engine.bankmap import BankMap


def lane_ranges(lanes: Iterable[int]) -> str:
    """Compact lane list: ``0-15,17,20-22``, or ``0,2,...,30`` for an evenly spaced list."""
    ordered = sorted(set(int(v) for v in lanes))
    steps = set(np.diff(ordered).tolist())
    if len(ordered) >= 4 and len(steps) == 1 and steps != {1}:
        return f"{ordered[0]},{ordered[1]},...,{ordered[-1]}"
    runs = []
    for _, group in itertools.groupby(enumerate(ordered), lambda p: p[1] - p[0]):
        run = [v for _, v in group]
        runs.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
    return ",".join(runs)


def bank_grid_html(bank_map: BankMap) -> str:
    """A 32-column grid per transaction: row r holds the lanes asking for each bank's r-th word."""
    tables = []
    for t, per_bank in enumerate(bank_map.banks):
        columns = [bank_map.words(t, b) for b in range(len(per_bank))]
        depth = max((len(c) for c in columns), default=0)
        head = "".join(f"<th>{b}</th>" for b in range(len(columns)))
        body = []
        for r in range(depth):
            cells = []
            for column in columns:
                if r < len(column):
                    word, lanes = column[r]
                    color = "#f99" if r else "#dfd"
                    cells.append(
                        f'<td style="background:{color}" title="word {word}">{lane_ranges(lanes)}</td>'
                    )
                else:
                    cells.append("<td></td>")
            body.append(f"<tr><th>{r + 1}</th>{''.join(cells)}</tr>")
        lo, hi = bank_map.transactions[t]
        tables.append(
            f"<p>transaction {t} (lanes {lo}-{hi - 1}): "
            f"{bank_map.wavefronts_per_transaction[t]} wavefront(s); "
            f"cells: lanes asking for the bank's n-th distinct word</p>"
            f'<table style="font-size:80%"><tr><th>bank</th>{head}</tr>{"".join(body)}</table>'
        )
    return "\n".join(tables)
