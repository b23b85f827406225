#!/bin/bash
# Device side of issue 19 (explain, tensor-core and synchronisation lists): build the WMMA-shapes and memcpy_async kernels, check them,
# trace them with `bankism trace` and add ncu counters with `bankism profile`; SASS with line info.
set -u
OUT=${OUT:-/tmp/tc_out}
C=${C:-.carry/reach-tc}   # holds src/ (the two .cu files of traces/kernels)
B=/tmp/tc_build
mkdir -p "$OUT" "$B" traces/kernels
cp $C/src/*.cu traces/kernels/
export PYTHONUNBUFFERED=1
{
echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv
nvcc --version | tail -2
ncu --version | tail -1
if ! python3 -c 'import jsonschema' 2>/dev/null; then  # the wheels one by one, as hw/corpus/explain_run.sh
  for w in .carry/whl/*.whl; do
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site "$w" 2>/dev/null
  done
  export PYTHONPATH=/tmp/site
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
python3 -c 'import bankism, jsonschema, numpy; print("bankism from", bankism.__file__)'
for k in wmma_shapes memcpy_async_tiles; do
  nvcc -arch=sm_90 -lineinfo -O3 -o $B/$k traces/kernels/$k.cu || echo "BUILD FAILED $k"
  cuobjdump -sass $B/$k > $B/$k.sass.txt 2>&1
  $B/$k; echo "check $k exit $?"
done
trace() {  # name description
  local name=$1 note=$2
  timeout 120 python3 -m bankism trace -o traces/$name.json --kernel $name --blocks all \
      --source traces/kernels/$name.cu --description "$note" --timeout 90 -- $B/$name
  echo "trace $name exit $?"
  timeout 150 python3 -m bankism profile -o traces/$name.json --kernel $name \
      --csv $B/$name.ncu-raw.csv --details-csv $B/$name.ncu-details.csv -- $B/$name
  echo "profile $name exit $?"
}
trace wmma_shapes "WMMA m32n8k16 and m8n32k16 (half), m16n16k16 bf16, m16n16k8 tf32 and m8n8k4 double: every matrix_a/matrix_b layout loaded from shared tiles (32-, 48- and 64-byte half rows), accumulators stored and loaded row/col-major; bf16, tf32 and double fragments move through generic LD/ST. One block of 2 warps, recorded."
trace memcpy_async_tiles "C++ asynchronous copies into shared memory: cuda::memcpy_async with cuda::pipeline (aligned_size_t<16>: LDGSTS.128; sizeof(float) into a transposed tile: LDGSTS), cooperative_groups::memcpy_async (4-byte LDGSTS loop), __pipeline_memcpy_async (8 bytes), cuda::memcpy_async with cuda::barrier (aligned_size_t<8>: LDGSTS.64; aligned_size_t<16>: a bulk copy UBLKCP per thread). One block of 128 threads, recorded."
python3 - <<'PY'
import json
for name in ("wmma_shapes", "memcpy_async_tiles"):
    try:
        doc = json.load(open(f"traces/{name}.json"))
    except Exception as e:
        print(name, "no trace", e); continue
    print(name, doc["environment"])
    for launch in doc["launches"]:
        print(" ", launch["kernel"], launch["grid"], launch["block"], launch.get("counters"))
        for s in launch["sites"]:
            print("   ", s["id"], s["sass"], s["op"], s["width"], s.get("matrices"), s.get("line"), s.get("file"))
PY
} 2>&1 | tee "$OUT/log.txt"
tar -czf "$OUT/tc.tgz" traces/wmma_shapes.json traces/wmma_shapes.npz traces/memcpy_async_tiles.json traces/memcpy_async_tiles.npz $B/*.sass.txt $B/*.csv 2>/dev/null
ls -la "$OUT"
