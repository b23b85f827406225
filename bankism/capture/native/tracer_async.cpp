// bankism tracer: patching of the asynchronous copies into shared memory and of wgmma. The device side is
// tracer_async_patches.cuh; tracer.cpp calls bankism_patch_async for every module it patches.
#include "tracer_async.h"

#include <cstdlib>

std::string bankism_patch_async(CUmodule module, BankismOptionalCheck check_optional)
{
    const char* setting = getenv("BANKISM_TRACE_ASYNC");
    if (setting != nullptr && setting[0] == '0') return "[]";
    struct Patch {
        Sanitizer_InstructionId id;
        const char* callback;
        const char* name;
    };
    static const Patch patches[] = {
        {SANITIZER_INSTRUCTION_MEMCPY_ASYNC, "bankism_memcpy_async", "cp.async"},
        {SANITIZER_INSTRUCTION_BULK_COPY_GLOBAL_TO_SHARED, "bankism_bulk_copy", "cp.async.bulk"},
        {SANITIZER_INSTRUCTION_WARPGROUP_MMA_ASYNC, "bankism_wgmma", "wgmma"},
    };
    std::string patched;
    for (const Patch& patch : patches) {
        if (!check_optional(sanitizerPatchInstructions(patch.id, module, patch.callback),
                            std::string("patch ") + patch.name + " instructions"))
            continue;
        patched += std::string(patched.empty() ? "" : ", ") + "\"" + patch.name + "\"";
    }
    return "[" + patched + "]";
}
