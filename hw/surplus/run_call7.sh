#!/usr/bin/env bash
# Seventh device run of issue 21 (run 7), from the repository root on the GPU machine (sources built there):
#   1. the tile-phase probe's transpose configurations (tile_phase_configs2.txt: the second phase stores
#      shared values to global memory) under ncu, as in run 6;
#   2. the corpus's double-precision tile GEMM (traces/kernels/dgemm_tile.cu) at its size (256) and at 1024,
#      with 16x16 and 32x32 tiles (the file's #defines changed by sed), under the same counters.
# Brings back $OUT/run7.tgz.
set -u
. hw/surplus/device_common.sh
OUT=${OUT:-/tmp/run7-out}
B=build/run7
mkdir -p "$OUT/r" "$B"
T0=$(date +%s)
elapsed() { echo $(( $(date +%s) - T0 )); }
write_env "$OUT/r/env.txt"
nvcc -O3 -arch=sm_90 -lineinfo -o "$B/tile_phase" hw/surplus/tile_phase.cu > "$B/tile_phase.log" 2>&1 &
for n in 256 1024; do for bs in 16 32; do
  sed -e "s/^#define MATRIX_DIM 256 /#define MATRIX_DIM $n /" -e "s/^#define BLOCK_SIZE 16 /#define BLOCK_SIZE $bs /" \
      traces/kernels/dgemm_tile.cu > "$B/dgemm_${n}_${bs}.cu"
  nvcc -O3 -arch=sm_90 -lineinfo -o "$B/dgemm_${n}_${bs}" "$B/dgemm_${n}_${bs}.cu" > "$B/dgemm_${n}_${bs}.log" 2>&1 &
done; done
wait
echo "built seconds=$(elapsed)"; cat "$B"/*.log | head -5
"$B/tile_phase" hw/surplus/tile_phase_configs2.txt > "$OUT/r/tile_phase2.stdout" 2>&1
echo "plain run rc=$? seconds=$(elapsed): $(grep -c ' OK$' "$OUT/r/tile_phase2.stdout") OK; $(tail -1 "$OUT/r/tile_phase2.stdout")"
METRICS=$TILE_METRICS
t=$(date +%s)
timeout 240 ncu --csv --page raw --cache-control none --clock-control none -k regex:^tile_phase \
    --metrics "$METRICS" "$B/tile_phase" hw/surplus/tile_phase_configs2.txt > "$OUT/r/tile_phase2.csv" 2> "$OUT/r/tile_phase2.err"
echo "ncu rc=$? seconds=$(( $(date +%s) - t )) rows=$(grep -c '^"' "$OUT/r/tile_phase2.csv")"
for n in 256 1024; do for bs in 16 32; do
  timeout 120 ncu --csv --page raw --cache-control none --clock-control none -k regex:^multiply \
      --metrics "$METRICS" "$B/dgemm_${n}_${bs}" > "$OUT/r/dgemm_${n}_${bs}.csv" 2> "$OUT/r/dgemm_${n}_${bs}.err"
  echo "dgemm $n $bs rc=$? seconds=$(elapsed) rows=$(grep -c '^"' "$OUT/r/dgemm_${n}_${bs}.csv") $(grep -a -v '^"' "$OUT/r/dgemm_${n}_${bs}.csv" | tail -1)"
done; done
cuobjdump -sass "$B/tile_phase" | grep -E "Function|LDG|STS|STG|LDS|BAR\." > "$OUT/r/tile_phase2_sass.txt" 2>&1
tar czf "$OUT/run7.tgz" -C "$OUT/r" .
echo "total seconds $(elapsed)"
