#!/usr/bin/env bash
# Device run for the Python-program tracer work (issue 13): bisects the PyTorch crash, records the Python
# programs of hw/pytrace with `bankism record`, and times plain / compute-sanitizer / bankism trace.
# Run from the repository root on the GPU machine: bash hw/pytrace/device.sh [STEPS]   (default: all)
# Results: $OUT/log.txt, $OUT/bisect.tgz (stderr of each variant), $OUT/traces.tgz (traces/python, raw).
set -u
OUT=${OUT:-/tmp/pytrace-out}
STEPS=${1:-setup bisect smoke record timing profile}
mkdir -p "$OUT" build/pytrace/bisect build/pytrace/raw traces/python
B=build/pytrace/bisect
RAW=build/pytrace/raw
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export TORCH_EXTENSIONS_DIR=$PWD/build/pytrace/torch_extensions
now() { date +%s.%N; }
# v NAME TIMEOUT CMD...: run one variant, keep its output, print exit code, wall time and what it said.
v() {
    local name=$1 limit=$2
    shift 2
    local start end rc
    start=$(now)
    timeout "$limit" "$@" >"$B/$name.out" 2>"$B/$name.err"
    rc=$?
    end=$(now)
    awk -v n="$name" -v r="$rc" -v s="$start" -v e="$end" 'BEGIN { printf "%-30s rc=%-4s %7.2f s\n", n, r, e - s }'
    grep -a -m 8 -E "bankism tracer: (signal|error)|Fatal Python|Segmentation|^error:|Traceback|Error" "$B/$name.err"
    grep -a -A 12 "bankism tracer: signal" "$B/$name.err" | head -30
    tail -n 3 "$B/$name.out"
}
has() { [[ " $STEPS " == *" $1 "* ]]; }

{
echo "===== setup"
date -u
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
nvcc --version | tail -2
ncu --version | tail -1
compute-sanitizer --version | tail -1
if ! python3 -c 'import jsonschema' 2>/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .carry/pytracer/whl/*.whl
    export PYTHONPATH=/tmp/site
fi
rm -rf bankism hw/pytrace && cp -r .carry/pytracer/bankism bankism && cp -r .carry/pytracer/hw/pytrace hw/pytrace
python3 - <<'PY'
import importlib.metadata as m
import sys
print(sys.version.split()[0], *(f"{p} {m.version(p)}" for p in ("torch", "triton", "numba", "numba-cuda", "cupy-cuda13x")))
PY
python3 -c 'from bankism import tracing; t = tracing.find_toolkit(); print(t); b = tracing.build_tracer(t); print("LIB", b.library); print("PATCHES", b.patches)' | tee build/pytrace/toolkit.txt
LIB=$(awk '/^LIB/ {print $2}' build/pytrace/toolkit.txt)
PATCHES=$(awk '/^PATCHES/ {print $2}' build/pytrace/toolkit.txt)
SINC=$(python3 -c 'from bankism import tracing; print(tracing.find_toolkit().sanitizer_include)')
SLIB=$(python3 -c 'from bankism import tracing; print(tracing.find_toolkit().sanitizer_lib)')
nvcc -O2 -std=c++17 -shared -Xcompiler -fPIC -cudart none -I "$SINC" -I bankism/tracer -o build/pytrace/libold.so \
    .carry/pytracer/old/tracer.cpp -L "$SLIB" -lsanitizer-public -ldl -Xlinker -rpath -Xlinker "$SLIB" && echo "old tracer built"
OLD=$PWD/build/pytrace/libold.so
(timeout 240 python3 hw/pytrace/ext_inline.py >build/pytrace/ext_build.log 2>&1; echo "ext_inline first run: rc=$?" >>build/pytrace/ext_build.log) &
EXT=$!

export PATCHES

if has bisect; then
    echo "===== bisect: import torch; torch.zeros(1, device='cuda')"
    Z="python3 -X faulthandler hw/pytrace/torch_zeros.py"
    v z_plain 60 $Z
    v z_memcheck 120 compute-sanitizer --tool memcheck $Z
    v z_old_lazy 90 bash hw/pytrace/inject.sh "$OLD" "$RAW/z_old_lazy" trace CUDA_MODULE_LOADING=LAZY $Z
    v z_old_eager 60 bash hw/pytrace/inject.sh "$OLD" "$RAW/z_old_eager" trace CUDA_MODULE_LOADING=EAGER $Z
    for stage in load subscribe observe patch trace; do
        v "z_new_${stage}_lazy" 90 bash hw/pytrace/inject.sh "$LIB" "$RAW/z_new_${stage}_lazy" "$stage" CUDA_MODULE_LOADING=LAZY $Z
    done
    v z_new_trace_eager 60 bash hw/pytrace/inject.sh "$LIB" "$RAW/z_new_trace_eager" trace CUDA_MODULE_LOADING=EAGER $Z
    v z_new_fill_lazy 90 bash hw/pytrace/inject.sh "$LIB" "$RAW/z_new_fill_lazy" trace CUDA_MODULE_LOADING=LAZY BANKISM_TRACE_KERNEL=Fill $Z
    for name in z_old_lazy z_new_trace_lazy z_new_fill_lazy; do
        echo "--- $name manifest: $(grep -c '"module"' $RAW/$name/manifest.jsonl) modules, $(grep -c '"patched": true' $RAW/$name/manifest.jsonl) patched"
        grep -v '"module"' "$RAW/$name/manifest.jsonl" | cut -c1-400 | head -8
        grep -a "callback domain" "$B/$name.err" | sort | uniq -c | sort -rn | head -12
    done
fi

if has smoke; then
    echo "===== smoke (C program): LAZY vs EAGER module loading"
    nvcc -arch=sm_90 -lineinfo -o build/pytrace/smoke hw/corpus/smoke.cu
    for mode in EAGER LAZY; do
        v "smoke_$mode" 90 env CUDA_MODULE_LOADING=$mode python3 -m bankism trace -o build/pytrace/smoke_$mode.json -- ./build/pytrace/smoke
    done
    python3 - <<'PY'
import json
for mode in ("EAGER", "LAZY"):
    try:
        doc = json.load(open(f"build/pytrace/smoke_{mode}.json"))
    except OSError as error:
        print(mode, error)
        continue
    for launch in doc["launches"]:
        print(mode, launch["index"], launch["kernel"], len(launch["records"]["warp"]), "records", len(launch["sites"]), "sites")
PY
fi

if has record; then
    wait $EXT
    cat build/pytrace/ext_build.log | tail -5
    echo "===== record: the Python programs (CUDA_MODULE_LOADING=LAZY)"
    export CUDA_MODULE_LOADING=LAZY
    rec() {  # rec NAME SCRIPT KERNEL BLOCKS DESCRIPTION
        v "rec_$1" 240 python3 -m bankism record -o "traces/python/$1.json" --kernel "$3" --launch 0 --blocks "$4" \
            --source "hw/pytrace/$2" --description "$5" --keep-raw "$RAW/rec_$1" --timeout 150 \
            --csv "traces/python/$1.ncu-raw.csv" -- python3 "hw/pytrace/$2"
        tail -n 6 "$B/rec_$1.out"
    }
    rec torch_softmax torch_softmax.py SoftMaxForward first:2 \
        "PyTorch eager torch.softmax over 64 rows of 4096 floats (hw/pytrace/torch_softmax.py): PyTorch's block softmax, max and sum reduced across warps in shared memory. First 2 of 64 blocks recorded."
    rec triton_softmax triton_kernels.py '^softmax_rows$' first:2 \
        "Triton row softmax (hw/pytrace/triton_kernels.py, softmax_rows): 64 rows of 1024 floats, 4 warps, tl.max and tl.sum across warps. First 2 of 64 programs recorded."
    rec triton_matmul triton_kernels.py '^matmul_tile$' all \
        "Triton 64x64x32 fp16 tl.dot tile (hw/pytrace/triton_kernels.py, matmul_tile), one program of 4 warps."
    rec ext_block_sum ext_inline.py block_sum_interleaved first:2 \
        "CUDA kernel built with torch.utils.cpp_extension.load_inline (hw/pytrace/ext_inline.py): interleaved tree reduction of 256 floats per block in shared memory. First 2 of 32 blocks recorded."
    rec numba_transpose numba_shared.py '^transpose_tile$' '0,0;1,0' \
        "Numba CUDA kernel (hw/pytrace/numba_shared.py, transpose_tile) with cuda.shared.array((32, 32), float32): 128x128 transpose, grid 4x4 of 32x32 threads. Blocks (0,0) and (1,0) recorded."
    for name in torch_softmax triton_softmax triton_matmul ext_block_sum numba_transpose; do
        [ -f "traces/python/$name.json" ] && timeout 60 python3 -m bankism analyze "traces/python/$name.json" 2>&1 | head -40
        for cubin in "$RAW/rec_$name"/module_*.cubin; do
            [ -f "$cubin" ] && nvdisasm -gi -c "$cubin" 2>/dev/null | grep -E '//## File|LDS|STS|LDSM|ATOMS|LDGSTS|HGMMA|UTMA|SYNCS' | head -40
        done
    done
    unset CUDA_MODULE_LOADING
fi

if has timing; then
    echo "===== timing: hw/pytrace/torch_softmax.py"
    S="python3 hw/pytrace/torch_softmax.py"
    v t_plain1 60 $S
    v t_plain2 60 $S
    v t_memcheck 180 compute-sanitizer --tool memcheck $S
    v t_trace_lazy 180 env CUDA_MODULE_LOADING=LAZY python3 -m bankism trace -o build/pytrace/t_lazy.json --kernel SoftMaxForward --launch 0 --blocks first:2 -- $S
    v t_trace_default 180 python3 -m bankism trace -o build/pytrace/t_default.json --kernel SoftMaxForward --launch 0 --blocks first:2 -- $S
    v t_trace_lazy_all 180 env CUDA_MODULE_LOADING=LAZY BANKISM_TRACE_PATCH_ALL=1 python3 -m bankism trace -o build/pytrace/t_lazy_all.json --kernel SoftMaxForward --launch 0 --blocks first:2 -- $S
fi

if has profile; then
    echo "===== profile: ncu's kernel filter (regex, demangled), --launch, --launch-count"
    v p_softmax 120 python3 -m bankism profile --kernel SoftMax --launch 0 --launch-count 1 -- python3 hw/pytrace/torch_softmax.py
    cat "$B/p_softmax.out" | tail -4
    v p_numba_anchored 120 python3 -m bankism profile --kernel '^transpose_tile$' -- python3 hw/pytrace/numba_shared.py
    cat "$B/p_numba_anchored.out" | tail -4
    for base in function demangled; do
        timeout 90 ncu --csv --metrics launch__grid_size --print-kernel-base $base -- python3 hw/pytrace/numba_shared.py 2>&1 | grep -a launch__grid_size | cut -c1-300
        timeout 90 ncu --csv --metrics launch__grid_size --print-kernel-base $base -- python3 hw/pytrace/triton_kernels.py 2>&1 | grep -a launch__grid_size | cut -c1-300
    done
fi
date -u
} 2>&1 | tee "$OUT/log.txt"

for f in "$B"/*.err; do { head -n 60 "$f"; echo "[...]"; tail -n 200 "$f"; } >"$f.cut" 2>/dev/null; done
tar -czf "$OUT/bisect.tgz" "$B"/*.cut "$B"/*.out 2>/dev/null
find "$RAW" -name '*.cubin' -size +20M -delete
tar -czf "$OUT/traces.tgz" traces/python "$RAW"/rec_* "$RAW"/z_*/manifest.jsonl build/pytrace/*.json build/pytrace/ext_build.log 2>/dev/null
ls -la "$OUT"
