#!/usr/bin/env bash
# Device run 16 of issue 21, from the repository root on the GPU machine: the one-shot tile probe
# (hw/surplus/oneshot.cu) over hw/surplus/oneshot_configs.txt, checked without the profiler, then under the
# counters of run 14 (shared ld/st instructions, hardware and SASS-instrumented address-level wavefronts, L1
# fills, global load/store sectors, SM cycles, warps active). Brings back $OUT/run16.tgz.
set -u
. hw/surplus/device_common.sh
OUT=${OUT:-/tmp/run16-out}
B=build/run16
mkdir -p "$OUT/r" "$B"
T0=$(date +%s)
elapsed() { echo $(( $(date +%s) - T0 )); }
write_env "$OUT/r/env.txt"
nvcc -O3 -arch=sm_90 -lineinfo -o "$B/oneshot" hw/surplus/oneshot.cu > "$B/oneshot.log" 2>&1
echo "built rc=$? seconds=$(elapsed)"; head -5 "$B/oneshot.log"
"$B/oneshot" hw/surplus/oneshot_configs.txt > "$OUT/r/oneshot.stdout" 2>&1
echo "plain run rc=$? seconds=$(elapsed): $(grep -c ' OK$' "$OUT/r/oneshot.stdout") OK; $(tail -1 "$OUT/r/oneshot.stdout")"
METRICS=$TILE_METRICS,\
launch__shared_mem_config_size
t=$(date +%s)
timeout 420 ncu --csv --page raw --cache-control none --clock-control none -k regex:^oneshot \
    --metrics "$METRICS" "$B/oneshot" hw/surplus/oneshot_configs.txt > "$OUT/r/oneshot.csv" 2> "$OUT/r/oneshot.err"
echo "ncu rc=$? seconds=$(( $(date +%s) - t )) rows=$(grep -c '^"' "$OUT/r/oneshot.csv")"
tar czf "$OUT/run16.tgz" -C "$OUT/r" .
echo "total seconds $(elapsed)"
