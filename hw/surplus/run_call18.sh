#!/usr/bin/env bash
# Device run 18 of issue 21, from the repository root on the GPU machine: hw/surplus/ldsgap.cu over
# hw/surplus/ldsgap_configs.txt (the stored transposes' code with integer work between each shared load and
# its global store, and before the first global load), checked without the profiler, then under ncu's
# defaults (as `bankism record` profiles) with the counters of run 17. Brings back $OUT/run18.tgz.
set -u
. hw/surplus/device_common.sh
OUT=${OUT:-/tmp/run18-out}
B=build/run18
mkdir -p "$OUT/r" "$B"
T0=$(date +%s)
elapsed() { echo $(( $(date +%s) - T0 )); }
write_env "$OUT/r/env.txt"
nvcc -O3 -arch=sm_90 -lineinfo -o "$B/ldsgap" hw/surplus/ldsgap.cu > "$B/ldsgap.log" 2>&1
echo "built rc=$? seconds=$(elapsed)"; head -5 "$B/ldsgap.log"
cuobjdump -sass "$B/ldsgap" > "$OUT/r/ldsgap.sass" 2>&1
"$B/ldsgap" hw/surplus/ldsgap_configs.txt > "$OUT/r/ldsgap.stdout" 2>&1
echo "plain run rc=$? seconds=$(elapsed): $(grep -c ' OK$' "$OUT/r/ldsgap.stdout") OK; $(tail -1 "$OUT/r/ldsgap.stdout")"
METRICS=$TILE_METRICS,\
launch__shared_mem_config_size,gpc__cycles_elapsed.avg.per_second
t=$(date +%s)
timeout 300 ncu --csv --page raw -k regex:^ldsgap --metrics "$METRICS" "$B/ldsgap" hw/surplus/ldsgap_configs.txt \
    > "$OUT/r/ldsgap.csv" 2> "$OUT/r/ldsgap.err"
echo "ncu rc=$? seconds=$(( $(date +%s) - t )) rows=$(grep -c '^"' "$OUT/r/ldsgap.csv")"
tar czf "$OUT/run18.tgz" -C "$OUT/r" .
echo "total seconds $(elapsed)"
