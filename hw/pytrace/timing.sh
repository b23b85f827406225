#!/usr/bin/env bash
# Overhead of `bankism trace` on a PyTorch script, next to a plain run and compute-sanitizer memcheck
# (docs/tracer.md, "Cost"). On the GPU machine, from the repository root: bash hw/pytrace/timing.sh
# Three rounds, each: plain, memcheck, bankism trace (the whole command: build check, run, conversion), and
# the traced program alone (tracer preloaded by hand, no conversion). Results: $OUT/timing.txt.
set -u
OUT=${OUT:-/tmp/pytrace-out}
mkdir -p "$OUT" build/pytrace/timing
export PYTHONUNBUFFERED=1
if ! python3 -c 'import jsonschema' 2>/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .carry/pytracer/whl/*.whl
    export PYTHONPATH=/tmp/site
fi
if [ -d .carry/pytracer/bankism ]; then
    rm -rf bankism hw/pytrace && cp -r .carry/pytracer/bankism bankism && cp -r .carry/pytracer/hw/pytrace hw/pytrace
fi
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
compute-sanitizer --version | tail -1
python3 -c 'import torch; print("torch", torch.__version__)'
python3 -c 'from bankism.capture import build, toolkit; b = build.build_tracer(toolkit.find_toolkit()); print("LIB", b.library); print("PATCHES", b.patches)' | tee build/pytrace/timing/toolkit.txt
LIB=$(awk '/^LIB/ {print $2}' build/pytrace/timing/toolkit.txt)
export PATCHES=$(awk '/^PATCHES/ {print $2}' build/pytrace/timing/toolkit.txt)
S="python3 hw/pytrace/torch_softmax.py"
t() {  # t NAME CMD...: wall seconds of one run
    local name=$1 start end rc
    shift
    start=$(date +%s.%N)
    timeout 120 "$@" >build/pytrace/timing/$name.out 2>build/pytrace/timing/$name.err
    rc=$?
    end=$(date +%s.%N)
    awk -v n="$name" -v r="$rc" -v s="$start" -v e="$end" 'BEGIN { printf "%-18s rc=%-3s %6.2f s\n", n, r, e - s }'
}
$S >/dev/null  # warm the file cache
for round in 1 2 3; do
    t "plain$round" $S
    t "memcheck$round" compute-sanitizer --tool memcheck $S
    t "trace$round" python3 -m bankism trace -o build/pytrace/timing/t$round.json --kernel SoftMaxForward --launch 0 --blocks first:2 -- $S
    mkdir -p build/pytrace/timing/raw$round
    t "program$round" env LD_PRELOAD="$LIB" BANKISM_TRACE_INIT_AT_LOAD=1 BANKISM_TRACE_DIR=build/pytrace/timing/raw$round \
        BANKISM_TRACE_PATCHES="$PATCHES" BANKISM_TRACE_KERNEL=SoftMaxForward BANKISM_TRACE_LAUNCHES=0 BANKISM_TRACE_BLOCKS=first:2 $S
done
tail -n 1 build/pytrace/timing/trace1.out
} 2>&1 | tee "$OUT/timing.txt"
