#!/usr/bin/env bash
# Device run 13 (hw/cluster/dsmem.cu): both cluster kernels recorded with every block and analysed, so the
# traces in traces/cluster/ show a cluster launch's own accesses simulated exactly and its distributed
# shared memory accesses listed as not simulated. From the repository root on the GPU machine, carry
# [".carry/whl"]. Brings back $OUT/cluster.tgz.
set -u
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/cluster-out}
R="$OUT/c"
mkdir -p "$R" build
{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv
  echo "--- nvcc"; nvcc --version
  echo "--- ncu"; ncu --version
} > "$R/env.txt" 2>&1
if ! python3 -c 'import jsonschema' 2>/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .carry/whl/*.whl
  export PYTHONPATH=/tmp/site
fi
nvcc -O3 -arch=sm_90 -lineinfo -o build/dsmem hw/cluster/dsmem.cu || exit 1
./build/dsmem | tee "$R/dsmem_run.txt"
for kernel in cluster_local cluster_remote; do
  python3 -m bankism record -o "$R/$kernel.json" --kernel "^$kernel" --launch 0 --blocks all \
      --source hw/cluster/dsmem.cu --csv "$R/$kernel.ncu-raw.csv" \
      --description "$kernel (hw/cluster/dsmem.cu, device run 13)" -- ./build/dsmem > "$R/$kernel.record.log" 2>&1
  echo "$kernel record rc=$?"
  python3 -m bankism analyze "$R/$kernel.json" 2>&1 | tee "$R/$kernel.analysis.txt" | tail -25
done
tar -czf "$OUT/cluster.tgz" -C "$R" .
