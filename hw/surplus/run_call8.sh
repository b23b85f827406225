#!/usr/bin/env bash
# Device runs 8, 10, 11 and 12 of issue 21: held-out public programs (ldmatrix/stmatrix and cp.async in
# runs 8 and 10, diverse shared-memory use in run 11, Python programs with Triton, Numba and CuPy in run
# 12), recorded with `bankism record` (which collects ncu's op_ldsm/op_stsm address-level counts) and
# analysed there.
# From the repository root on the GPU machine, carry [".carry/matrix", ".carry/whl"]: .carry/matrix holds
# programs.txt (name kernel-regex source args...), bin/ (built here with nvcc -O3 -arch=sm_90 -lineinfo)
# and the sources; they stay outside the repository. Brings back $OUT/run8.tgz. CARRY, PURPOSE and
# TARBALL name another carried folder, the traces' description and the tarball (run 13: public programs
# with Hopper features, recorded as any user would).
set -u
. hw/device_env.sh
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
OUT=${OUT:-/tmp/run8-out}
C=${CARRY:-.carry/matrix}
PURPOSE=${PURPOSE:-held-out public program, issue 21}
TARBALL=${TARBALL:-run8.tgz}
T0=$(date +%s)
mkdir -p "$OUT/r/public" build/rec
chmod +x $C/bin/* 2>/dev/null
write_env "$OUT/r/env.txt"
need_jsonschema
while read -r name regex source args; do
  [ -z "$name" ] && continue
  case "$name" in \#*) continue;; esac
  if [ $(( $(date +%s) - T0 )) -gt "${TOTAL:-480}" ]; then echo "$name skipped (budget)"; continue; fi
  t=$(date +%s)
  # a Python program (run 12) is its own source; anything else is a binary in bin/
  case "$source" in *.py) program="python3 $C/$source";; *) program="$C/bin/$name";; esac
  # shellcheck disable=SC2086
  timeout 150 python3 -m bankism record -o "$OUT/r/public/$name.json" --kernel "$regex" --launch 0 --blocks auto \
      --source "$C/$source" --timeout 120 --csv "$OUT/r/public/$name.ncu-raw.csv" \
      --description "$name ($PURPOSE)" -- $program $args \
      > "build/rec/public_$name.log" 2>&1
  echo "public $name rc=$? seconds=$(( $(date +%s) - t ))"
  grep -a -E "^error|launch [0-9]+:" "build/rec/public_$name.log" | tail -3
  python3 -m bankism analyze --json "$OUT/r/public/$name.json" > "$OUT/r/public/$name.analysis.json" 2>> "build/rec/public_$name.log"
  python3 -m bankism analyze "$OUT/r/public/$name.json" 2>&1 | grep -E "^(ld|st|atom) +(wavefronts|addressed)|addressed:" | head -8
  rm -f "$OUT/r/public/$name.npz"
done < "$C/programs.txt"
cp build/rec/*.log "$OUT/r/" 2>/dev/null
tar -czf "$OUT/$TARBALL" -C "$OUT/r" .
rm -rf "$OUT/r"
echo "total seconds $(( $(date +%s) - T0 ))"
