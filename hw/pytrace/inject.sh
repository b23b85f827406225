#!/usr/bin/env bash
# Run a command under the tracer library by hand (no bankism CLI), for bisecting: 
#   bash hw/pytrace/inject.sh LIBRARY RAW_DIR STAGE [VAR=VALUE ...] CMD ...
# STAGE is BANKISM_TRACE_STAGE (load, subscribe, observe, patch, trace); $PATCHES names the patch fatbin.
set -u
lib=$1 raw=$2 stage=$3
shift 3
mkdir -p "$raw"
exec env CUDA_INJECTION64_PATH="$lib" BANKISM_TRACE_DIR="$raw" BANKISM_TRACE_PATCHES="$PATCHES" \
    BANKISM_TRACE_STAGE="$stage" BANKISM_TRACE_BACKTRACE=1 BANKISM_TRACE_DEBUG=1 "$@"
