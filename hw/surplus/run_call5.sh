#!/usr/bin/env bash
# Fifth device run of issue 21 (run 5): what ncu's SASS-instrumented shared wavefront metrics cover, the
# atomic-phase probes (hw/surplus/atomic_phase.cu), then every recording of hw/surplus/record.sh again with
# the `addressed` counters `bankism profile` now collects, and held-out public programs carried in
# $C2/public (programs.txt: name kernel-regex source args...; the sources stay outside the repository).
# From the repository root on the GPU machine, carry [".carry/surplus", ".carry/surplus2"].
set -u
OUT=${OUT:-/tmp/call5-out}
C=.carry/surplus
C2=.carry/surplus2
T0=$(date +%s)
mkdir -p "$OUT/public" build/rec
chmod +x $C/* $C2/* $C2/public/bin/* 2>/dev/null
ncu --query-metrics --chip gh100 2>/dev/null \
  | grep -E "sass_l1tex_data_pipe_lsu_wavefronts_mem_shared|sass_inst_executed_op_(ldsm|stsm|shared)" > "$OUT/sass_metrics.txt"
echo "metric query: $(wc -l < "$OUT/sass_metrics.txt") lines, seconds=$(( $(date +%s) - T0 ))"
if [ "${SKIP_PHASE:-0}" != 1 ]; then
  t=$(date +%s)
  C=$C2 OUT=$OUT bash $C2/run_atomic_phase.sh
  echo "atomic phase rc=$? seconds=$(( $(date +%s) - t ))"
fi
if [ "${SKIP_RECORD:-0}" != 1 ]; then
  BUDGET=${BUDGET:-300} OUT=$OUT bash $C/record.sh
fi
# held-out public programs: recorded like ours, results outside the repository
export PYTHONPATH=${PYTHONPATH:-}:/tmp/site
while read -r name regex source args; do
  [ -z "$name" ] && continue
  case "$name" in \#*) continue;; esac
  if [ $(( $(date +%s) - T0 )) -gt "${TOTAL:-540}" ]; then echo "$name skipped (budget)"; continue; fi
  t=$(date +%s)
  # shellcheck disable=SC2086
  timeout 120 python3 -m bankism record -o "$OUT/public/$name.json" --kernel "$regex" --launch 0 --blocks auto \
      --source "$C2/public/$source" --timeout 100 --csv "$OUT/public/$name.ncu-raw.csv" \
      --description "$name (held-out public program, issue 21)" -- $C2/public/bin/$name $args \
      > "build/rec/public_$name.log" 2>&1
  echo "public $name rc=$? seconds=$(( $(date +%s) - t ))"
  grep -a -E "^error|launch [0-9]+:" "build/rec/public_$name.log" | tail -3
  # the records stay behind (too large to bring back): analyze here, bring back the analysis
  python3 -m bankism analyze --json "$OUT/public/$name.json" > "$OUT/public/$name.analysis.json" 2>> "build/rec/public_$name.log"
  rm -f "$OUT/public/$name.npz"
done < "$C2/public/programs.txt"
# at most 8 files come back: pack everything into three
tar -czf "$OUT/public.tgz" -C "$OUT" public && rm -rf "$OUT/public"
tar -czf "$OUT/logs5.tgz" build/rec $OUT/*.txt $OUT/atomic_phase* 2>/dev/null
rm -f $OUT/*.txt $OUT/atomic_phase* $OUT/logs.tgz
echo "total seconds $(( $(date +%s) - T0 ))"
ls -la "$OUT"
