#!/bin/bash
# Device side of issue 15's measurement: build the HGEMM ldmatrix pair and the WMMA
# kernel from tests/data/explain/, check them, trace them with `bankism trace` and add ncu counters
# with `bankism profile`. Everything comes back in $OUT/ptx.tgz (+ log.txt).
set -u
OUT=${OUT:-/tmp/ptx_out}
C=${C:-.carry/ptx}   # holds src/ (the two .cu files), code/bankism (optional) and whl/ (jsonschema wheels)
B=/tmp/ptx_build
mkdir -p "$OUT" "$B" tests/data/explain traces
cp $C/src/*.cu tests/data/explain/
export PYTHONUNBUFFERED=1
{
echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv
nvcc --version | tail -2
ncu --version | tail -1
if ! python3 -c 'import jsonschema' 2>/dev/null; then
  python3 -m pip install -q --no-index --no-compile --no-cache-dir --find-links $C/whl --target /tmp/site jsonschema
  export PYTHONPATH=/tmp/site
fi
export PYTHONPATH="$PWD/$C/code${PYTHONPATH:+:$PYTHONPATH}"
python3 -c 'import bankism, jsonschema, numpy; print("bankism from", bankism.__file__)'
for k in hgemm_ldmatrix wmma_tiles; do
  nvcc -arch=sm_90 -lineinfo -O3 -o $B/$k tests/data/explain/$k.cu || echo "BUILD FAILED $k"
  cuobjdump -sass $B/$k > $B/$k.sass.txt 2>&1
done
$B/hgemm_ldmatrix plain; $B/hgemm_ldmatrix permuted; $B/wmma_tiles
trace() {  # name kernel description program...
  local name=$1 kernel=$2 note=$3; shift 3
  timeout 120 python3 -m bankism trace -o traces/$name.json --kernel $kernel --blocks all \
      --source tests/data/explain/$kernel.cu --description "$note" --timeout 90 -- "$@"
  echo "trace $name exit $?"
  timeout 150 python3 -m bankism profile -o traces/$name.json --kernel $kernel \
      --csv $B/$name.ncu-raw.csv --details-csv $B/$name.ncu-details.csv -- "$@"
  echo "profile $name exit $?"
}
trace hgemm_ldmatrix hgemm_ldmatrix "HGEMM 128x128x128 (fp16 in, fp32 out), BM=BN=64, BK=32 (64-byte shared rows), 4 warps of 32x32, fragments by ldmatrix.x4 in inline PTX, mma.sync m16n8k16; tiles stored as read: the 8 rows of each ldmatrix matrix fall on 2 groups of 4 banks; all 4 blocks recorded. Note: ncu's smsp__sass_inst_executed_op_shared_ld/st count LDS/STS only, while its wavefront and bank-conflict counters for ld/st include LDSM/STSM." $B/hgemm_ldmatrix plain
trace hgemm_ldmatrix_permuted hgemm_ldmatrix "As hgemm_ldmatrix with the XOR-permuted layout (16-byte chunk c of row r at chunk c ^ ((r / 2) % 4)); all 4 blocks recorded. Note: ncu's smsp__sass_inst_executed_op_shared_ld/st count LDS/STS only, while its wavefront and bank-conflict counters for ld/st include LDSM/STSM." $B/hgemm_ldmatrix permuted
trace wmma_tiles wmma_tiles "WMMA m16n16k16: matrix_a row/col-major, matrix_b row/col-major fragments loaded from unpadded (32-byte rows) and padded (48-byte rows) half tiles, float and half accumulators stored row/col-major and reloaded; one block of 2 warps, recorded." $B/wmma_tiles
python3 - <<'PY'
import json
for name in ("hgemm_ldmatrix", "hgemm_ldmatrix_permuted", "wmma_tiles"):
    try:
        doc = json.load(open(f"traces/{name}.json"))
    except Exception as e:
        print(name, "no trace", e); continue
    print(name, doc["environment"])
    for launch in doc["launches"]:
        print(" ", launch["kernel"], launch["grid"], launch["block"], launch.get("counters"))
        for s in launch["sites"]:
            print("   ", s["id"], s["sass"], s["op"], s["width"], s.get("matrices"), s.get("line"))
PY
} 2>&1 | tee "$OUT/log.txt"
tar -czf "$OUT/ptx.tgz" traces/hgemm_ldmatrix*.json traces/hgemm_ldmatrix*.npz traces/wmma_tiles.json traces/wmma_tiles.npz $B/*.sass.txt $B/*.csv 2>/dev/null
ls -la "$OUT"
