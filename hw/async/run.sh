#!/bin/bash
# Device-side driver for the async-copy campaign (run from the repository root on the GPU machine, with
# .carry/async carried: prebuilt probe binaries in bin/, the pattern files, the matmul source, a copy of
# bankism/ under code/ and wheels for what the device's python may lack). Everything that must come back
# is packed into $OUT/async.tgz (plus log.txt).
#
#   STEPS="probes timing tma smoke matmul" (default: probes tma smoke matmul)
#   PATTERNS=ldgsts_patterns    which pattern file of .carry/async the probes step measures
set -u
OUT=${OUT:-/tmp/async_out}
C=.carry/async
R=/tmp/async_results
STEPS=${STEPS:-probes tma smoke matmul}
PATTERNS=${PATTERNS:-ldgsts_patterns}
mkdir -p "$OUT" "$R" build/async
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
chmod +x $C/bin/* 2>/dev/null
has() { case " $STEPS " in *" $1 "*) return 0 ;; esac; return 1; }
{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv
  echo "--- nvcc"; nvcc --version
  echo "--- ncu ($NCU)"; "$NCU" --version
  echo "--- nvidia-smi clocks"; nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,clocks.mem --format=csv
} > "$R/env.txt" 2>&1
cat "$R/env.txt"
for b in ldgsts_probe tma_wgmma_probe cpasync_timing; do cuobjdump -sass $C/bin/$b > "$R/$b.sass.txt" 2>&1; done

if has probes || has tma; then
  t0=$(date +%s)
  "$NCU" --query-metrics > /tmp/query.txt 2>&1
  grep -iE "ldgsts|gmma|tma|bulk|shared" /tmp/query.txt > "$R/ncu_metrics_query.txt"
  echo "query rc=$? lines=$(wc -l < "$R/ncu_metrics_query.txt") seconds=$(( $(date +%s) - t0 ))"
fi

LDGSTS_METRICS="l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__sass_inst_executed_op_ldgsts.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum,smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum,smsp__sass_inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,smsp__sass_inst_executed_op_ldgsts_cache_bypass.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_misc.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum"
if has probes; then
  echo "=== ldgsts probes"
  t0=$(date +%s)
  timeout 200 "$NCU" --metrics "$LDGSTS_METRICS" -k regex:^probe_ --cache-control none --clock-control none \
      --export /tmp/ldgsts --force-overwrite $C/bin/ldgsts_probe $C/$PATTERNS.txt > /tmp/ldgsts_ncu.log 2>&1
  echo "ldgsts ncu rc=$? seconds=$(( $(date +%s) - t0 ))"
  grep -E "SHARED_BASE|DONE|rror|passes" /tmp/ldgsts_ncu.log | head -5
  "$NCU" --import /tmp/ldgsts.ncu-rep --csv --page raw > "$R/$PATTERNS.csv" 2>&1
  echo "$PATTERNS.csv rows: $(wc -l < "$R/$PATTERNS.csv")"
fi

TMA_METRICS="l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_read.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_gmma.sum,smsp__sass_inst_executed_op_shared_gmma.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_misc.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_misc.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,smsp__inst_executed.sum"
if has timing; then
  echo "=== cp.async timing"
  timeout 60 $C/bin/cpasync_timing > "$R/cpasync_timing.txt" 2>&1
  echo "timing rc=$?"; cat "$R/cpasync_timing.txt"
fi

if has tma; then
  echo "=== tma / wgmma probes"
  t0=$(date +%s)
  timeout 100 "$NCU" --metrics "$TMA_METRICS" --cache-control none --clock-control none \
      --export /tmp/tma --force-overwrite $C/bin/tma_wgmma_probe > "$R/tma_wgmma_stdout.txt" 2>&1
  echo "tma ncu rc=$? seconds=$(( $(date +%s) - t0 ))"
  grep -E "PROBE|DONE|rror" "$R/tma_wgmma_stdout.txt" | head -40
  "$NCU" --import /tmp/tma.ncu-rep --csv --page raw > "$R/tma_wgmma.csv" 2>&1
  echo "tma_wgmma.csv rows: $(wc -l < "$R/tma_wgmma.csv")"
fi

# bankism itself (the tracer and profile) from the carried copy
python3 -c 'import sys; print(sys.version)'
for mod in jsonschema typer rich; do python3 -c "import $mod" 2>/dev/null || need="${need:-} $mod"; done
if [ -n "${need:-}" ]; then
  echo "installing carried wheels for:$need"
  python3 -m pip install -q --no-index --find-links $C/whl --target /tmp/site $need 2>&1 | tail -3
  export PYTHONPATH=/tmp/site
fi
export PYTHONPATH="$C/code${PYTHONPATH:+:$PYTHONPATH}"
python3 -P -c 'import bankism, numba; print("bankism from", bankism.__file__, "numba", numba.__version__)'

if has smoke; then
  echo "=== tracer smoke: cp.async probes, TMA / wgmma probes"
  t0=$(date +%s)
  timeout 150 python3 -P -m bankism trace -o "$R/smoke_ldgsts.json" --keep-raw build/async/raw_ldgsts --timeout 100 \
      --description "cp.async probes (hw/async/ldgsts_smoke.txt) under the tracer" \
      -- $C/bin/ldgsts_probe $C/ldgsts_smoke.txt
  echo "trace ldgsts rc=$? seconds=$(( $(date +%s) - t0 ))"
  t0=$(date +%s)
  timeout 100 python3 -P -m bankism trace -o "$R/smoke_tma_wgmma.json" --keep-raw build/async/raw_tma --timeout 80 \
      --description "TMA, bulk-copy and wgmma probes (hw/async/tma_wgmma_probe.cu) under the tracer" \
      -- $C/bin/tma_wgmma_probe
  echo "trace tma rc=$? seconds=$(( $(date +%s) - t0 ))"
  cat build/async/raw_tma/manifest.jsonl | head -5
  python3 - "$R" <<'PY'
import json, sys
for name in ("smoke_ldgsts", "smoke_tma_wgmma"):
    try:
        doc = json.load(open(f"{sys.argv[1]}/{name}.json"))
    except Exception as error:
        print(name, "unreadable:", error); continue
    for launch in doc["launches"][:40]:
        print(name, launch["index"], launch["kernel"][:40], "sites", [(s["pc"], s["sass"], s["op"], s["width"]) for s in launch["sites"]],
              "records", len(launch.get("records", {}).get("warp", [])), "async", json.dumps(launch.get("async"))[:400])
PY
fi

if has matmul; then
  echo "=== cp.async matmul"
  cp $C/src/cpasync_matmul.cu traces/kernels/
  nvcc -arch=sm_90 -lineinfo -O3 -o build/async/cpasync_matmul traces/kernels/cpasync_matmul.cu
  cuobjdump -sass build/async/cpasync_matmul > "$R/cpasync_matmul.sass.txt"
  EXTRA="--metric smsp__sass_inst_executed_op_ldgsts.sum --metric smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum --metric smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum --metric l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum --metric l1tex__data_pipe_lsu_wavefronts_mem_shared.sum --metric l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum --metric l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum --metric smsp__sass_inst_executed_op_shared.sum --metric l1tex__data_pipe_lsu_wavefronts_mem_shared_op_misc.sum --metric l1tex__data_pipe_lsu_wavefronts_mem_shared_op_gmma.sum --metric l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_misc.sum"
  for variant in "plain cg" "padded cg" "plain ca" "padded ca"; do
    set -- $variant
    name=cpasync_matmul_$2$([ $1 = padded ] && echo _padded)
    ./build/async/cpasync_matmul $1 $2
    t0=$(date +%s)
    timeout 120 python3 -P -m bankism trace -o "$R/$name.json" --kernel cpasync_matmul --blocks first:2 \
        --source traces/kernels/cpasync_matmul.cu --keep-raw build/async/raw_$name --timeout 100 \
        --description "Double-buffered cp.async.$2 SGEMM (traces/kernels/cpasync_matmul.cu $1 $2), 256x256, grid 4x4, block 16x16; the first 2 of 16 blocks recorded." \
        -- ./build/async/cpasync_matmul $1 $2
    echo "trace $name rc=$? seconds=$(( $(date +%s) - t0 ))"
    for run in 1 2; do
      t0=$(date +%s)
      csv="$R/$name.ncu-raw.run$run.csv"
      timeout 100 python3 -P -m bankism profile $([ $run = 1 ] && echo "-o $R/$name.json") --kernel cpasync_matmul \
          --csv "$csv" $EXTRA -- ./build/async/cpasync_matmul $1 $2 > /tmp/profile_${name}_${run}.txt 2>&1
      echo "profile $name run $run rc=$? seconds=$(( $(date +%s) - t0 ))"; tail -3 /tmp/profile_${name}_${run}.txt
    done
  done
  tar -czf "$R/raw_matmul.tgz" build/async/raw_cpasync_matmul* 2>/dev/null
fi
tar -czf "$R/raw_smoke.tgz" build/async/raw_ldgsts build/async/raw_tma 2>/dev/null
ls -la "$R"
tar -czf "$OUT/async.tgz" -C "$R" .
ls -la "$OUT"
