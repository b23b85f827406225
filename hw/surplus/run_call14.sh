#!/usr/bin/env bash
# Device run 14 of issue 21, from the repository root on the GPU machine (sources built there):
#   1. the tile-phase probe (hw/surplus/tile_phase.cu) over hw/surplus/l1_capacity_configs.txt: the same tiled
#      stores with the bytes each SM fills swept from 16 KB to 4 MB (does the surplus need fills that evict?);
#   2. the corpus's double-precision tile GEMM (a copy of traces/kernels/dgemm_tile.cu in $CARRY, since traces/
#      does not travel) at n 256..768 with 16x16 tiles and 256..512 with 32x32 (the file's #defines by sed).
# Under the counters of run 7 plus the launch's shared-memory carve-out. Brings back $OUT/run14.tgz.
set -u
. hw/surplus/device_common.sh
OUT=${OUT:-/tmp/run14-out}
CARRY=${CARRY:-.carry/l1cap}
B=build/run14
mkdir -p "$OUT/r" "$B"
T0=$(date +%s)
elapsed() { echo $(( $(date +%s) - T0 )); }
write_env "$OUT/r/env.txt"
nvcc -O3 -arch=sm_90 -lineinfo -o "$B/tile_phase" hw/surplus/tile_phase.cu > "$B/tile_phase.log" 2>&1 &
SIZES="256:16 320:16 384:16 512:16 768:16 256:32 384:32 512:32"
for s in $SIZES; do n=${s%:*}; bs=${s#*:}
  sed -e "s/^#define MATRIX_DIM 256 /#define MATRIX_DIM $n /" -e "s/^#define BLOCK_SIZE 16 /#define BLOCK_SIZE $bs /" \
      "$CARRY/dgemm_tile.cu" > "$B/dgemm_${n}_${bs}.cu"
  nvcc -O3 -arch=sm_90 -lineinfo -o "$B/dgemm_${n}_${bs}" "$B/dgemm_${n}_${bs}.cu" > "$B/dgemm_${n}_${bs}.log" 2>&1 &
done
wait
echo "built seconds=$(elapsed)"; cat "$B"/*.log | head -5
"$B/tile_phase" hw/surplus/l1_capacity_configs.txt > "$OUT/r/l1_capacity.stdout" 2>&1
echo "plain run rc=$? seconds=$(elapsed): $(grep -c ' OK$' "$OUT/r/l1_capacity.stdout") OK; $(tail -1 "$OUT/r/l1_capacity.stdout")"
METRICS=$TILE_METRICS,\
launch__shared_mem_config_size
t=$(date +%s)
timeout 300 ncu --csv --page raw --cache-control none --clock-control none -k regex:^tile_phase \
    --metrics "$METRICS" "$B/tile_phase" hw/surplus/l1_capacity_configs.txt > "$OUT/r/l1_capacity.csv" 2> "$OUT/r/l1_capacity.err"
echo "ncu rc=$? seconds=$(( $(date +%s) - t )) rows=$(grep -c '^"' "$OUT/r/l1_capacity.csv")"
for s in $SIZES; do n=${s%:*}; bs=${s#*:}
  timeout 60 ncu --csv --page raw --cache-control none --clock-control none -k regex:^multiply \
      --metrics "$METRICS" "$B/dgemm_${n}_${bs}" > "$OUT/r/dgemm_${n}_${bs}.csv" 2> "$OUT/r/dgemm_${n}_${bs}.err"
  echo "dgemm $n $bs rc=$? seconds=$(elapsed) rows=$(grep -c '^"' "$OUT/r/dgemm_${n}_${bs}.csv") $(grep -a -v '^"' "$OUT/r/dgemm_${n}_${bs}.csv" | tail -1)"
done
tar czf "$OUT/run14.tgz" -C "$OUT/r" .
echo "total seconds $(elapsed)"
