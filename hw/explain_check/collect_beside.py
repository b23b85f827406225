"""Collect the H100 check of explain on kernels whose files do not launch them (2026-11-25, two device
calls of about 17 s) into traces/explain_check/beside_h100.json: two public programs built outside the
repository (sreya-rc/cuda-gemm-softmax-kernels: its main.cu launches gemm_tiled and softmax_tiled, compiled
apart; amapara27/cuda-reductions: scripts/layer-norm/runner.cu includes kernels/layer_norm.cuh), recorded
whole with `bankism record`; `bankism explain KERNEL_FILE --trace TRACE --json` run here, the launch's
scalar arguments taken from the runner found beside the kernel's file.

python3 hw/explain_check/collect_beside.py CHECK_DIR   (CHECK_DIR: sreya/, amapara/ and tr/ as returned)
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from collect_scout7 import _trace_summary, write_check  # noqa: E402

OUT = Path(__file__).resolve().parents[2] / "traces" / "explain_check" / "beside_h100.json"
#: name -> (program directory, kernel file, trace, launch index in the trace)
KERNELS = {
    "sreya_gemm_tiled": ("sreya", "src/gemm_tiled.cu", "sreya.json", 1),
    "sreya_softmax_tiled": ("sreya", "src/softmax_tiled.cu", "sreya.json", 3),
    "amapara_layer_norm": ("amapara", "kernels/layer_norm.cuh", "amapara.json", 0),
}


def _line_figures(entry: dict) -> dict:
    """One compared line's source and SASS figures (instructions, wavefronts) per op, and its verdicts."""
    def figures(side: list[dict]) -> dict:
        return {f"{item['op']}": [item["instructions"], item["wavefronts"]] for item in side}
    return {"line": entry["line"], "source": figures(entry["source"]), "sass": figures(entry["sass"]),
            "verdicts": [group["verdict"] for group in entry["groups"]]}


def main(check: str) -> None:
    root = Path(check)
    kernels = []
    for name, (program, source, trace, index) in KERNELS.items():
        command = [sys.executable, "-m", "bankism", "explain", source, "--trace", f"../tr/{trace}",
                   "--launch", str(index), "--json"]
        ran = subprocess.run(command, cwd=root / program, capture_output=True, text=True, check=True)
        result = root / f"{name}.trace.json"
        result.write_text(ran.stdout)
        report = json.loads(ran.stdout)
        launches = json.loads((root / "tr" / trace).read_text())["launches"]
        launch = next(entry for entry in launches if entry["index"] == index)
        kernels.append({"name": name, "kernel": launch["kernel"], "grid": launch["grid"],
                        "block": launch["block"], "explain_flags": " ".join(command[3:]),
                        "launch_from": report["launch"]["from"], "explain_trace": _trace_summary(result),
                        "atomic_lines": [_line_figures(entry) for entry in report["trace"]["lines"]
                                         if any(group["op"] == "atomic" for group in entry["groups"])]})
    write_check(OUT, (
        "explain against the H100 trace of three public kernels whose own files do not launch them (the "
        "launch found beside the file: a main.cu compiled apart, a runner including the header), recorded "
        "with `bankism record` (gemm_tiled and softmax_tiled: blocks sampled; layer_norm: every block); "
        "explain_trace: `bankism explain --trace` here, 16 blocks spread over the grid"),
        "two device calls of this session (.carry/beside/device.sh)", kernels)


if __name__ == "__main__":
    main(sys.argv[1])
