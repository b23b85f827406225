#!/usr/bin/env bash
# Device side of the topk atomic-phase probe (issue 21), from the repository root on the GPU machine with
# $C carried (the binary atomic_phase, built with nvcc -O3 -arch=sm_90 -lineinfo from
# hw/surplus/atomic_phase.cu, and atomic_phase_configs.txt):
#   1. environment (env.txt, the format hw/probes/collect.py parses);
#   2. one plain run of every configuration: the OK/FAIL checks and cudaEvent times (atomic_phase.stdout);
#   3. one ncu run, one profiled launch per configuration (atomic_phase.csv, its log atomic_phase.err; the
#      program's own lines of that run, which ncu interleaves with the CSV, in atomic_phase_ncu.stdout);
#   4. the binary's ATOMS / BAR / LDS / STS SASS lines (atomic_phase_sass.txt).
# 56 configurations, each launch under 1 ms: about 0.2-0.3 s per profiled launch (the sweep's 149 took
# 25 s with twice the metrics), so 20-30 s in all; the ncu step is cut at NCU_LIMIT seconds (default 100).
# Host: python3 hw/surplus/collect_atomic_phase.py OUT/atomic_phase.csv OUT/env.txt
set -u
C=${C:-.carry/surplus2}
OUT=${OUT:-/tmp/out}
NCU_LIMIT=${NCU_LIMIT:-100}
mkdir -p "$OUT"
chmod +x "$C/atomic_phase"
T0=$(date +%s)
elapsed() { echo $(( $(date +%s) - T0 )); }
{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv
  echo "--- nvcc"; nvcc --version
  echo "--- ncu"; ncu --version
  echo "--- nvidia-smi clocks"; nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,clocks.mem --format=csv
} > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

"$C/atomic_phase" "$C/atomic_phase_configs.txt" > "$OUT/atomic_phase.stdout" 2>&1
echo "plain run rc=$? seconds=$(elapsed): $(grep -c ' OK$' "$OUT/atomic_phase.stdout") OK," \
     "$(grep -c ' FAIL$' "$OUT/atomic_phase.stdout") FAIL; $(tail -1 "$OUT/atomic_phase.stdout")"

METRICS=smsp__sass_inst_executed_op_shared_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,\
smsp__sass_inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,\
smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,\
smsp__sass_inst_executed_op_shared_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,\
smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum,\
l1tex__m_xbar2l1tex_read_sectors.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,sm__cycles_elapsed.avg,\
sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
t=$(date +%s)
timeout "$NCU_LIMIT" ncu --csv --page raw --cache-control none --clock-control none -k regex:^atomic_phase \
    --metrics "$METRICS" "$C/atomic_phase" "$C/atomic_phase_configs.txt" \
    > "$OUT/atomic_phase.csv" 2> "$OUT/atomic_phase.err"
echo "ncu rc=$? seconds=$(( $(date +%s) - t )) $(grep -a -m1 passes "$OUT/atomic_phase.csv" "$OUT/atomic_phase.err")"
grep -a -v '^"' "$OUT/atomic_phase.csv" > "$OUT/atomic_phase_ncu.stdout"
echo "csv rows (header, units, launches): $(grep -c '^"' "$OUT/atomic_phase.csv");" \
     "configs: $(grep -vc '^#' "$C/atomic_phase_configs.txt"); $(grep -a DONE "$OUT/atomic_phase_ncu.stdout")"
grep -a -E "rror|WARN" "$OUT/atomic_phase.err" | head -5

cuobjdump -sass "$C/atomic_phase" | grep -E "Function|ATOMS|BAR\.|LDS|STS|POPC" > "$OUT/atomic_phase_sass.txt" 2>&1
echo "total seconds $(elapsed)"
ls -la "$OUT"
