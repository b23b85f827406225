#!/usr/bin/env bash
# Device side of issue 21's first run (from the repository root on the GPU machine, .carry/surplus carried):
#   1. environment, ncu's metric list (the candidates below that exist are kept);
#   2. the random atomic probes (hw/atomics/random.cu), a first chunk;
#   3. the surplus sweep (hw/surplus/sweep.cu) and whole programs, with shared, global and occupancy counters;
#   4. more random atomic probes until the time budget (BUDGET seconds from the start) is spent.
# Writes to $OUT: log.txt, env.txt, sweep.csv, sweep2.csv, kernels.tgz, random.tgz, sass.tgz.
# Second run: STEPS="sweep2 random" FIRST=3089 RND_METRICS=<the four l1tex metrics> (one replay pass).
set -u
OUT=${OUT:-/tmp/surplus-out}
C=.carry/surplus
BUDGET=${BUDGET:-420}
FIRST=${FIRST:-0}           # first random probe id
CHUNK=${CHUNK:-1000}
STEPS=${STEPS:-"random1 sweep kernels random"}
mkdir -p "$OUT" /tmp/rnd /tmp/kern
chmod +x $C/* 2>/dev/null
T0=$(date +%s)
elapsed() { echo $(( $(date +%s) - T0 )); }
has() { [[ " $STEPS " == *" $1 "* ]]; }
{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv
  echo "--- nvcc"; nvcc --version
  echo "--- ncu"; ncu --version
  echo "--- nvidia-smi clocks"; nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,clocks.mem --format=csv
} > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"
ncu --query-metrics > /tmp/query.txt 2>&1
keep() {  # the candidates whose base name ncu lists
  python3 - "$1" <<'EOF'
import re, sys
q = open('/tmp/query.txt').read()
names = [m for m in sys.argv[1].split(",") if re.search(r'^\s*' + re.escape(m.split('.')[0]) + r'\s', q, re.M)]
missing = [m for m in sys.argv[1].split(",") if m not in names]
print("dropped (not listed):", missing, file=sys.stderr)
print(",".join(names))
EOF
}
RND=$(keep "${RND_METRICS:-l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_atom.sum,smsp__inst_executed_op_shared_ld.sum}")
SHARED="l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,smsp__sass_inst_executed_op_shared_atom.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,smsp__sass_inst_executed_op_ldsm.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"
GLOBAL="smsp__sass_inst_executed_op_global_ld.sum,smsp__sass_inst_executed_op_global_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_miss.sum,l1tex__m_xbar2l1tex_read_sectors.sum,l1tex__data_pipe_lsu_wavefronts.sum,l1tex__data_pipe_lsu_wavefronts_mem_lgds.sum,l1tex__data_bank_reads.sum,l1tex__data_bank_writes.sum,l1tex__lsu_writeback_active.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_gds.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,sm__warps_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg,gpu__time_duration.sum"
FULL=$(keep "$SHARED,$GLOBAL")
echo "RND=$RND"
echo "FULL=$FULL"
NCU="ncu --cache-control none --clock-control none"

RATE_MS=100  # milliseconds per probe, measured by the first chunk
random_chunk() {  # random_chunk FIRST LAST
  local t=$(date +%s%N)
  $NCU --metrics "$RND" -k regex:^rnd_ --export /tmp/rnd/r_$1 --force-overwrite $C/random $C/random_patterns.txt $1 $2 > /tmp/rnd/log_$1.txt 2>&1
  local rc=$?
  RATE_MS=$(( ($(date +%s%N) - t) / 1000000 / ($2 - $1 + 2) ))
  echo "random $1..$2 rc=$rc ms/probe=$RATE_MS $(grep -m1 passes /tmp/rnd/log_$1.txt)"
  grep -E "SHARED_BASE|DONE|rror" /tmp/rnd/log_$1.txt | head -5
  ncu --import /tmp/rnd/r_$1.ncu-rep --csv --page raw > /tmp/rnd/random_$1.csv 2>/dev/null
}
TOTAL=$(wc -l < $C/random_patterns.txt)
next=$FIRST
if has random1; then
  random_chunk $next $((next + 499)); next=$((next + 500))
fi
if has sweep; then
  t=$(date +%s)
  $NCU --metrics "$FULL" -k regex:^sweep --export /tmp/sweep --force-overwrite $C/sweep $C/sweep_configs.txt > /tmp/sweep_log.txt 2>&1
  echo "sweep rc=$? seconds=$(( $(date +%s) - t )) $(grep -m1 passes /tmp/sweep_log.txt)"
  grep -E "DONE|rror" /tmp/sweep_log.txt | head -5
  ncu --import /tmp/sweep.ncu-rep --csv --page raw > "$OUT/sweep.csv" 2>/dev/null
  echo "sweep.csv rows $(wc -l < "$OUT/sweep.csv")"
fi
if has sweep2; then
  t=$(date +%s)
  $NCU --metrics "$FULL" -k regex:^sweep --export /tmp/sweep2 --force-overwrite $C/sweep $C/sweep2_configs.txt > /tmp/sweep2_log.txt 2>&1
  echo "sweep2 rc=$? seconds=$(( $(date +%s) - t )) $(grep -m1 passes /tmp/sweep2_log.txt)"
  grep -E "DONE|rror" /tmp/sweep2_log.txt | head -5
  ncu --import /tmp/sweep2.ncu-rep --csv --page raw > "$OUT/sweep2.csv" 2>/dev/null
  echo "sweep2.csv rows $(wc -l < "$OUT/sweep2.csv")"
fi
if has kernels; then
  # name binary args
  while read -r name bin args; do
    [ -z "$name" ] && continue
    t=$(date +%s)
    $NCU --metrics "$FULL" --export /tmp/kern/$name --force-overwrite $C/$bin $args > /tmp/kern/$name.log 2>&1
    echo "kernel $name rc=$? seconds=$(( $(date +%s) - t )) $(grep -a -E 'OK|FAIL' /tmp/kern/$name.log | tail -1)"
    ncu --import /tmp/kern/$name.ncu-rep --csv --page raw > /tmp/kern/$name.csv 2>/dev/null
  done < $C/kernels.txt
  tar -czf "$OUT/kernels.tgz" -C /tmp/kern $(cd /tmp/kern && ls *.csv *.log)
fi
if has random; then
  [ "$RATE_MS" = 100 ] && RATE_MS=${RATE0:-100}
  while [ $next -lt $TOTAL ]; do
    left=$(( (BUDGET - $(elapsed) - 25) * 1000 / (RATE_MS + 1) ))
    n=$(( left < CHUNK ? left : CHUNK ))
    [ $n -lt 100 ] && break
    random_chunk $next $((next + n - 1)); next=$((next + n))
  done
fi
echo "random probes measured: $FIRST..$((next - 1)) of $TOTAL"
tar -czf "$OUT/random.tgz" -C /tmp/rnd $(cd /tmp/rnd && ls *.csv log_*.txt 2>/dev/null)
for b in random sweep; do cuobjdump -sass $C/$b > /tmp/sass_$b.txt 2>&1; done
for b in $(awk '{print $2}' $C/kernels.txt | sort -u); do cuobjdump -sass $C/$b > /tmp/sass_$b.txt 2>&1; done
tar -czf "$OUT/sass.tgz" -C /tmp $(cd /tmp && ls sass_*.txt)
echo "total seconds $(elapsed)"
ls -la "$OUT"
