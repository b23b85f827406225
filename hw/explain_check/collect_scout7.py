"""Collect the H100 check of explain on scout 7's public kernels (device call of 2026-11-25) into
traces/explain_check/scout7_h100.json: the device's compare.json (saved explain, block (0,0,0) and per
class, beside the trace and ncu) and `bankism explain --trace` run here on the returned traces.

python3 hw/explain_check/collect_scout7.py DEVICE_OUT TRACE_RESULTS_DIR
(DEVICE_OUT: the call's files; TRACE_RESULTS_DIR: <name>.trace.json of explain --json --trace, run locally.)
The drivers and the public sources stay outside the repository (.carry/scout7check, not committed)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "traces" / "explain_check" / "scout7_h100.json"


def _trace_summary(path: Path) -> dict | None:
    if not path.exists():
        return None
    report = json.loads(path.read_text())
    trace = report["trace"]
    verdicts: dict[str, int] = {}
    for entry in trace["lines"]:
        for group in entry["groups"]:
            verdicts[group["verdict"]] = verdicts.get(group["verdict"], 0) + 1
    totals = trace["totals"]
    measured = totals["measured"] or {}
    classes = {}
    for name, ours in totals["source"].items():
        theirs = measured.get(name) or {}
        if ours["instructions"] or theirs.get("instructions"):
            classes[name] = {
                "explain": {"instructions": ours["instructions"], "wavefronts": ours["wavefronts"]},
                "ncu": {"instructions": theirs.get("instructions"), "wavefronts": theirs.get("wavefronts")}}
    return {"blocks_compared": len(report["launch"]["blocks"]), "lines": len(trace["lines"]),
            "lines_as_written": sum(e["same_instructions"] and bool(e["same_addresses"])
                                    for e in trace["lines"]),
            "verdicts": verdicts, "classes": classes}


def main(device: str, results: str) -> None:
    compare = json.loads((Path(device) / "compare.json").read_text())
    kernels = []
    for entry in compare["kernels"]:
        saved = entry["saved"]
        kernels.append({
            "name": entry["name"], "source": entry["source"].removeprefix("src/"), "tensor_core": entry["tc"],
            "explain_flags": entry["flags"], "kernel": saved.get("trace_kernel"), "grid": saved.get("grid"),
            "block": saved.get("block"),
            "block_0": {k: saved[k] for k in ("lines", "summary") if k in saved},
            "per_class": saved.get("classes"),
            "explain_trace": _trace_summary(Path(results) / f"{entry['name']}.trace.json"),
        })
    write_check(OUT, (
        "explain line by line against the H100 trace of 8 public kernels from 7 repositories of scout 7 "
        "(none used by an earlier scout); each run once by a driver of our own outside the repository, "
        "every block recorded with `bankism record --blocks all`. block_0: explain's block (0,0,0) "
        "beside the trace's SASS in the same block; per_class: explain x blocks beside the trace's "
        "engine counts and ncu; explain_trace: `bankism explain --trace` run here on the returned "
        "traces (16 blocks spread over the grid), null where the trace's records exceeded what the "
        "call could return"), "device call 1 of this session (.carry/scout7check/run.sh)", kernels)


def write_check(out: Path, description: str, run: str, kernels: list[dict]) -> None:
    """Write one explain check's JSON (format bankism-explain-check) with the H100's environment."""
    doc = {
        "format": "bankism-explain-check", "version": 1, "description": description,
        "environment": {"gpu": "NVIDIA H100 80GB HBM3", "driver": "580.159.04", "cuda": "13.0 (V13.0.88)",
                        "ncu": "2025.3.1.0 (build 36398880)", "date": "2026-11-25", "run": run},
        "kernels": kernels,
    }
    out.write_text(json.dumps(doc, indent=1) + "\n")

if __name__ == "__main__":
    main(*sys.argv[1:3])
