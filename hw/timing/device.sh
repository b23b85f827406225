#!/usr/bin/env bash
# Device-side driver for issue 22 (what a bank conflict costs in time), run from the repository root on the
# GPU machine with .carry/time carried: the prebuilt `pairs` binary (hw/timing/pairs.cu), pairs.cu itself,
# jsonschema wheels (whl/) and, for STEPS=record, a copy of bankism/ (code/).
#
#   STEPS="env time ncu ncu_app sass rule trace" bash .carry/time/device.sh
#
# - env:     GPU, driver, clocks, nvcc, ncu versions
# - time:    `pairs time`: cudaEvent medians of 30 launches per kernel at the clocks the GPU runs at
# - ncu:     every kernel under ncu's default clock control (locked base clocks): the sections and metrics
#            a time model may need (metrics.txt; names missing from this ncu are dropped first)
# - ncu_app: the same launches under --clock-control none (application clocks), fewer metrics
# - sass:    cuobjdump -sass of the binary
# - rule:    the Nsight Compute rule files that compute the bank-conflict "Est. Speedup" (read, not committed)
# - trace:   `bankism trace` of every conflicting kernel (a subset of its blocks)
# - record:  `bankism record` (the carried bankism/) of every conflicting kernel, `bankism profile` of the
#            fixed ones: the time block's metrics
# Results: $OUT/log.txt and $OUT/results.tgz.
set -u
OUT=${OUT:-/tmp/timing-out}
C=.carry/time
STEPS=${STEPS:-"env time ncu ncu_app sass rule trace"}
R=build/timing
mkdir -p "$OUT" "$R/traces" "$R/raw"
export PYTHONUNBUFFERED=1
has() { [[ " $STEPS " == *" $1 "* ]]; }
now() { date +%s; }
PAIRS=$C/pairs
chmod +x "$PAIRS"
KERNELS='regex:^(col32|quad_fma|lds64|lds128|sts2|transpose|transpose64|mma_ldsm|wmma|hist|cpasync|chase)_(conflict|fixed)$'

{
if has env; then
    echo "===== env $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.sm,clocks.max.sm,clocks.applications.graphics,clocks.mem,clocks.max.mem,power.limit,temperature.gpu --format=csv
    nvcc --version | tail -2
    ncu --version | tail -1
    echo "ncu: $(readlink -f "$(command -v ncu)")"
    $PAIRS clock
fi

if has time; then
    echo "===== time"
    t0=$(now)
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv,noheader -lms 200 > "$R/smi_during_time.csv" 2>&1 &
    SMI=$!
    timeout 200 $PAIRS time | tee "$R/timing.csv"
    echo "time rc=${PIPESTATUS[0]} seconds=$(( $(now) - t0 ))"
    kill $SMI 2>/dev/null
    sort "$R/smi_during_time.csv" | uniq -c | sort -rn | head -8
fi

if has ncu || has ncu_app; then
    ncu --query-metrics --chip gh100 > "$R/query.txt" 2>&1
    echo "query lines: $(wc -l < "$R/query.txt")"
    python3 - "$C/metrics.txt" "$R/query.txt" "$R/metrics_ok.txt" "$C/metrics_app.txt" "$R/metrics_app_ok.txt" <<'PY'
import re, sys
known = {line.split()[0] for line in open(sys.argv[2]) if line.strip() and re.match(r"^[a-z0-9_]+__", line.split()[0])}
for src, dst in ((sys.argv[1], sys.argv[3]), (sys.argv[4], sys.argv[5])):
    keep, drop = [], []
    for name in (l.strip() for l in open(src)):
        if not name or name.startswith("#"):
            continue
        base = name.split(":", 1)[-1].split(".", 1)[0]
        (keep if base in known else drop).append(name)
    open(dst, "w").write(",".join(keep))
    print(f"{src}: {len(keep)} kept, dropped: {drop}")
PY
fi

SECTIONS="--section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section ComputeWorkloadAnalysis --section SchedulerStats --section WarpStateStats --section Occupancy --section LaunchStats --section InstructionStats"
if has ncu; then
    echo "===== ncu (default clock control)"
    t0=$(now)
    timeout 240 ncu $SECTIONS --metrics "$(cat $R/metrics_ok.txt)" -k "$KERNELS" -f -o "$R/base" $PAIRS run all both > "$R/ncu_base.log" 2>&1
    rc=$?
    if [ $rc != 0 ]; then
        tail -5 "$R/ncu_base.log"
        echo "ncu failed (rc=$rc): retrying without breakdown metrics"
        tr ',' '\n' < "$R/metrics_ok.txt" | grep -v '^breakdown:' | paste -sd, > "$R/metrics_nb.txt"
        timeout 240 ncu $SECTIONS --metrics "$(cat $R/metrics_nb.txt)" -k "$KERNELS" -f -o "$R/base" $PAIRS run all both > "$R/ncu_base.log" 2>&1
        rc=$?
    fi
    echo "ncu rc=$rc seconds=$(( $(now) - t0 ))"
    grep -E "FAIL|rror" "$R/ncu_base.log" | head
    ncu --import "$R/base.ncu-rep" --csv --page raw --print-units base > "$R/base_raw.csv" 2>&1
    ncu --import "$R/base.ncu-rep" --page details --print-units base > "$R/base_details.txt" 2>&1
    grep -c "" "$R/base_raw.csv" "$R/base_details.txt"
    grep -E "^  [a-z0-9_]+_(conflict|fixed)|Est. Speedup|bank conflict" "$R/base_details.txt" | head -80
fi

if has ncu_app; then
    echo "===== ncu --clock-control none"
    t0=$(now)
    timeout 150 ncu --clock-control none --metrics "$(cat $R/metrics_app_ok.txt)" -k "$KERNELS" -f -o "$R/app" $PAIRS run all both > "$R/ncu_app.log" 2>&1
    echo "ncu_app rc=$? seconds=$(( $(now) - t0 ))"
    ncu --import "$R/app.ncu-rep" --csv --page raw --print-units base > "$R/app_raw.csv" 2>&1
    grep -c "" "$R/app_raw.csv"
fi

if has sass; then
    cuobjdump -sass "$PAIRS" > "$R/sass.txt" 2>&1
    echo "sass lines: $(wc -l < "$R/sass.txt")"
fi

if has rule; then
    echo "===== ncu rules"
    NCU_HOME=$(dirname "$(readlink -f "$(command -v ncu)")")
    for d in "$NCU_HOME/sections" "$NCU_HOME/../sections" "$HOME/Documents/NVIDIA Nsight Compute"/*/Sections; do
        [ -d "$d" ] && echo "sections: $d" && ls "$d" | head -80
    done
    mkdir -p "$R/rules"
    for f in "$NCU_HOME"/sections/SharedMemoryConflicts.py "$NCU_HOME"/../sections/SharedMemoryConflicts.py \
             "$HOME/Documents/NVIDIA Nsight Compute"/*/Sections/SharedMemoryConflicts.py; do
        [ -f "$f" ] && cp "$f" "$R/rules/" && echo "rule file: $f" && grep -n -i "speedup\|throughput\|conflict.*wavefront\|def " "$f" | head -40
    done
fi

if has trace || has record; then
    mkdir -p hw/timing && cp $C/pairs.cu hw/timing/pairs.cu
    if ! python3 -c 'import jsonschema' 2>/dev/null; then
        python3 -m pip install -q --upgrade --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site $C/whl/*.whl
        export PYTHONPATH=/tmp/site
    fi
    # record runs the carried bankism (python -m puts the working directory first on sys.path)
    if has record; then rm -rf bankism && cp -r $C/code/bankism bankism; fi
    python3 -c 'import bankism, jsonschema; print("bankism from", bankism.__file__)'
    python3 -c 'from bankism.capture import build, toolkit; b = build.build_tracer(toolkit.find_toolkit()); print("tracer", b.library)'
fi

# name blocks: the subset of blocks recorded (all blocks of a launch do the same shared-memory work)
ENTRIES="col32 first:4;quad_fma first:2;lds64 first:2;lds128 first:4;sts2 first:2;transpose first:512;transpose64 first:512;mma_ldsm first:2;wmma first:2;hist first:3;cpasync first:32;chase first:1"
if has trace; then
    echo "===== trace"
    IFS=';' read -ra entries <<< "$ENTRIES"
    for entry in "${entries[@]}"; do
        read -r name blocks <<< "$entry"
        t0=$(now)
        timeout 100 python3 -m bankism trace -o "$R/traces/${name}_conflict.json" --kernel "^${name}_conflict\$" \
            --blocks "$blocks" --source hw/timing/pairs.cu --timeout 80 \
            --description "issue 22 pair $name, conflicting kernel (hw/timing/pairs.cu), blocks $blocks" \
            -- $PAIRS run $name conflict > "$R/trace_$name.log" 2>&1
        echo "trace $name rc=$? seconds=$(( $(now) - t0 ))"; tail -2 "$R/trace_$name.log"
    done
fi

if has record; then
    echo "===== record"
    IFS=';' read -ra entries <<< "$ENTRIES"
    for entry in "${entries[@]}"; do
        read -r name blocks <<< "$entry"
        t0=$(now)
        timeout 120 python3 -m bankism record -o "$R/traces/${name}_conflict.json" --kernel "^${name}_conflict\$" \
            --blocks "$blocks" --source hw/timing/pairs.cu --timeout 80 --csv "$R/traces/${name}_conflict.ncu-raw.csv" \
            --description "issue 22 pair $name, conflicting kernel (hw/timing/pairs.cu), blocks $blocks" \
            -- $PAIRS run $name conflict > "$R/record_$name.log" 2>&1
        echo "record $name rc=$? seconds=$(( $(now) - t0 ))"; tail -3 "$R/record_$name.log"
    done
    t0=$(now)
    timeout 150 python3 -m bankism profile -o "$R/traces/fixed.json" --kernel '_fixed\(' --csv "$R/traces/fixed.ncu-raw.csv" \
        -- $PAIRS run all fixed > "$R/profile_fixed.log" 2>&1
    echo "profile fixed rc=$? seconds=$(( $(now) - t0 ))"; tail -14 "$R/profile_fixed.log"
fi
date -u
} 2>&1 | tee "$OUT/log.txt"

tar -czf "$OUT/results.tgz" --exclude='*.ncu-rep' --exclude='*.cubin' "$R" 2>/dev/null
cp "$R"/*.ncu-rep "$OUT/" 2>/dev/null
ls -la "$OUT"
