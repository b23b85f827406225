#!/usr/bin/env bash
# Device run: how long `bankism record` takes on a benchmark-shaped program (hw/record_speed/bench_loop.cu:
# 26 launches of one SGEMM shape, then a reduction), by part: the program alone, `trace` of every launch,
# `trace --launch 0`, `record` of every launch and `record --kernel ^sgemm_tiled$ --launch 0`.
# Results into $OUT/record_speed.log (times in seconds, wall clock) and the two records' traces.
set -u
cd "$(dirname "$0")/../.."
source hw/device_env.sh
OUT=${OUT:-/tmp/record-speed}; W=/tmp/record_speed
mkdir -p "$OUT" "$W"
need_jsonschema
export PYTHONPATH="$PWD:${PYTHONPATH:-}" PYTHONUNBUFFERED=1
timed() {  # timed LABEL COMMAND...: run, print "LABEL: rc=R wall=S"
  local label=$1; shift
  local t0; t0=$(date +%s.%N)
  "$@" > "$W/$label.out" 2>&1
  local rc=$?
  echo "$label: rc=$rc wall=$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.1f", a - b }')"
  tail -3 "$W/$label.out"
}
{
write_env "$W/env.txt"; cat "$W/env.txt"
nvcc -O3 -arch=sm_90 -lineinfo -o "$W/bench_loop" hw/record_speed/bench_loop.cu
timed program "$W/bench_loop"
timed trace_all timeout 200 python3 -m bankism trace -o "$W/trace_all.json" -- "$W/bench_loop"
timed trace_one timeout 120 python3 -m bankism trace -o "$W/trace_one.json" --kernel '^sgemm_tiled$' --launch 0 \
  -- "$W/bench_loop"
timed record_one timeout 150 python3 -m bankism record -o "$W/record_one.json" --kernel '^sgemm_tiled$' --launch 0 \
  --source hw/record_speed/bench_loop.cu -- "$W/bench_loop"
timed record_all timeout 240 python3 -m bankism record -o "$W/record_all.json" --source hw/record_speed/bench_loop.cu \
  -- "$W/bench_loop"
python3 -m bankism analyze "$W/record_one.json" --no-progress
grep -h "note:" "$W"/*.out
} 2>&1 | tee "$W/record_speed.log"
cp "$W/record_speed.log" "$W/env.txt" "$OUT/"
cd "$W" && tar -czf "$OUT/record_speed.tgz" env.txt record_one.json record_one.npz record_speed.log 2>/dev/null
ls -la "$OUT"
