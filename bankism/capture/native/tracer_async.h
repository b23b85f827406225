// bankism tracer: patching of the asynchronous copies into shared memory and of wgmma (tracer_async.cpp).
#pragma once

#include <sanitizer.h>

#include <string>

// Reports a failed Sanitizer call that the trace can do without; returns whether the call succeeded.
using BankismOptionalCheck = bool (*)(SanitizerResult result, const std::string& what);

// Asks the Sanitizer API to patch, in `module`, every cp.async (bankism_memcpy_async), cp.async.bulk into
// shared memory (bankism_bulk_copy) and wgmma.mma_async (bankism_wgmma). Returns the JSON list of the
// instruction classes patched, e.g. ["cp.async", "cp.async.bulk", "wgmma"]; BANKISM_TRACE_ASYNC=0 patches none.
std::string bankism_patch_async(CUmodule module, BankismOptionalCheck check_optional);
