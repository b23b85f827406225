#!/usr/bin/env bash
# Device side of the whole-kernel surplus experiment (docs/rules.md, "Whole kernels").
# Binaries are built on the host into .carry/ (see hw/surplus/README.md); results go to $OUT.
set -u
OUT=${OUT:-/tmp/surplus-out}
mkdir -p "$OUT"
M=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum,smsp__sass_inst_executed_op_shared_atom.sum,smsp__sass_inst_executed_op_global_ld.sum
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv
  nvcc --version | tail -2
  ncu --version | tail -1
} > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"
chmod +x .carry/surplus .carry/dgemm_tile .carry/histogram64
ncu --metrics "$M" --csv --page raw --cache-control none --clock-control none .carry/surplus 5 > "$OUT/surplus.csv" 2> "$OUT/surplus.err"
echo "surplus rc=$? rows=$(wc -l < "$OUT/surplus.csv")"
for prog in dgemm_tile histogram64; do
  for i in 1 2 3; do
    ncu --metrics "$M" --csv --page raw --cache-control none --clock-control none ".carry/$prog" > "/tmp/${prog}_$i.csv" 2>/dev/null
    echo "$prog run $i rc=$?"
  done
  python3 - "$prog" > "$OUT/$prog.csv" <<'PY'
import sys
prog = sys.argv[1]
for i in (1, 2, 3):
    lines = [l for l in open(f"/tmp/{prog}_{i}.csv") if l.startswith('"')]
    if i == 1:
        print("run," + lines[0], end="")
        print("," + lines[1], end="")
    for line in lines[2:]:
        print(f"{i}," + line, end="")
PY
done
cuobjdump -sass .carry/surplus | grep -oE "(LDG|STS|LDS)[A-Z0-9.]*" | sort | uniq -c > "$OUT/surplus_sass.txt"
cat "$OUT/surplus_sass.txt"
ls -la "$OUT"
