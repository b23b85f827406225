#!/usr/bin/env bash
# Second bisect of the PyTorch crash: callback domains one by one, who starts CUDA, preloading, cuda-gdb.
# Run from the repository root on the GPU machine after the setup of device.sh (same tree).
set -u
OUT=${OUT:-/tmp/pytrace-out}
mkdir -p "$OUT" build/pytrace/diag
B=build/pytrace/diag
RAW=build/pytrace/raw
export PYTHONUNBUFFERED=1
now() { date +%s.%N; }
v() {
    local name=$1 limit=$2
    shift 2
    local start end rc
    start=$(now)
    timeout "$limit" "$@" >"$B/$name.out" 2>"$B/$name.err"
    rc=$?
    end=$(now)
    awk -v n="$name" -v r="$rc" -v s="$start" -v e="$end" 'BEGIN { printf "%-26s rc=%-4s %7.2f s\n", n, r, e - s }'
    grep -a -A 40 "fatal signal" "$B/$name.err" | head -60
    tail -n 2 "$B/$name.out"
}
{
if ! python3 -c 'import jsonschema' 2>/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .carry/pytracer/whl/*.whl
    export PYTHONPATH=/tmp/site
fi
rm -rf bankism hw/pytrace && cp -r .carry/pytracer/bankism bankism && cp -r .carry/pytracer/hw/pytrace hw/pytrace
python3 -c 'from bankism.capture import build, toolkit; b = build.build_tracer(toolkit.find_toolkit()); print("LIB", b.library); print("PATCHES", b.patches)' | tee build/pytrace/toolkit.txt
LIB=$(awk '/^LIB/ {print $2}' build/pytrace/toolkit.txt)
export PATCHES=$(awk '/^PATCHES/ {print $2}' build/pytrace/toolkit.txt)
ulimit -s
I="bash hw/pytrace/inject.sh $LIB"
Z="python3 hw/pytrace/torch_zeros.py"
v all_domains 60 $I $RAW/d1 subscribe $Z
v no_domain 60 $I $RAW/d2 subscribe BANKISM_TRACE_DOMAINS=none $Z
for d in resource launch synchronize memcpy; do v "only_$d" 60 $I $RAW/d_$d subscribe BANKISM_TRACE_DOMAINS=$d $Z; done
v cudart_only 60 $I $RAW/d3 subscribe python3 hw/pytrace/cudart_only.py
v torch_then_cupy 60 $I $RAW/d4 subscribe python3 hw/pytrace/torch_then_cupy.py
v cupy_only 60 $I $RAW/d5 subscribe python3 -c 'import cupy; print(float(cupy.arange(10).sum()))'
v preload_trace 90 $I $RAW/d6 trace LD_PRELOAD=$LIB BANKISM_TRACE_INIT_AT_LOAD=1 BANKISM_TRACE_KERNEL=Fill $Z
v preload_subscribe_none 60 $I $RAW/d7 subscribe LD_PRELOAD=$LIB BANKISM_TRACE_INIT_AT_LOAD=1 BANKISM_TRACE_DOMAINS=none $Z
cat > build/pytrace/gdb.cmd <<'G'
set pagination off
set confirm off
run
bt 40
info registers rip rsp
x/6i $pc
info sharedlibrary
G
v gdb 150 env CUDA_INJECTION64_PATH=$LIB BANKISM_TRACE_DIR=$RAW/d8 BANKISM_TRACE_PATCHES=$PATCHES BANKISM_TRACE_STAGE=subscribe \
    cuda-gdb -batch -x build/pytrace/gdb.cmd --args python3 hw/pytrace/torch_zeros.py
grep -a -E "^#|signal|SIGSEGV|rip|rsp|=>" "$B/gdb.out" | head -60
grep -a -E "sanitizer|cupti|cudart|libcuda|nvrtc|nvJit|tracer" "$B/gdb.out" | head -30
} 2>&1 | tee "$OUT/diag.txt"
tar -czf "$OUT/diag.tgz" "$B" 2>/dev/null
