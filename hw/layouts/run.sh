#!/usr/bin/env bash
# Device driver for hw/layouts (docs/layouts.md): records every kernel of layouts.cu with `bankism record`
# (tracer + ncu counters, one launch per program run), then saves one Nsight Compute report (.ncu-rep) of
# all thirteen launches with its raw-page CSV export, for the ncu-import test.
#
# Usage, from the repository root on the GPU machine, with the binary built on the host into $CARRY:
#   nvcc -O3 -arch=sm_90 -lineinfo -o $CARRY/layouts hw/layouts/layouts.cu
#   bash $CARRY/hw/layouts/run.sh $CARRY      (results under $OUT; SKIP_REPORT=1 skips the ncu report)
# A fresh machine may lack jsonschema: put its wheels (and its dependencies') in $CARRY/whl.
set -u
CARRY=${1:-.carry/layout}
OUT=${OUT:-/tmp/bankism-layouts}
mkdir -p "$OUT/traces"
if ! python3 -c 'import jsonschema' 2>/dev/null && ls "$CARRY"/whl/*.whl >/dev/null 2>&1; then
    # a fresh machine may lack jsonschema (the trace validator): install the carried wheels
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
        "$CARRY"/whl/*.whl && export PYTHONPATH=/tmp/site
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
KERNELS="cute_a64_plain cute_a64_sw333 cute_b128_sw333_trans cute_b128_sw334_trans cute_b64_sw334_trans
cute_b64_sw333_trans triton_v8_p1_m8 triton_v8_p8_m8 triton_v8_p2_m4 triton_v1_p1_m1 triton_v8_p4_m8
triton_rows_v1_p1_m1 triton_rows_v8_p1_m8"
{
echo "===== environment"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
nvcc --version | tail -2
ncu --version | tail -1
python3 -c 'import sys, numpy, numba, jsonschema, bankism; print(sys.version.split()[0], "numpy", numpy.__version__, "numba", numba.__version__)'
echo "===== record"
for kernel in $KERNELS; do
    start=$(date +%s)
    timeout 90 python3 -m bankism record -o "$OUT/traces/$kernel.json" --kernel "^$kernel\$" \
        --source "$CARRY/hw/layouts/layouts.cu" --description "hw/layouts/layouts.cu $kernel" \
        -- "$CARRY/layouts" "$kernel" > "$OUT/traces/$kernel.log" 2>&1
    echo "$kernel: exit $? in $(( $(date +%s) - start )) s"
    tail -3 "$OUT/traces/$kernel.log"
done
if [ "${SKIP_REPORT:-0}" = 1 ]; then echo "===== ncu report skipped (SKIP_REPORT=1)"; else
echo "===== ncu report"
metrics=$(python3 -c 'from bankism.capture.ncu import all_metrics; print(",".join(all_metrics()))')
echo "metrics: $metrics"
ncu --metrics "$metrics" -f -o "$OUT/layouts_report" "$CARRY/layouts"
ncu --import "$OUT/layouts_report.ncu-rep" --csv --page raw --print-units base --print-kernel-base mangled \
    > "$OUT/layouts_report.csv"
echo "csv rows: $(wc -l < "$OUT/layouts_report.csv")"
fi
} 2>&1 | tee "$OUT/device.log"
tar -czf "$OUT/traces.tgz" -C "$OUT" traces && rm -rf "$OUT/traces"
ls -la "$OUT"
