#!/usr/bin/env bash
# Device run: `bankism record` with the default --blocks auto on hw/record_auto/transpose_big.cu (binary
# carried in .carry/transpose_big), then analyze; everything into $OUT.
set -u
OUT=${OUT:-/tmp/record-auto}
mkdir -p "$OUT"
python3 -c 'import jsonschema' 2>/dev/null || { python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .carry/whl/*.whl && export PYTHONPATH=/tmp/site; }
export PYTHONPATH="$PWD:${PYTHONPATH:-}" PYTHONUNBUFFERED=1
{
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
nvcc --version | tail -1; ncu --version | tail -1
chmod +x .carry/transpose_big
/usr/bin/time -v python3 -m bankism record -o "$OUT/transpose_big.json" --source hw/record_auto/transpose_big.cu -- .carry/transpose_big 2>&1 | grep -vE "^\s+(Average|Exit|Page|File|Socket|Signals|Swaps|Voluntary|Involuntary|Minor|Major|Percent|System|User)"
python3 -m bankism analyze "$OUT/transpose_big.json" --no-progress
} 2>&1 | tee "$OUT/device.log"
