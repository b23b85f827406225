"""A bank map drawn with matplotlib into an image file (``bankism show --png``), written atomically."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from bankism.arch import LANES
from bankism.engine.bankmap import BankMap, lanes_text
from bankism.errors import BankismError
from bankism.files import replace, temporary_sibling


def _lane_colours(count: int) -> Any:
    import matplotlib

    return matplotlib.colormaps["hsv"](np.linspace(0.0, 1.0, count, endpoint=False))


def draw_png(bank_map: BankMap, title: str, path: Path) -> None:
    """Draw the bank map with matplotlib: banks across, wavefronts down, cells coloured by lane."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib import pyplot
    except ImportError:
        raise BankismError("--png needs matplotlib: pip install 'bankism[png]'") from None
    colours = _lane_colours(LANES)
    rows = len(bank_map.transactions)
    depths = [max((len(bank_map.words(t, b)) for b in range(len(bank_map.banks[t]))), default=1)
              for t in range(rows)]
    figure, axes = pyplot.subplots(rows, 1, figsize=(16, 1.2 + 0.9 * sum(max(d, 1) for d in depths)),
                                   squeeze=False, layout="constrained",
                                   gridspec_kw={"height_ratios": [max(d, 1) for d in depths]})
    for t, axis in enumerate(axes[:, 0]):
        lo, hi = bank_map.transactions[t]
        for bank in range(len(bank_map.banks[t])):
            for k, (word, lanes) in enumerate(bank_map.words(t, bank)):
                axis.add_patch(pyplot.Rectangle(
                    (bank, k), 1, 1, facecolor=colours[lanes[0]], edgecolor="red" if k else "black",
                    linewidth=1.5 if k else 0.5))
                axis.text(bank + 0.5, k + 0.5, f"w{word}\nL{lanes_text(lanes)}", ha="center", va="center",
                          fontsize=5)
        banks = len(bank_map.banks[t])
        axis.set_xlim(0, banks)
        axis.set_ylim(max(depths[t], 1), 0)
        axis.set_xticks(np.arange(banks) + 0.5, [str(b) for b in range(banks)], fontsize=6)
        axis.set_yticks(np.arange(max(depths[t], 1)) + 0.5,
                        [f"wavefront {k + 1}" for k in range(max(depths[t], 1))], fontsize=6)
        axis.set_title(f"transaction {t}: lanes {lo}-{hi - 1}, "
                       f"{bank_map.wavefronts_per_transaction[t]} wavefront(s)", fontsize=8, loc="left")
    axes[-1, 0].set_xlabel("bank")
    figure.suptitle(title, fontsize=9)
    _save_figure_atomically(figure, path)
    pyplot.close(figure)


def _save_figure_atomically(figure: Any, path: Path) -> None:
    kind = path.suffix.lstrip(".").lower() or "png"
    with temporary_sibling(path, f"--png {path}") as temp:
        try:
            figure.savefig(temp, format=kind, dpi=150)
        except ValueError as error:
            raise BankismError(f"--png {path}: {_one_line(error)}") from None
        replace(temp, path, f"--png {path}")


def _one_line(error: Exception) -> str:
    return " ".join(str(error).split())

