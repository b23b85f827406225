"""Collect hunt 7 (one device call, 2026-11-25: 3 public conflicting/fixed pairs timed, 7 public programs
recorded whole) into traces/: the pairs in traces/timing/public/hunt7_pairs.json (the format of
heldout_pairs.json, plus the L2 slices' busiest and mean throughput), the programs' per-class verdicts in
traces/record_public/hunt7_programs.json. The programs and drivers were built and run outside the
repository (its README names each source); this reads the device's unpacked output.

    python hw/heldout/collect_hunt7.py /work/hunt7/device
"""

from __future__ import annotations

import csv
import json
import re
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENVIRONMENT = {"gpu": "NVIDIA H100 80GB HBM3", "driver": "580.159.04", "cuda": "13.0 (V13.0.88)",
               "ncu": "2025.3.1.0"}
PAIRS = {
    "chtholly_mma": ("Chtholly-Boss/swizzle", "2ddfdc0", "mma::mma_multi_pattern_simple / "
                     "mma_multi_pattern_swizzle, 16x16 WMMA rounds over half[16*256] tiles, 32768 x (32,16)",
                     "XOR swizzle of the 16-byte chunks, read with ldmatrix.x4; keeps the C tile's "
                     "4-way stores"),
    "yuan_reduce": ("Yuan-998/cuda_reduction", "742356c", "reduce2 / reduce3, block sums of 2^24 long "
                    "values in int shared memory, 65536 x 256",
                    "interleaved (2*s*tid) -> sequential addressing"),
    "dnguyen_scan": ("dnguyen1196/cuda_parallel_prefix_sum", "a55aa1f", "better_parallel_scan / "
                     "conflict_free_parallel_scan, Blelloch scan of 1024 ints, 32768 x 512",
                     "padding n + (n >> 5)"),
}
PAIRS_DESCRIPTION = (
    "Hunt 7 (2026-11-25, one device call): three public conflicting/fixed pairs from three repositories "
    "no earlier check used, timed as timecheck 3 (ncu durations, median of 5, locked; cudaEvent medians "
    "of 30 alternating launches after 5 warm-ups at 1980 MHz; outputs bitwise equal). "
    "model_at_measurement is what `analyze` said on the device (the model of this round, wait exponent "
    "0.5). l2_slices: lts__throughput max and avg over the L2 slices (% of peak over the launch) of both "
    "variants. Two kernels have no block index: every block writes the same output, so one L2 slice is "
    "busy 87-89% of the launch."
)
PROGRAMS_DESCRIPTION = (
    "Hunt 7: seven public programs recorded whole with `bankism record` on the H100 and checked with "
    "`bankism analyze` (a Triton SwiGLU/LayerNorm with PyTorch's own layer norm, a Numba tiled matmul, "
    "four Hopper feature demos: wgmma from shared-memory descriptors, TMA multicast to a cluster, "
    "distributed shared memory, a TMA load; a swizzled ldmatrix + mma.sync) and the three pairs' "
    "conflicting kernels; per launch, analyze's per-counter figures."
)
L2 = "lts__throughput.{}.pct_of_peak_sustained_elapsed"


def l2_slices(path: Path) -> dict[str, float]:
    """The busiest and the mean L2 slice's throughput (% of peak over the launch) from ncu's raw CSV."""
    row = next(r for r in csv.DictReader(path.open()) if r.get("ID", "").strip().isdigit())
    return {"max_pct": float(row[L2.format("max")]), "avg_pct": float(row[L2.format("avg")])}


def ncu_durations(path: Path) -> dict[str, float]:
    """kernel base name -> median ncu duration (ns) of its launches."""
    found: dict[str, list[float]] = {}
    for row in csv.DictReader(line for line in path.open() if line.startswith('"')):
        if row.get("Metric Name") == "gpu__time_duration.sum":
            name = re.sub(r"\(.*", "", row["Kernel Name"]).split("::")[-1]
            found.setdefault(name, []).append(float(row["Metric Value"].replace(",", "")))
    return {name: statistics.median(values) for name, values in found.items()}


def event_medians(timing: str, pair: str) -> tuple[float, float]:
    values = dict(re.findall(rf"^{pair},(conflict|fixed),median_us=([\d.]+)", timing, re.M))
    return float(values["conflict"]), float(values["fixed"])


def pair_entry(device: Path, pair: str, timing: str) -> dict:
    repo, commit, kernels, fix = PAIRS[pair]
    traces = device / "traces"
    conflicting = json.loads((traces / f"{pair}_conflict.json").read_text())["launches"][0]
    fixed = json.loads((traces / f"{pair}_fixed.json").read_text())["launches"][0]
    report = json.loads((device / "analyze" / f"{pair}.analyze.json").read_text())["launches"][0]
    durations = sorted(ncu_durations(device / "ncu" / f"{pair}.csv").items())
    (_, conflict_ns), (_, fixed_ns) = sorted(durations, key=lambda item: -item[1])
    event_conflict, event_fixed = event_medians(timing, pair)
    fix_figures = report["fix"]
    slices = {"conflicting": l2_slices(traces / f"{pair}_conflict.ncu-raw.csv"),
              "fixed": l2_slices(traces / f"{pair}_fixed.ncu-raw.csv")}
    # the busiest slice, from the raw page of the same ncu run (the time block read it only after this run)
    conflicting["time"]["l2_slice_max_pct"] = slices["conflicting"]["max_pct"]
    fixed["time"]["l2_slice_max_pct"] = slices["fixed"]["max_pct"]
    return {
        "pair": pair, "check": "hunt7", "repo": repo, "commit": commit, "kernels": kernels, "fix": fix,
        "counters": conflicting["counters"], "excess_wavefronts": fix_figures["excess_wavefronts"],
        "time": conflicting["time"], "fixed_time": fixed["time"], "fixed_counters": fixed["counters"],
        "measured": {"locked_conflicting_ns": conflict_ns, "locked_fixed_ns": fixed_ns,
                     "event_conflicting_us": event_conflict, "event_fixed_us": event_fixed},
        "ncu_rule_estimate": round(fix_figures["ncu_estimate"], 4),
        "model_at_measurement": {
            "locked_saved_fraction": round(fix_figures["saved_fraction"], 4),
            "own_saved_fraction": round(fix_figures["application"]["saved_fraction"], 4)},
        "l2_slices": slices,
    }


def launch_entry(launch: dict) -> dict:
    """One analyzed launch: its shape, sampling, verdict and every class's measured/predicted counters."""
    classes: dict[str, dict] = {}
    for row in launch["comparison"]:
        classes.setdefault(row["class"], {})[row["metric"]] = {
            "measured": row["measured"], "predicted": row["predicted"], "within": row["within_tolerance"]}
    return {"kernel": launch["kernel"][:120], "grid": launch["grid"], "block": launch["block"],
            "blocks_recorded": launch["blocks_recorded"], "blocks_total": launch["blocks_total"],
            "agrees": launch["agrees"], "classes": classes}


def program_entries(device: Path) -> list[dict]:
    """Every launch of the programs and of the pairs' conflicting kernels."""
    out = []
    for path in sorted((device / "analyze").glob("*.analyze.json")):
        name = path.name.removesuffix(".analyze.json")
        for launch in json.loads(path.read_text())["launches"]:
            out.append({"program": f"{name}_conflict" if name in PAIRS else name, **launch_entry(launch)})
    return out


def main(device: Path) -> None:
    timing = (device / "timing.csv").read_text()
    pairs = [pair_entry(device, pair, timing) for pair in PAIRS]
    (ROOT / "traces" / "timing" / "public" / "hunt7_pairs.json").write_text(json.dumps({
        "format": "bankism-public-timing-heldout",
        "description": PAIRS_DESCRIPTION,

        "environment": ENVIRONMENT, "pairs": pairs}, indent=1) + "\n")
    (ROOT / "traces" / "record_public" / "hunt7_programs.json").write_text(json.dumps({
        "format": "bankism-public-programs",
        "description": PROGRAMS_DESCRIPTION,

        "environment": ENVIRONMENT,
        "launches": program_entries(device)}, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
