"""Fit the per-kind cycle model cycles = max(floor, per_wavefront * wavefronts) to traces/cycles.

Prints, per instruction kind, the fitted parameters and the model's error over the
measured rows; bankism/arch.py carries the fitted values and tests/test_cycles_model.py
checks that they still fit. Run: python hw/fit_cycles.py [FILE.json ...] (default: traces/cycles/*.json)
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path
from statistics import median

CYCLES = Path(__file__).resolve().parent.parent / "traces" / "cycles"


def kind_of(row: dict) -> tuple:
    atomic_op = row.get("atomic_kind") or ("add" if row["op"] == "atomic" else "")
    return (row["op"], row["width"], row.get("matrices"), atomic_op)


def fit(rows: list[dict]) -> dict[tuple, dict]:
    """Per kind: per_wavefront (median cycles/wavefront at >= 4 wavefronts), floor, errors."""
    by_kind: dict[tuple, list[tuple[float, float]]] = defaultdict(list)
    for row in rows:
        by_kind[kind_of(row)].append((row["wavefronts_per_instruction"], row["cycles_per_instruction"]))
    fitted = {}
    for kind, points in sorted(by_kind.items(), key=str):
        steep = [c / w for w, c in points if w >= 4] or [c / w for w, c in points]
        per = round(median(steep), 2)
        fewest = min(w for w, _ in points)
        floor = round(max(c for w, c in points if w == fewest), 2)
        errors = [abs(max(floor, per * w) - c) / c for w, c in points]
        fitted[kind] = {"per_wavefront": per, "floor": floor, "rows": len(points),
                        "mean_error": sum(errors) / len(errors), "max_error": max(errors)}
    return fitted


def main() -> None:
    paths = [Path(arg) for arg in sys.argv[1:]] or sorted(CYCLES.glob("*.json"))
    rows = []
    for path in paths:
        document = json.loads(path.read_text())
        print(f"{path.name}: {document['environment']['gpu']}, driver {document['environment']['driver']}")
        rows.extend(document["rows"])
    print("| kind | rows | cycles per wavefront | floor | mean error | max error |")
    print("|---|---|---|---|---|---|")
    for kind, f in fit(rows).items():
        name = " ".join(str(part) for part in kind if part not in (None, ""))
        print(f"| {name} | {f['rows']} | {f['per_wavefront']} | {f['floor']} | "
              f"{100 * f['mean_error']:.2f}% | {100 * f['max_error']:.2f}% |")


if __name__ == "__main__":
    main()
