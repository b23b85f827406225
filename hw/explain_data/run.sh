#!/usr/bin/env bash
# Device run: build hw/explain_data/data_kernels.cu, run it once to write its input bytes, then
# `bankism record` it (every block) so that `explain --data in=file:...` can be checked line by line
# against the H100. Results into $OUT/explain_data.tgz and $OUT/explain_data.log.
set -u
cd "$(dirname "$0")/../.."
source hw/device_env.sh
OUT=${OUT:-/tmp/explain-data}; W=/tmp/explain_data
mkdir -p "$OUT" "$W"
need_jsonschema
export PYTHONPATH="$PWD:${PYTHONPATH:-}" PYTHONUNBUFFERED=1
{
write_env "$W/env.txt"; cat "$W/env.txt"
nvcc -O3 -arch=sm_90 -lineinfo -o "$W/data_kernels" hw/explain_data/data_kernels.cu
"$W/data_kernels" "$W/input.bin"
timeout 240 python3 -m bankism record -o "$W/data_kernels.json" --blocks all --source hw/explain_data/data_kernels.cu \
  --description "explain --data check: bitonic sort and float histogram on the LCG input of data_kernels.cu" \
  -- "$W/data_kernels" "$W/input_again.bin"
echo "record rc=$?"
cmp "$W/input.bin" "$W/input_again.bin" && echo "input identical in both runs"
python3 -m bankism analyze "$W/data_kernels.json" --no-progress
} 2>&1 | tee "$W/explain_data.log"
cp "$W/explain_data.log" "$OUT/"
cd "$W" && tar -czf "$OUT/explain_data.tgz" env.txt input.bin data_kernels.json data_kernels.npz explain_data.log 2>/dev/null
ls -la "$OUT"
