#!/bin/bash
# Device-side driver for the bankism hardware campaign (run from the repo root
# on the GPU machine).  Binaries are prebuilt on the host into .carry/ (see
# hw/README.md); everything that must come back is written to $OUT.
#
# Environment knobs:
#   PROBES=hw/probes/patterns.txt   pattern file for the probe binary ("" = skip probes)
#   RANGES="0 1867;1868 3734"       optional id ranges of PROBES, one ncu process (and one
#                                   $OUT/probes_K.csv) per range; default one range, probes.csv
#   CYCLES=1                        run the cycles benchmark timing (first, it is quick)
#   CYCLES_NCU=1                    ncu pass over the cycles configs (last)
#   QUERY=1                         dump ncu --query-metrics (grep shared/ldsm/stsm)
#   SASS=1                          cuobjdump -sass of both binaries
#   METRICS=a,b,c                   override the metric list
set -u
OUT=${OUT:-/tmp/bankism_out}
mkdir -p "$OUT"
PROBES=${PROBES-hw/probes/patterns.txt}
RANGES=${RANGES:-}
CYCLES=${CYCLES:-1}
CYCLES_NCU=${CYCLES_NCU:-$CYCLES}
QUERY=${QUERY:-1}
SASS=${SASS:-1}
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
CUOBJDUMP=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
chmod +x .carry/probe .carry/cycles 2>/dev/null

{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv
  echo "--- nvcc"; nvcc --version
  echo "--- ncu ($NCU)"; "$NCU" --version
  echo "--- nvidia-smi clocks"; nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,clocks.mem --format=csv
} > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

CANDIDATES="l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum smsp__sass_inst_executed_op_shared_ld.sum smsp__sass_inst_executed_op_shared_st.sum smsp__sass_inst_executed_op_shared_atom.sum l1tex__data_pipe_lsu_wavefronts_mem_shared.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum smsp__sass_inst_executed_op_ldsm.sum smsp__sass_inst_executed_op_stsm.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_stsm.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_read.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum smsp__sass_inst_executed_op_shared.sum"
REQUIRED="l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,smsp__sass_inst_executed_op_shared_atom.sum"

if [ "$QUERY" = 1 ] || [ -z "${METRICS:-}" ]; then "$NCU" --query-metrics > /tmp/query.txt 2>&1 || true; fi
if [ "$QUERY" = 1 ]; then
  grep -iE "shared|ldsm|stsm|ldgsts" /tmp/query.txt > "$OUT/metrics.txt"
  echo "query lines: $(wc -l < /tmp/query.txt), kept $(wc -l < "$OUT/metrics.txt")"
fi
if [ "$SASS" = 1 ]; then
  "$CUOBJDUMP" -sass .carry/probe > "$OUT/sass.txt" 2>&1
  "$CUOBJDUMP" -sass .carry/cycles > "$OUT/cycles_sass.txt" 2>&1
  echo "=== shared-memory SASS per probe kernel"
  awk '/Function :/{f=$3} /(LDS|STS|ATOMS|LDSM|STSM|LDL|STL)/{ if (match($0, /(LDS|STS|ATOMS|LDSM|STSM|LDL|STL)[A-Z0-9._]*/)) print f, substr($0, RSTART, RLENGTH)}' "$OUT/sass.txt" | sort | uniq -c
fi
[ -z "${METRICS:-}" ] && METRICS=$(python3 - "$CANDIDATES" <<'EOF'
import re, sys
q = open('/tmp/query.txt').read()
keep = [m for m in sys.argv[1].split() if re.search(r'\b' + re.escape(m.rsplit('.', 1)[0]) + r'\b', q)]
print(",".join(keep))
EOF
)
[ -z "$METRICS" ] && METRICS=$REQUIRED
echo "METRICS=$METRICS"

if [ "$CYCLES" = 1 ]; then
  echo "=== cycles timing"
  .carry/cycles hw/cycles/configs.txt time > "$OUT/cycles_time.txt" 2>&1
  echo "cycles time rc=$? rows=$(grep -c ROW "$OUT/cycles_time.txt")"
  grep -E "DEVICE|error" "$OUT/cycles_time.txt"
fi

if [ -n "$PROBES" ]; then
  if [ -z "$RANGES" ]; then list=("ALL"); else IFS=';' read -ra list <<< "$RANGES"; fi
  k=0
  for r in "${list[@]}"; do
    if [ "$r" = ALL ]; then rr=""; csv="$OUT/probes.csv"; else rr="$r"; csv="$OUT/probes_$k.csv"; fi
    t0=$(date +%s.%N)
    "$NCU" --metrics "$METRICS" -k regex:^probe_ --cache-control none --clock-control none \
        --export /tmp/probes_$k --force-overwrite .carry/probe "$PROBES" $rr > /tmp/probe_ncu_$k.log 2>&1
    rc=$?
    t1=$(date +%s.%N)
    grep -E "SHARED_BASE|DONE|LAUNCH_ORDER|error|ERROR" /tmp/probe_ncu_$k.log | head -20
    grep -m1 "passes" /tmp/probe_ncu_$k.log
    echo "probe ncu chunk $k [$rr] rc=$rc launches=$(grep -c '==PROF== Profiling' /tmp/probe_ncu_$k.log) seconds=$(python3 -c "print(round($t1-$t0,1))")"
    "$NCU" --import /tmp/probes_$k.ncu-rep --csv --page raw > "$csv" 2>/tmp/imp.err
    head -c 2000 /tmp/imp.err
    echo "$(basename $csv) rows: $(wc -l < "$csv")"
    k=$((k+1))
  done
fi

if [ "$CYCLES_NCU" = 1 ]; then
  t0=$(date +%s.%N)
  "$NCU" --metrics "$METRICS" -k regex:bench --cache-control none --clock-control none \
      --export /tmp/cycles --force-overwrite .carry/cycles hw/cycles/configs.txt ncu > /tmp/cyc_ncu.log 2>&1
  echo "cycles ncu rc=$? seconds=$(python3 -c "print(round($(date +%s.%N)-$t0,1))")"
  "$NCU" --import /tmp/cycles.ncu-rep --csv --page raw > "$OUT/cycles.csv" 2>&1
  echo "cycles.csv rows: $(wc -l < "$OUT/cycles.csv")"
fi
echo "=== OUT"; ls -la "$OUT"
