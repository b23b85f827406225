"""Collect the H100 check of explain on scout 8's public kernels (device call 3 of 2026-11-25) into
traces/explain_check/scout8_h100.json: `bankism explain --trace` run here on the returned traces (every block
recorded with `bankism record --blocks all`; explain compares 16 blocks spread over the grid).

python3 hw/explain_check/collect_scout8.py TRACES_DIR TRACE_RESULTS_DIR COMMANDS
(TRACES_DIR: the returned <name>.json; TRACE_RESULTS_DIR: <name>.trace.json of explain --json --trace run
locally; COMMANDS: the explain command of each, tab-separated after its name.) The drivers and the public
sources stay outside the repository (.carry/scout8check, not committed)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from collect_scout7 import _trace_summary, write_check  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "traces" / "explain_check" / "scout8_h100.json"


def main(traces: str, results: str, commands: str) -> None:
    kernels = []
    for line in Path(commands).read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, command = line.split("\t", 1)
        launch = json.loads((Path(traces) / f"{name}.json").read_text())["launches"][0]
        flags = command.split(" --trace ")[0].split(" ", 2)[-1].replace("$B explain ", "")
        kernels.append({"name": name, "kernel": launch["kernel"], "grid": launch["grid"],
                        "block": launch["block"],
                        "explain_flags": flags.replace("/work/scout8/src/", ""),
                        "explain_trace": _trace_summary(Path(results) / f"{name}.trace.json")})
    write_check(OUT, (
        "explain line by line against the H100 trace of 8 public kernels from 7 repositories of scout "
        "8 (none used by an earlier scout), each run once by a driver of our own outside the repository, "
        "every block recorded with `bankism record --blocks all`; explain_trace: `bankism explain "
        "--trace` run here on the returned traces (16 blocks spread over the grid): lines, their "
        "verdicts, and per class explain's launch totals beside ncu's"),
        "device call 3 of this session (.carry/scout8check/device.sh)", kernels)

if __name__ == "__main__":
    main(*sys.argv[1:4])
