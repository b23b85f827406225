#!/usr/bin/env bash
# Device runs 19 and 20 of issue 21, from the repository root on the GPU machine (built there):
#   hw/surplus/cover.cu over a configuration file under ncu (clock and cache control off, as the sweep):
#   the L1 allocation threshold for atomics and loads, and which banks of an access meet the fills.
#   run 19: hw/surplus/run_call19.sh                       (hw/surplus/cover_configs.txt)
#   run 20: hw/surplus/run_call19.sh cover2_configs.txt 20
#   run 22: PROBE=oneshot_atomic hw/surplus/run_call19.sh oneshot_atomic_configs.txt 22
#   run 24: PROBE=oneshot_atomic hw/surplus/run_call19.sh oneshot_count_configs.txt 24
#   run 26: PROBE=oneshot_atomic hw/surplus/run_call19.sh oneshot_count2_configs.txt 26
#   run 27: PROBE=oneshot_atomic hw/surplus/run_call19.sh oneshot_count3_configs.txt 27
#   run 28: PROBE=rowspan hw/surplus/run_call19.sh rowspan_configs.txt 28, then again with CLOCK=base RUN 29
#   (ncu's --clock-control: none by default, as the sweep; base locks the clocks as `bankism record` does);
#   runs 30-32: CLOCK=base PROBE=rowspan hw/surplus/run_call19.sh rowspan_delay_configs.txt 30 (then
#   rowspan_tail_configs.txt 31, rowspan_delay2_configs.txt 32)
# Counters: the sweep's (hw/surplus/collect_sweep.py SHARED and OTHER). Brings back $OUT/run<N>.tgz.
set -u
. hw/surplus/device_common.sh
CONFIGS=hw/surplus/${1:-cover_configs.txt}
RUN=${2:-19}
OUT=${OUT:-/tmp/run$RUN-out}
B=build/run$RUN
PROBE=${PROBE:-cover}
CLOCK=${CLOCK:-none}
mkdir -p "$OUT/r" "$B"
T0=$(date +%s)
write_env "$OUT/r/env.txt" clocks
nvcc -O3 -arch=sm_90 -lineinfo -o "$B/$PROBE" "hw/surplus/$PROBE.cu" > "$OUT/r/build.log" 2>&1
echo "built rc=$? seconds=$(( $(date +%s) - T0 ))"
cuobjdump -sass "$B/$PROBE" > "$OUT/r/sass.txt"
grep -oE "(ATOMS|STS|LDS|LDG|STG|RED)[A-Z0-9._]*" "$OUT/r/sass.txt" | sort | uniq -c > "$OUT/r/sass_ops.txt"
cat "$OUT/r/sass_ops.txt"
"$B/$PROBE" "$CONFIGS" > "$OUT/r/plain.stdout" 2>&1
echo "plain rc=$? seconds=$(( $(date +%s) - T0 )) $(tail -1 "$OUT/r/plain.stdout")"
S=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum,\
smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,smsp__sass_inst_executed_op_shared_atom.sum,\
smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum,\
smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,smsp__sass_inst_executed_op_ldsm.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
G=smsp__sass_inst_executed_op_global_ld.sum,smsp__sass_inst_executed_op_global_st.sum,\
l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,\
l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum,\
l1tex__m_xbar2l1tex_read_sectors.sum,l1tex__data_pipe_lsu_wavefronts.sum,l1tex__data_pipe_lsu_wavefronts_mem_lgds.sum,\
l1tex__data_bank_reads.sum,l1tex__data_bank_writes.sum,l1tex__lsu_writeback_active.sum,\
l1tex__data_bank_conflicts_pipe_lsu_mem_gds.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,\
sm__warps_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg,gpu__time_duration.sum
t=$(date +%s)
timeout 420 ncu --csv --page raw --cache-control none --clock-control "$CLOCK" -k "regex:^$PROBE" \
    --metrics "$S,$G" "$B/$PROBE" "$CONFIGS" > "$OUT/r/cover.csv" 2> "$OUT/r/cover.err"
echo "ncu rc=$? seconds=$(( $(date +%s) - t )) rows=$(grep -c '^"' "$OUT/r/cover.csv")"
grep -a '^CONFIG\|^DONE' "$OUT/r/cover.csv" | tail -2
tar czf "$OUT/run$RUN.tgz" -C "$OUT/r" .
echo "total seconds $(( $(date +%s) - T0 ))"
