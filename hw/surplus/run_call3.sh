#!/usr/bin/env bash
# Third device run of issue 21: the rest of the random atomic probes, two per launch (hw/atomics/random.cu
# "pairs"), then the recordings of hw/surplus/record.sh. Usage: FIRST=.. LAST=.. bash run_call3.sh
set -u
OUT=${OUT:-/tmp/call3-out}
C=.carry/surplus
mkdir -p "$OUT" /tmp/rnd
chmod +x $C/* 2>/dev/null
M=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
t=$(date +%s)
ncu --metrics "$M" -k regex:^rnd_ --cache-control none --clock-control none --export /tmp/rnd/pairs --force-overwrite \
    $C/random $C/random_patterns.txt "$FIRST" "$LAST" pairs > /tmp/rnd/pairs_log.txt 2>&1
echo "random pairs $FIRST..$LAST rc=$? seconds=$(( $(date +%s) - t )) $(grep -m1 passes /tmp/rnd/pairs_log.txt)"
grep -E "SHARED_BASE|DONE|rror" /tmp/rnd/pairs_log.txt | head -5
ncu --import /tmp/rnd/pairs.ncu-rep --csv --page raw > /tmp/rnd/pairs.csv 2>/dev/null
grep PAIR /tmp/rnd/pairs_log.txt > /tmp/rnd/pairs_map.txt
tar -czf "$OUT/random_pairs.tgz" -C /tmp/rnd pairs.csv pairs_map.txt pairs_log.txt
BUDGET=${BUDGET:-250} OUT=$OUT bash $C/record.sh
