#!/usr/bin/env bash
# Device-side driver for the corpus: environment report, tracer smoke test, then every corpus entry
# (hw/corpus/corpus.py). Results are packed into $OUT: device.log, corpus.tgz (traces/*.json|npz, logs, ncu
# CSV exports, raw tracer output of the small programs).
#
# Usage (from the repository root, on the GPU machine): bash hw/corpus/run.sh [smoke|all] [ENTRY ...]
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/bankism-out}
mode=${1:-all}
shift || true
mkdir -p build/corpus/raw "$OUT"
log="$OUT/device.log"
export PYTHONUNBUFFERED=1

section() { echo; echo "===== $*"; }

{
section environment
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv
for tool in nvcc ncu compute-sanitizer nvdisasm cuobjdump python3; do echo "$tool: $(command -v $tool)"; done
nvcc --version | tail -2
ncu --version | tail -1
python3 -c 'import sys, numpy, numba, typer, rich; print(sys.version.split()[0], "numpy", numpy.__version__, "numba", numba.__version__, "typer", typer.__version__)'
if ! python3 -c 'import jsonschema' 2>/dev/null; then
    echo "jsonschema missing: installing the carried wheels"
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .carry/tracer_whl/*.whl
    export PYTHONPATH=/tmp/site
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
python3 -c 'import jsonschema, bankism; print("jsonschema", jsonschema.__version__, "bankism importable")'
python3 -c 'import cupy; print("cupy", cupy.__version__)'
python3 -c 'from bankism.capture.toolkit import find_toolkit; print(find_toolkit())'
section smoke test
nvcc -arch=sm_90 -lineinfo -o build/corpus/smoke hw/corpus/smoke.cu && ./build/corpus/smoke
smoke_trace() {
    rm -rf build/corpus/raw/smoke
    BANKISM_TRACE_DEBUG=1 timeout 100 python3 -m bankism trace -o build/corpus/smoke.json \
        --source hw/corpus/smoke.cu --keep-raw build/corpus/raw/smoke --timeout 60 -- ./build/corpus/smoke
}
smoke_ok=1
if ! smoke_trace; then
    cat build/corpus/raw/smoke/manifest.jsonl
    echo "trace failed with CUDA_INJECTION64_PATH alone: retrying with LD_PRELOAD as well"
    export BANKISM_TRACE_PRELOAD=1
    smoke_trace || smoke_ok=0
fi
echo "smoke trace ok: $smoke_ok"
cat build/corpus/raw/smoke/manifest.jsonl
timeout 120 python3 -m bankism profile -o build/corpus/smoke.json --csv build/corpus/smoke.ncu-raw.csv \
    --details-csv build/corpus/smoke.ncu-details.csv -- ./build/corpus/smoke
echo "profile exit $?"
python3 - <<'PY'
import json
doc = json.load(open("build/corpus/smoke.json"))
for launch in doc["launches"]:
    print({k: launch[k] for k in ("index", "kernel", "grid", "block", "shared_bytes", "counters")})
    for site in launch["sites"]:
        print("  site", site)
    recs = launch.get("records")
    if recs:
        for i in range(min(len(recs["warp"]), 24)):
            print("  rec", recs["site"][i], recs["warp"][i], hex(recs["active"][i]), recs["addresses"][i][:8])
PY
nvdisasm -gi -c build/corpus/raw/smoke/module_0.cubin 2>&1 | grep -E "LDS|STS|ATOMS|LDSM" | head -20

if [ "$mode" = all ] && [ "$smoke_ok" = 1 ]; then
    section corpus
    timeout 400 python3 hw/corpus/corpus.py "$@"
    echo "corpus exit $?"
fi
} 2>&1 | tee "$log"

tar -czf "$OUT/corpus.tgz" --ignore-failed-read traces/*.json traces/*.npz build/corpus/*.json build/corpus/*.log \
    build/corpus/*.csv 2>/dev/null
tar -czf "$OUT/raw.tgz" build/corpus/raw 2>/dev/null
ls -la "$OUT"
