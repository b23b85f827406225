#!/usr/bin/env bash
# Device run 30 of issue 21 (second half): the SASS of the stored surplus kernels (traces/surplus/kernels), as
# `bankism record` built them (nvcc -O3 -arch=sm_90 -lineinfo, CUDA 13.0.88), disassembled with nvdisasm -gi
# (capture.disasm.parse_nvdisasm reads it), into $OUT/sass.tgz (sass/<source>.sass). From the repository root
# on the GPU machine. Kept in traces/surplus/device/sass/kernels: docs/rules.md ("Transposes") counts from them
# the instructions between each transpose's barrier and its shared load.
set -u
OUT=${OUT:-/tmp/sass-out}
mkdir -p "$OUT/sass" build/sass
for src in hw/surplus/kernels/*.cu traces/kernels/sgemm_regtile.cu traces/kernels/dgemm_tile.cu \
           traces/kernels/ldmatrix_tile.cu traces/kernels/histogram_float.cu; do
  name=$(basename "$src" .cu)
  nvcc -O3 -arch=sm_90 -lineinfo -cubin -o "build/sass/$name.cubin" "$src" && \
    nvdisasm -gi -c "build/sass/$name.cubin" > "$OUT/sass/$name.sass"
  echo "$name rc=$? lines=$(wc -l < "$OUT/sass/$name.sass")"
done
tar -czf "$OUT/sass.tgz" -C "$OUT" sass && rm -rf "$OUT/sass"  # one file: the device brings back at most 8
