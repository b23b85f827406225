#!/usr/bin/env bash
# Sixth device run of issue 21 (run 6), from the repository root on the GPU machine (nothing carried: the
# sources travel with the working tree and are built there):
#   1. environment (env.txt);
#   2. the tile-phase probe (hw/surplus/tile_phase.cu, tile_phase_configs.txt): one plain run (OK/FAIL and
#      cudaEvent times, tile_phase.stdout), one ncu run with the shared and traffic counters (tile_phase.csv);
#   3. ncu's SASS-instrumented LDSM/STSM counts on the ldmatrix programs (ldsm_<name>.csv): ldmatrix_tile
#      plain/swizzled, hgemm_ldmatrix plain/permuted, the timing pair mma_ldsm;
#   4. the SASS of the built binaries' global loads, shared stores and barriers (sass/*.txt).
# Brings back $OUT/run6.tgz (everything) and $OUT/log.txt.
set -u
. hw/surplus/device_common.sh
OUT=${OUT:-/tmp/run6-out}
B=build/run6
mkdir -p "$OUT/r" "$OUT/r/sass" "$B"
T0=$(date +%s)
elapsed() { echo $(( $(date +%s) - T0 )); }
write_env "$OUT/r/env.txt" clocks
cat "$OUT/r/env.txt"
build() { nvcc -O3 -arch=sm_90 -lineinfo -o "$B/$1" "$2" > "$B/$1.log" 2>&1; echo "build $1 rc=$? seconds=$(elapsed)"; }
build tile_phase hw/surplus/tile_phase.cu &
build ldmatrix_tile traces/kernels/ldmatrix_tile.cu &
build hgemm_ldmatrix tests/data/explain/hgemm_ldmatrix.cu &
build pairs hw/timing/pairs.cu &
wait
"$B/tile_phase" hw/surplus/tile_phase_configs.txt > "$OUT/r/tile_phase.stdout" 2>&1
echo "plain run rc=$? seconds=$(elapsed): $(grep -c ' OK$' "$OUT/r/tile_phase.stdout") OK," \
     "$(grep -c ' FAIL$' "$OUT/r/tile_phase.stdout") FAIL; $(tail -1 "$OUT/r/tile_phase.stdout")"
METRICS=$TILE_METRICS
t=$(date +%s)
timeout "${NCU_LIMIT:-300}" ncu --csv --page raw --cache-control none --clock-control none -k regex:^tile_phase \
    --metrics "$METRICS" "$B/tile_phase" hw/surplus/tile_phase_configs.txt > "$OUT/r/tile_phase.csv" 2> "$OUT/r/tile_phase.err"
echo "ncu rc=$? seconds=$(( $(date +%s) - t )) rows=$(grep -c '^"' "$OUT/r/tile_phase.csv")"
grep -a -E "rror|WARN" "$OUT/r/tile_phase.err" | head -5
LDSM=smsp__sass_inst_executed_op_ldsm.sum,smsp__sass_inst_executed_op_shared_stsm.sum,\
smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum,\
smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,\
smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum
ldsm() {
  local name=$1; shift
  timeout 120 ncu --csv --page raw --metrics "$LDSM" "$@" > "$OUT/r/ldsm_$name.csv" 2> "$OUT/r/ldsm_$name.err"
  echo "ldsm $name rc=$? seconds=$(elapsed) rows=$(grep -c '^"' "$OUT/r/ldsm_$name.csv")"
}
ldsm ldmatrix_tile_plain "$B/ldmatrix_tile" plain
ldsm ldmatrix_tile_swizzled "$B/ldmatrix_tile" swizzled
ldsm hgemm_ldmatrix_plain "$B/hgemm_ldmatrix" plain
ldsm hgemm_ldmatrix_permuted "$B/hgemm_ldmatrix" permuted
ldsm mma_ldsm_conflict -k regex:^mma_ldsm "$B/pairs" run mma_ldsm conflict
for b in tile_phase ldmatrix_tile hgemm_ldmatrix; do
  cuobjdump -sass "$B/$b" | grep -E "Function|LDG|STS|LDSM|STSM|BAR\." > "$OUT/r/sass/$b.txt" 2>&1
done
cp "$B"/*.log "$OUT/r/" 2>/dev/null
tar czf "$OUT/run6.tgz" -C "$OUT/r" .
echo "total seconds $(elapsed)" | tee -a "$OUT/r/done.txt"
ls -la "$OUT"
