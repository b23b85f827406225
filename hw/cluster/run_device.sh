#!/usr/bin/env bash
# Device run 13 (hw/cluster/dsmem.cu): both cluster kernels recorded with every block and analysed, so the
# traces in traces/cluster/ show a cluster launch's own accesses simulated exactly and its distributed
# shared memory accesses listed as not simulated. From the repository root on the GPU machine, carry
# [".carry/whl"]. Brings back $OUT/cluster.tgz.
set -u
. hw/device_env.sh
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/cluster-out}
R="$OUT/c"
mkdir -p "$R" build
write_env "$R/env.txt"
need_jsonschema
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
