#!/usr/bin/env bash
# Ninth device run of issue 21 (run 9): hw/surplus/printf_atom.cu under ncu, one launch per configuration
# (blocks threads calls lanes), the shared-memory counters per class. Brings back $OUT/run9.tgz.
set -u
. hw/surplus/device_common.sh
OUT=${OUT:-/tmp/run9-out}
B=build/run9
mkdir -p "$OUT/r" "$B"
write_env "$OUT/r/env.txt"
nvcc -O3 -arch=sm_90 -lineinfo -o "$B/printf_atom" hw/surplus/printf_atom.cu > "$OUT/r/build.log" 2>&1
cuobjdump -sass "$B/printf_atom" | grep -E "Function|ATOM|CALL|RED|STS|LDS" > "$OUT/r/printf_atom_sass.txt"
M=smsp__sass_inst_executed_op_shared_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,\
smsp__sass_inst_executed_op_global_atom.sum,smsp__sass_inst_executed_op_global_red.sum,smsp__inst_executed.sum
while read -r blocks threads calls lanes; do
  ncu --csv --page raw --metrics "$M" "$B/printf_atom" $blocks $threads $calls $lanes \
      > "$OUT/r/printf_${blocks}_${threads}_${calls}_${lanes}.csv" 2>> "$OUT/r/ncu.err"
  echo "$blocks $threads $calls $lanes rc=$?"
done <<'CONFIGS'
1 32 0 32
1 32 1 32
1 32 2 32
1 32 4 32
1 32 1 1
1 32 4 1
1 64 1 32
2 32 1 32
4 128 1 32
CONFIGS
tar czf "$OUT/run9.tgz" -C "$OUT/r" .
