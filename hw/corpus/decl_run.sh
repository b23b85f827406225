#!/usr/bin/env bash
# Device run of the reach-decl helper (issue 19): trace and profile traces/kernels/struct_copy.cu
# (whole structs copied into and out of shared memory), keep its SASS, and print the shared-window
# offsets traces/shared_placement/template_probe.cu measures (template helpers' static arrays).
# The files travel in .carry/reach-decl (copied into place here); jsonschema wheels in .carry/whl.
set -u
OUT=${OUT:-/tmp/decl-out}
C=.carry/reach-decl
B=/tmp/decl_build
mkdir -p "$OUT" "$B" traces/kernels traces/shared_placement
cp $C/struct_copy.cu traces/kernels/
cp $C/template_probe.cu traces/shared_placement/
export PYTHONUNBUFFERED=1
{
echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv
nvcc --version | tail -2
ncu --version | tail -1
if ! python3 -c 'import jsonschema' 2>/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .carry/whl/*.whl
  export PYTHONPATH=/tmp/site
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
python3 -c 'import bankism, jsonschema, numpy; print("bankism from", bankism.__file__)'
nvcc -arch=sm_90 -O3 -o $B/template_probe traces/shared_placement/template_probe.cu && $B/template_probe \
    | tee $OUT/template_placement.txt
nvcc -arch=sm_90 -lineinfo -O3 -o $B/struct_copy traces/kernels/struct_copy.cu || echo "BUILD FAILED struct_copy"
cuobjdump -sass $B/struct_copy > $OUT/struct_copy.sass.txt 2>&1
$B/struct_copy; echo "check struct_copy exit $?"
timeout 120 python3 -m bankism trace -o traces/struct_copy.json --kernel struct_copy --blocks all \
    --source traces/kernels/struct_copy.cu --timeout 90 \
    --description "Whole structs copied into and out of shared memory: Quad (4 floats), Pair (2 floats, through a helper returning it), Triple (3 floats), Tagged (int + double, built in registers), Six (float[6]) and Wide (2 doubles), stored from global memory or registers and read back whole at permuted indices; 4 blocks of 64 threads, all recorded." \
    -- $B/struct_copy
echo "trace exit $?"
timeout 150 python3 -m bankism profile -o traces/struct_copy.json --kernel struct_copy \
    --csv $B/struct_copy.ncu-raw.csv -- $B/struct_copy
echo "profile exit $?"
cp traces/struct_copy.json $B/struct_copy.ncu-raw.csv $OUT/ 2>/dev/null
} 2>&1 | tee "$OUT/device.log"
ls -la "$OUT"
