#!/usr/bin/env bash
# Device run 18 of issue 21, from the repository root on the GPU machine: hw/surplus/ldsgap.cu over
# hw/surplus/ldsgap_configs.txt (the stored transposes' code with integer work between each shared load and
# its global store, and before the first global load), checked without the profiler, then under ncu's
# defaults (as `bankism record` profiles) with the counters of run 17. Brings back $OUT/run18.tgz.
set -u
OUT=${OUT:-/tmp/run18-out}
B=build/run18
mkdir -p "$OUT/r" "$B"
T0=$(date +%s)
elapsed() { echo $(( $(date +%s) - T0 )); }
{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv
  echo "--- nvcc"; nvcc --version
  echo "--- ncu"; ncu --version
} > "$OUT/r/env.txt" 2>&1
nvcc -O3 -arch=sm_90 -lineinfo -o "$B/ldsgap" hw/surplus/ldsgap.cu > "$B/ldsgap.log" 2>&1
echo "built rc=$? seconds=$(elapsed)"; head -5 "$B/ldsgap.log"
cuobjdump -sass "$B/ldsgap" > "$OUT/r/ldsgap.sass" 2>&1
"$B/ldsgap" hw/surplus/ldsgap_configs.txt > "$OUT/r/ldsgap.stdout" 2>&1
echo "plain run rc=$? seconds=$(elapsed): $(grep -c ' OK$' "$OUT/r/ldsgap.stdout") OK; $(tail -1 "$OUT/r/ldsgap.stdout")"
METRICS=smsp__sass_inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,\
smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,\
smsp__sass_inst_executed_op_shared_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,\
smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,\
l1tex__m_xbar2l1tex_read_sectors.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,\
l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,smsp__sass_inst_executed_op_global_ld.sum,sm__cycles_elapsed.avg,\
sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,\
launch__shared_mem_config_size,gpc__cycles_elapsed.avg.per_second
t=$(date +%s)
timeout 300 ncu --csv --page raw -k regex:^ldsgap --metrics "$METRICS" "$B/ldsgap" hw/surplus/ldsgap_configs.txt \
    > "$OUT/r/ldsgap.csv" 2> "$OUT/r/ldsgap.err"
echo "ncu rc=$? seconds=$(( $(date +%s) - t )) rows=$(grep -c '^"' "$OUT/r/ldsgap.csv")"
tar czf "$OUT/run18.tgz" -C "$OUT/r" .
echo "total seconds $(elapsed)"
