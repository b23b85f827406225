#!/usr/bin/env bash
# Device run 17 of issue 21, from the repository root on the GPU machine (.carry/run17 carried: a copy of
# traces/kernels/sgemm_regtile.cu, since traces/ does not travel). Do ncu's clock and cache settings move the
# surplus? Every probe so far ran under --clock-control none --cache-control none; `bankism record` runs ncu
# with its defaults (clocks locked at base, caches flushed before each pass).
#   1. the one-shot probe (hw/surplus/oneshot.cu) over hw/surplus/oneshot_configs.txt under ncu's defaults;
#   2. the stored surplus programs (hw/surplus/kernels, the corpus SGEMM) under both settings.
# The counters of run 16, with the shared atomics' and the SM clock. Brings back $OUT/run17.tgz.
set -u
. hw/surplus/device_common.sh
OUT=${OUT:-/tmp/run17-out}
CARRY=${CARRY:-.carry/run17}
B=build/run17
mkdir -p "$OUT/r" "$B"
T0=$(date +%s)
elapsed() { echo $(( $(date +%s) - T0 )); }
write_env "$OUT/r/env.txt"
build() { nvcc -O3 -arch=sm_90 -lineinfo -o "$B/$1" "$2" > "$B/$1.log" 2>&1; }
build oneshot hw/surplus/oneshot.cu &
for k in transpose_f64 transpose_tiled colsum_f64 shared_counters wmma_hgemm; do build "$k" "hw/surplus/kernels/$k.cu" & done
build sgemm_regtile "$CARRY/sgemm_regtile.cu" &
wait
echo "built seconds=$(elapsed)"; cat "$B"/*.log | head -5
METRICS=$TILE_METRICS,smsp__sass_inst_executed_op_shared_atom.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,\
launch__shared_mem_config_size,gpc__cycles_elapsed.avg.per_second
t=$(date +%s)
timeout 240 ncu --csv --page raw -k regex:^oneshot --metrics "$METRICS" "$B/oneshot" hw/surplus/oneshot_configs.txt \
    > "$OUT/r/oneshot_defaults.csv" 2> "$OUT/r/oneshot_defaults.err"
echo "oneshot under ncu's defaults rc=$? seconds=$(( $(date +%s) - t )) rows=$(grep -c '^"' "$OUT/r/oneshot_defaults.csv")"
PROGRAMS="transpose_f64:plain transpose_f64:padded transpose_tiled:plain transpose_tiled:padded colsum_f64:
shared_counters:counters shared_counters:counters_used shared_counters:hist32 sgemm_regtile:plain sgemm_regtile:padded
wmma_hgemm:plain wmma_hgemm:padded"
for p in $PROGRAMS; do bin=${p%%:*}; arg=${p#*:}
  for setting in defaults none; do
    flags=""; [ $setting = none ] && flags="--clock-control none --cache-control none"
    name="${bin}_${arg:-run}_$setting"
    timeout 60 ncu --csv --page raw $flags --metrics "$METRICS" "$B/$bin" $arg > "$OUT/r/$name.csv" 2> "$OUT/r/$name.err"
    echo "$name rc=$? seconds=$(elapsed) rows=$(grep -c '^"' "$OUT/r/$name.csv")"
  done
done
tar czf "$OUT/run17.tgz" -C "$OUT/r" .
echo "total seconds $(elapsed)"
