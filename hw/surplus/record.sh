#!/usr/bin/env bash
# Device side of issue 21's recordings (from the repository root on the GPU machine, .carry/surplus carried
# with code/bankism, python/, whl/ and the binaries of hw/surplus/run_device.sh): `bankism record` (trace,
# then ncu with the shared and traffic counters) of
#   - the Python programs of hw/surplus/python (CuPy and Numba 64- and 256-bin histograms, torch.topk)
#     into traces/python/;
#   - the surplus kernels (hw/surplus/kernels, the corpus programs) into traces/surplus/kernels/.
# Stops starting recordings after BUDGET seconds. Writes $OUT/log.txt, $OUT/traces.tgz, $OUT/logs.tgz.
set -u
OUT=${OUT:-/tmp/record-out}
C=.carry/surplus
BUDGET=${BUDGET:-420}
T0=$(date +%s)
mkdir -p "$OUT" build/rec traces/python traces/surplus/kernels
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
chmod +x $C/* 2>/dev/null
{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv
  echo "--- nvcc"; nvcc --version
  echo "--- ncu"; ncu --version
} > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"
if ! python3 -c 'import jsonschema' 2>/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site $C/whl/*.whl
  export PYTHONPATH=/tmp/site
fi
# `python3 -m bankism` from the repository root imports ./bankism first: put this branch's package there
rm -rf bankism && cp -r $C/code/bankism bankism
python3 -c 'import bankism, cupy, torch; print("bankism", bankism.__file__, "cupy", cupy.__version__, "torch", torch.__version__)'
# the image's numba 0.68 names np.row_stack, which its numpy 2.5 no longer has: numba_histogram.py aliases it
# rec NAME DEST KERNEL BLOCKS MAX_RECORDS SOURCE -- PROGRAM...
rec() {
  local name=$1 dest=$2 kernel=$3 blocks=$4 max=$5 source=$6
  shift 7
  if [ $(( $(date +%s) - T0 )) -gt "$BUDGET" ]; then echo "$name skipped (budget)"; return; fi
  local t=$(date +%s)
  timeout 240 python3 -m bankism record -o "$dest/$name.json" --kernel "$kernel" --blocks "$blocks" \
      --max-records "$max" --source "$source" --timeout 150 --csv "$dest/$name.ncu-raw.csv" \
      --description "$name (issue 21, hw/surplus/record.sh): $source $*, blocks $blocks" -- "$@" \
      > "build/rec/$name.log" 2>&1
  echo "$name rc=$? seconds=$(( $(date +%s) - t ))"
  grep -a -E "^error|Error|OK|FAIL|launch [0-9]+:" "build/rec/$name.log" | tail -4
}
P=traces/python
S=traces/surplus/kernels
rec cupy_histogram64 $P shared_histogram all 200000 hw/surplus/python/cupy_histogram.py -- python3 $C/python/cupy_histogram.py 64
rec numba_histogram64 $P shared_histogram all 200000 hw/surplus/python/numba_histogram.py -- python3 $C/python/numba_histogram.py 64
rec cupy_histogram256 $P shared_histogram all 200000 hw/surplus/python/cupy_histogram.py -- python3 $C/python/cupy_histogram.py 256
rec numba_histogram256 $P shared_histogram all 200000 hw/surplus/python/numba_histogram.py -- python3 $C/python/numba_histogram.py 256
rec torch_topk $P gatherTopK all 4000000 hw/surplus/python/torch_topk.py -- python3 $C/python/torch_topk.py
rec hist64 $S hist64 all 100000 hw/surplus/kernels/shared_counters.cu -- $C/shared_counters hist64
rec hist32 $S hist32 first:8 100000 hw/surplus/kernels/shared_counters.cu -- $C/shared_counters hist32 33
rec counters $S '^counters' first:8 100000 hw/surplus/kernels/shared_counters.cu -- $C/shared_counters counters 33
rec transpose_f64_edge $S transpose_f64 first:4 100000 hw/surplus/kernels/transpose_f64.cu -- $C/transpose_f64 plain 4100
rec transpose_f64 $S transpose_f64 first:64 200000 hw/surplus/kernels/transpose_f64.cu -- $C/transpose_f64 plain
rec transpose_f64_padded $S transpose_f64 first:64 200000 hw/surplus/kernels/transpose_f64.cu -- $C/transpose_f64 padded
rec transpose_tiled $S transpose_tiled first:64 200000 hw/surplus/kernels/transpose_tiled.cu -- $C/transpose_tiled plain
rec transpose_tiled_padded $S transpose_tiled first:64 200000 hw/surplus/kernels/transpose_tiled.cu -- $C/transpose_tiled padded
rec colsum_f64 $S colsum_f64 first:64 200000 hw/surplus/kernels/colsum_f64.cu -- $C/colsum_f64
rec wmma_hgemm_padded $S wmma_hgemm first:32 1000000 hw/surplus/kernels/wmma_hgemm.cu -- $C/wmma_hgemm padded
rec sgemm_regtile $S sgemm_regtile all 200000 traces/kernels/sgemm_regtile.cu -- $C/k_sgemm_regtile plain
rec sgemm_regtile_padded $S sgemm_regtile all 200000 traces/kernels/sgemm_regtile.cu -- $C/k_sgemm_regtile padded
rec counters_used $S '^counters' first:8 100000 hw/surplus/kernels/shared_counters.cu -- $C/shared_counters counters_used 33
rec histogram_float $S histogram_float all 200000 traces/kernels/histogram_float.cu -- $C/k_histogram_float
rec wmma_hgemm $S wmma_hgemm first:32 1000000 hw/surplus/kernels/wmma_hgemm.cu -- $C/wmma_hgemm plain
rec dgemm_tile $S multiply first:16 1000000 traces/kernels/dgemm_tile.cu -- $C/k_dgemm_tile
# run 5: LDSM/STSM beside LDS/STS, for what the SASS-instrumented (addressed) counters cover
rec ldmatrix_tile $S ldmatrix all 100000 traces/kernels/ldmatrix_tile.cu -- $C/k_ldmatrix_tile plain
echo "total seconds $(( $(date +%s) - T0 ))"
tar -czf "$OUT/traces.tgz" traces/python/*histogram* traces/python/torch_topk* traces/surplus/kernels 2>/dev/null
tar -czf "$OUT/logs.tgz" build/rec 2>/dev/null
ls -la "$OUT"
