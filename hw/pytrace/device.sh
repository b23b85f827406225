#!/usr/bin/env bash
# Device run for the Python-program tracer work (issue 13), on the GPU machine from the repository root:
#   bash hw/pytrace/device.sh [STEPS]      STEPS from: setup diag smoke record timing profile (default: all)
# - diag: the crash's diagnosis (tracer started from CUDA_INJECTION64_PATH alone, with a backtrace handler);
# - smoke: hw/corpus/smoke.cu traced the default way (23 records expected, as in traces/ since the start);
# - record: `bankism record` of each program of hw/pytrace into traces/python/, then `bankism analyze`;
# - timing: plain run, compute-sanitizer memcheck and `bankism trace` of hw/pytrace/torch_softmax.py;
# - profile: `bankism profile` with ncu's kernel filter and launch window.
# Results: $OUT/log.txt, $OUT/runs.tgz (each run's stdout/stderr), $OUT/traces.tgz (traces/python, raw).
# hw/pytrace/diagnose.sh is the second bisect (callback domains, who starts CUDA, preloading).
set -u
OUT=${OUT:-/tmp/pytrace-out}
STEPS=${1:-setup diag smoke record timing profile}
mkdir -p "$OUT" build/pytrace/runs build/pytrace/raw traces/python
B=build/pytrace/runs
RAW=build/pytrace/raw
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export TORCH_EXTENSIONS_DIR=$PWD/build/pytrace/torch_extensions
now() { date +%s.%N; }
# v NAME TIMEOUT CMD...: run one command, keep its output, print exit code, wall time and what went wrong.
v() {
    local name=$1 limit=$2
    shift 2
    local start end rc
    start=$(now)
    timeout "$limit" "$@" >"$B/$name.out" 2>"$B/$name.err"
    rc=$?
    end=$(now)
    awk -v n="$name" -v r="$rc" -v s="$start" -v e="$end" 'BEGIN { printf "%-26s rc=%-4s %7.2f s\n", n, r, e - s }'
    grep -a -m 6 -E "bankism tracer: (error|SIGSEGV)|^error:|Error" "$B/$name.err"
    grep -a -A 30 "fatal signal" "$B/$name.err" | head -40
    tail -n 2 "$B/$name.out"
}
has() { [[ " $STEPS " == *" $1 "* ]]; }

{
echo "===== setup"
date -u
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
ncu --version | tail -1
compute-sanitizer --version | tail -1
if ! python3 -c 'import jsonschema' 2>/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .carry/pytracer/whl/*.whl
    export PYTHONPATH=/tmp/site
fi
if [ -d .carry/pytracer/bankism ]; then
    rm -rf bankism hw/pytrace && cp -r .carry/pytracer/bankism bankism && cp -r .carry/pytracer/hw/pytrace hw/pytrace
fi
python3 -c 'from bankism.capture import build, toolkit; b = build.build_tracer(toolkit.find_toolkit()); print("LIB", b.library); print("PATCHES", b.patches)' | tee build/pytrace/toolkit.txt
LIB=$(awk '/^LIB/ {print $2}' build/pytrace/toolkit.txt)
export PATCHES=$(awk '/^PATCHES/ {print $2}' build/pytrace/toolkit.txt)
(timeout 240 python3 hw/pytrace/ext_inline.py >build/pytrace/ext_build.log 2>&1; echo "ext_inline first run: rc=$?" >>build/pytrace/ext_build.log) &
EXT=$!

if has diag; then
    echo "===== diag: started from CUDA_INJECTION64_PATH alone (inside cuInit), subscribe only"
    v diag_injection 60 bash hw/pytrace/inject.sh "$LIB" "$RAW/diag" subscribe python3 hw/pytrace/torch_zeros.py
    grep -a "SIGSEGV handler" "$B/diag_injection.err"
    v diag_preload 60 bash hw/pytrace/inject.sh "$LIB" "$RAW/diag2" subscribe LD_PRELOAD="$LIB" BANKISM_TRACE_INIT_AT_LOAD=1 python3 hw/pytrace/torch_zeros.py
    grep -a "SIGSEGV handler" "$B/diag_preload.err"
fi

if has smoke; then
    echo "===== smoke (C program), the default way"
    nvcc -arch=sm_90 -lineinfo -o build/pytrace/smoke hw/corpus/smoke.cu
    v smoke 60 python3 -m bankism trace -o build/pytrace/smoke.json -- ./build/pytrace/smoke
fi

if has record; then
    wait $EXT
    tail -n 2 build/pytrace/ext_build.log
    echo "===== record: the Python programs"
    rec() {  # rec NAME SCRIPT KERNEL BLOCKS DESCRIPTION
        v "rec_$1" 150 python3 -m bankism record -o "traces/python/$1.json" --kernel "$3" --launch 0 --blocks "$4" \
            --source "hw/pytrace/$2" --description "$5" --keep-raw "$RAW/rec_$1" --timeout 100 \
            --csv "traces/python/$1.ncu-raw.csv" -- python3 "hw/pytrace/$2"
        tail -n 4 "$B/rec_$1.out"
    }
    rec torch_softmax torch_softmax.py SoftMaxForward first:2 \
        "PyTorch eager torch.softmax over 64 rows of 4096 floats (hw/pytrace/torch_softmax.py): PyTorch's block softmax kernel, the max and the sum reduced across the block's warps through shared memory. First 2 of 64 blocks recorded."
    rec triton_softmax triton_kernels.py '^softmax_rows$' first:2 \
        "Triton row softmax (hw/pytrace/triton_kernels.py, softmax_rows): 64 rows of 1024 floats, 4 warps, tl.max and tl.sum across the warps. First 2 of 64 programs recorded."
    rec triton_matmul triton_kernels.py '^matmul_tile$' all \
        "Triton 64x64x32 fp16 tl.dot tile with an fp32 accumulator (hw/pytrace/triton_kernels.py, matmul_tile), one program of 4 warps."
    rec ext_block_sum ext_inline.py block_sum_interleaved first:2 \
        "CUDA kernel built with torch.utils.cpp_extension.load_inline (hw/pytrace/ext_inline.py, block_sum_interleaved): interleaved tree reduction of 256 floats per block in shared memory. First 2 of 32 blocks recorded."
    rec numba_transpose numba_shared.py '^transpose_tile$' '0,0;1,0' \
        "Numba CUDA kernel (hw/pytrace/numba_shared.py, transpose_tile) with cuda.shared.array((32, 32), float32): a 128x128 transpose, grid 4x4 of 32x32 threads. Blocks (0,0) and (1,0) recorded."
    for name in torch_softmax triton_softmax triton_matmul ext_block_sum numba_transpose; do
        echo "--- analyze $name"
        [ -f "traces/python/$name.json" ] && COLUMNS=200 timeout 60 python3 -m bankism analyze "traces/python/$name.json" 2>&1 | head -45
        for cubin in "$RAW/rec_$name"/module_*.cubin; do
            [ -f "$cubin" ] && [ "$(stat -c %s "$cubin")" -lt 2000000 ] && nvdisasm -gi -c "$cubin" 2>/dev/null |
                grep -E '//## File|LDS|STS|LDSM|STSM|ATOMS|LDGSTS|HGMMA|UTMA|UBLKCP|SYNCS' | head -30
        done
        grep -c '"event": "module"' "$RAW/rec_$name/manifest.jsonl"; grep -c '"patched": true' "$RAW/rec_$name/manifest.jsonl"
    done
fi

if has timing; then
    echo "===== timing: hw/pytrace/torch_softmax.py"
    S="python3 hw/pytrace/torch_softmax.py"
    T="python3 -m bankism trace --kernel SoftMaxForward --launch 0 --blocks first:2"
    for i in 1 2; do
        v "t_plain$i" 60 $S
        v "t_memcheck$i" 120 compute-sanitizer --tool memcheck $S
        v "t_trace$i" 120 $T -o build/pytrace/t_trace$i.json -- $S
    done
    v t_trace_patch_all 180 env BANKISM_TRACE_PATCH_ALL=1 $T -o build/pytrace/t_all.json -- $S
    v t_trace_eager 180 env CUDA_MODULE_LOADING=EAGER $T -o build/pytrace/t_eager.json -- $S
fi

if has profile; then
    echo "===== profile: ncu's kernel filter, launch window"
    v p_numba_bare 90 python3 -m bankism profile --kernel transpose_tile --launch 0 -- python3 hw/pytrace/numba_shared.py
    tail -n 2 "$B/p_numba_bare.out"
    v p_numba_anchored 90 python3 -m bankism profile --kernel '^transpose_tile$' -- python3 hw/pytrace/numba_shared.py
    tail -n 2 "$B/p_numba_anchored.out"
    v p_triton_window 90 python3 -m bankism profile --kernel 'softmax' --launch 1 --launch-count 1 -- python3 hw/pytrace/triton_kernels.py
    tail -n 3 "$B/p_triton_window.out"
fi
date -u
} 2>&1 | tee "$OUT/log.txt"

tar -czf "$OUT/runs.tgz" "$B" build/pytrace/ext_build.log 2>/dev/null
find "$RAW" -name '*.cubin' -size +4M -delete
tar -czf "$OUT/traces.tgz" traces/python "$RAW"/rec_* build/pytrace/*.json 2>/dev/null
ls -la "$OUT"
