#!/usr/bin/env bash
# Device run of the explain corpus kernels (issue 10): trace + profile cg_tiles, accessor_struct and
# header_tiles (hw/corpus/explain_entries.py). jsonschema wheels, if the device lacks it, in .carry/explain/whl.
set -u
OUT=${OUT:-/tmp/explain-out}
mkdir -p "$OUT" build/corpus/raw
export PYTHONUNBUFFERED=1
{
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
nvcc --version | tail -1
ncu --version | tail -1
rm -rf /tmp/site
if ! python3 -c 'import jsonschema' 2>/dev/null; then
    for w in .carry/explain/whl/*.whl; do
        python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site "$w" 2>/dev/null
    done
    export PYTHONPATH=/tmp/site
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
python3 -c 'import jsonschema, bankism; print("jsonschema", jsonschema.__version__)'
# the kernels are in traces/kernels (the device run of 2026-11-23 carried them in .carry/explain)
timeout 200 python3 hw/corpus/explain_entries.py
echo "entries exit $?"
} 2>&1 | tee "$OUT/device.log"
tar -czf "$OUT/explain_traces.tgz" traces/cg_tiles.json traces/accessor_struct*.json traces/header_tiles.json \
    traces/*.npz build/corpus/*.log build/corpus/status.json 2>/dev/null
ls -la "$OUT"
