#!/bin/bash
# Device-side driver for the shared-atomic campaign (run from the repository root on the GPU machine,
# with .carry/atomics carried: the prebuilt probe binary, patterns.txt, the corpus sources, a copy of
# bankism/ under code/ and wheels for what the device's python may lack). Writes to $OUT:
# env.txt, log.txt (this output), sass.txt, probes.csv, kernels.tgz.
set -u
OUT=${OUT:-/tmp/atomics_out}
C=.carry/atomics
mkdir -p "$OUT" build/atomics
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
chmod +x $C/atomics
{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv
  echo "--- nvcc"; nvcc --version
  echo "--- ncu ($NCU)"; "$NCU" --version
  echo "--- nvidia-smi clocks"; nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,clocks.mem --format=csv
} > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"
cuobjdump -sass $C/atomics > "$OUT/sass.txt" 2>&1
if [ "${PROBES:-1}" = 1 ]; then
METRICS="l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,smsp__sass_inst_executed_op_shared_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__sass_inst_executed_op_shared.sum,smsp__inst_executed_op_shared_atom_dot_alu.sum,smsp__inst_executed_op_shared_atom_dot_cas.sum"
echo "METRICS=$METRICS"
t0=$(date +%s)
"$NCU" --metrics "$METRICS" -k regex:^probe_ --cache-control none --clock-control none \
    --export /tmp/atomics --force-overwrite $C/atomics $C/patterns.txt > /tmp/atomics_ncu.log 2>&1
echo "probe ncu rc=$? seconds=$(( $(date +%s) - t0 ))"
grep -E "SHARED_BASE|DONE|LAUNCH_ORDER|rror" /tmp/atomics_ncu.log | head -20
"$NCU" --import /tmp/atomics.ncu-rep --csv --page raw > "$OUT/probes.csv" 2>/tmp/imp.err
head -c 2000 /tmp/imp.err
echo "probes.csv rows: $(wc -l < "$OUT/probes.csv")"
fi

echo "=== corpus kernels"
python3 -c 'import sys; print(sys.version)'
for mod in jsonschema typer rich; do
  python3 -c "import $mod" 2>/dev/null || need="${need:-} $mod"
done
if [ -n "${need:-}" ]; then
  echo "installing carried wheels for:$need"
  python3 -m pip install -q --no-index --find-links $C/whl --target /tmp/site $need 2>&1 | tail -3
  export PYTHONPATH=/tmp/site
fi
export PYTHONPATH="$C/code${PYTHONPATH:+:$PYTHONPATH}"
python3 -c 'import bankism, numba; print("bankism from", bankism.__file__, "numba", numba.__version__)'
cp $C/kernels/*.cu traces/kernels/
# entries: trace-name source args kernel-regex
KERNELS=${KERNELS:-"histogram256 histogram256 - histogram256;histogram_float histogram_float - histogram_float"}
IFS=';' read -ra entries <<< "$KERNELS"
for entry in "${entries[@]}"; do
  read -r name src args kernel <<< "$entry"
  [ "$args" = - ] && args=""
  [ -x build/atomics/$src ] || nvcc -arch=sm_90 -lineinfo -O3 -o build/atomics/$src traces/kernels/$src.cu || continue
  cuobjdump -sass build/atomics/$src > build/atomics/$src.sass
  ./build/atomics/$src $args
  t0=$(date +%s)
  timeout 150 python3 -m bankism trace -o build/atomics/$name.json --kernel "$kernel" --source traces/kernels/$src.cu \
      --description "$name (traces/kernels/$src.cu${args:+, argument $args}), every block recorded" \
      --keep-raw build/atomics/raw_$name --timeout 100 -- ./build/atomics/$src $args
  echo "trace $name rc=$? seconds=$(( $(date +%s) - t0 ))"
  t0=$(date +%s)
  timeout 150 python3 -m bankism profile -o build/atomics/$name.json --kernel "$kernel" \
      --csv build/atomics/$name.ncu-raw.csv -- ./build/atomics/$src $args
  echo "profile $name rc=$? seconds=$(( $(date +%s) - t0 ))"
  for r in 2 3; do  # run-to-run spread of the counters (a retry loop's count may vary)
    timeout 100 python3 -m bankism profile -o build/atomics/$name.run$r.json --kernel "$kernel" -- \
        ./build/atomics/$src $args > /dev/null 2>&1; echo "profile $name run $r rc=$?"
  done
done
tar -czf "$OUT/kernels.tgz" build/atomics/*.json build/atomics/*.npz build/atomics/*.csv build/atomics/*.sass \
    build/atomics/raw_* 2>/dev/null
ls -la "$OUT"
