"""Tabulate traces/probes: per instruction kind, the probe families and how many the engine matches.

Run: python hw/probe_report.py  (prints the Markdown table used in docs/rules.md)
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import numpy as np

import bankism
from bankism.arch import NCU_COUNTER_OF_OP

PROBES = Path(__file__).resolve().parent.parent / "traces" / "probes" / "sm_90_probes.json"


def main() -> None:
    document = json.loads(PROBES.read_text())
    by_kind: dict[tuple, list[dict]] = defaultdict(list)
    for probe in document["probes"]:
        key = (probe["op"], probe["width"], probe.get("matrices"), probe.get("atomic_kind") or "",
               probe.get("trans", False))
        by_kind[key].append(probe)
    print("| kind | SASS | probes | families | engine = ncu (wavefronts and conflicts) |")
    print("|---|---|---|---|---|")
    total = matched = 0
    for (op, width, matrices, atomic_op, trans), probes in sorted(by_kind.items(), key=str):
        name = f"{op} x{matrices}{' .trans' if trans else ''}" if matrices else (
            f"{op} {atomic_op} {width} B" if atomic_op else f"{op} {width} B")
        families = sorted({p["family"] for p in probes})
        sass = probes[0].get("sass", "")
        try:
            result = bankism.simulate(
                np.asarray([p["addresses"] for p in probes]), width=width, op=op,
                active=np.asarray([p["active"] for p in probes]), matrices=matrices,
                atomic_op=atomic_op or "add",
            )
        except bankism.BankismError:
            refused = "not one instruction: refused"
            print(f"| {name} | {sass} | {len(probes)} | {', '.join(families)} | {refused} |")
            continue
        counter = NCU_COUNTER_OF_OP[op]
        ok = sum(
            (int(result.wavefronts[i]), int(result.conflicts[i]))
            == (p["counters"][counter]["wavefronts"], p["counters"][counter]["conflicts"])
            for i, p in enumerate(probes)
        )
        total += len(probes)
        matched += ok
        print(f"| {name} | {sass} | {len(probes)} | {', '.join(families)} | {ok}/{len(probes)} |")
    print(f"\n{matched}/{total} single-instruction probes reproduced exactly.")


if __name__ == "__main__":
    main()
