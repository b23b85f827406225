// bankism tracer: a CUDA injection library that records, for the kernel launches it is told to trace,
// every warp-instruction that reads, writes or updates shared memory.
//
// bankism/capture/run.py preloads it (LD_PRELOAD, BANKISM_TRACE_INIT_AT_LOAD=1): it subscribes to the
// Sanitizer API when the process starts, before the program loads its own libraries; started later, from
// CUDA_INJECTION64_PATH inside the first cuInit, the Sanitizer API crashes PyTorch processes (docs/tracer.md,
// "Why the tracer starts with the process"). Every process that loads it subscribes; the first one to use
// CUDA records (it creates <dir>/owner), the others pass through. Modules holding a kernel the regex matches
// are written out as cubins (so the Python side can disassemble them) and patched: shared-memory accesses
// call bankism_shared_access, ldmatrix/stmatrix call bankism_matrix_access (tracer_patches.cu). Each launch of
// a patched module gets a TraceControl in device memory; after a traced launch the records are copied back
// and written to launch_<index>.bin, and one JSON line per module and launch goes to manifest.jsonl.
//
// Settings (environment variables, set by bankism/capture/run.py):
//   BANKISM_TRACE_DIR          output directory (required, must exist)
//   BANKISM_TRACE_PATCHES      the patch fatbin built from tracer_patches.cu (required)
//   BANKISM_TRACE_KERNEL       ECMAScript regex searched in the demangled, the mangled and the bare kernel name
//   BANKISM_TRACE_LAUNCHES     comma-separated indices among the launches that match the regex (default all)
//   BANKISM_TRACE_BLOCKS       all | first:K | every:S | x,y,z;...  (blocks whose accesses are recorded)
//   BANKISM_TRACE_MAX_RECORDS  warp-instructions kept per launch (default 1000000)
//   BANKISM_TRACE_INIT_AT_LOAD=1  start when loaded (with LD_PRELOAD) rather than from InitializeInjection
//   BANKISM_TRACE_PATCH_ALL=1  patch every module, not only those holding a kernel the regex matches
// Diagnosis knobs (docs/tracer.md, "How the tracer works"):
//   BANKISM_TRACE_DEBUG=1      log every callback, and the SIGSEGV handler once subscribed, to stderr
//   BANKISM_TRACE_STAGE        load | subscribe | observe | patch | trace (default): how far the tracer goes
//   BANKISM_TRACE_DOMAINS      callback domains to enable (default resource,launch,synchronize,memcpy)
//   BANKISM_TRACE_BACKTRACE=1  print a native backtrace to stderr on SIGSEGV/SIGBUS, then pass the signal on
#include <cxxabi.h>
#include <dlfcn.h>
#include <elf.h>
#include <execinfo.h>
#include <fcntl.h>
#include <sanitizer.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "tracer_async.h"
#include "tracer_records.h"

namespace {

struct Options {
    std::string directory;
    std::string patches;
    bool has_kernel_regex = false;
    std::regex kernel_regex;
    std::set<unsigned long long> launches;
    uint32_t block_mode = BLOCKS_ALL;
    uint32_t block_limit = 0;
    std::vector<uint32_t> selected;
    unsigned long long max_records = 1000000ULL;
    bool patch_all = false;  // patch modules that hold no kernel the regex matches too
};

// How far the tracer goes, for bisecting a crash: each stage does everything the one before it does.
enum Stage { STAGE_LOAD, STAGE_SUBSCRIBE, STAGE_OBSERVE, STAGE_PATCH, STAGE_TRACE };

struct ContextState {
    bool patches_loaded = false;
    TraceControl* disabled = nullptr;  // control block handed to launches that are not traced
    RawRecord* records = nullptr;      // record buffer, allocated at the first traced launch
    TraceControl* control = nullptr;
    TraceControl host_disabled;        // host sources of the asynchronous copies: they must outlive the call
    TraceControl host_control;
};

struct PendingLaunch {
    unsigned long long index;
    bool traced;
    CUcontext context;
    Sanitizer_StreamHandle stream;
    int module_id;
    std::string mangled;
    uint32_t grid[3];
    uint32_t block[3];
    uint32_t cluster[3];
    int static_shared;
    uint64_t function_pc;
    uint64_t function_size;
};

// The state lives on the heap and is never destroyed: the driver calls back while the process tears down
// (modules unloaded, memory freed from other libraries' static destructors), after this library's own
// static destructors would have run.
std::recursive_mutex& g_mutex = *new std::recursive_mutex;
std::once_flag g_once;
int g_init_result = 1;
Options& g_options = *new Options;
Stage g_stage = STAGE_TRACE;
bool g_ready = false;
bool g_debug = false;
thread_local bool t_in_callback = false;  // set while a callback runs: calls we make may call back
FILE* g_manifest = nullptr;
std::map<CUcontext, ContextState>& g_contexts = *new std::map<CUcontext, ContextState>;
std::map<CUmodule, int>& g_modules = *new std::map<CUmodule, int>;
std::map<CUmodule, bool>& g_patched = *new std::map<CUmodule, bool>;  // module -> its kernels call the patches
std::map<Sanitizer_LaunchHandle, PendingLaunch>& g_pending = *new std::map<Sanitizer_LaunchHandle, PendingLaunch>;
std::unordered_map<std::string, bool>& g_name_matches = *new std::unordered_map<std::string, bool>;
unsigned long long g_launch_counter = 0;
unsigned long long g_matching_counter = 0;

std::string json_string(const std::string& text)
{
    std::string out = "\"";
    for (unsigned char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += (char)c;
        } else if (c < 0x20) {
            char buffer[8];
            snprintf(buffer, sizeof(buffer), "\\u%04x", c);
            out += buffer;
        } else {
            out += (char)c;
        }
    }
    return out + "\"";
}

int g_owner = -1;  // whether this process records: -1 not decided yet, 0 no, 1 yes
bool owner();

void write_line(const std::string& line)
{
    if (!owner() || g_manifest == nullptr) return;
    fputs(line.c_str(), g_manifest);
    fputc('\n', g_manifest);
    fflush(g_manifest);
}

// The first process of the traced program to use CUDA records (it creates <dir>/owner); every other
// process that loads the tracer (the program's children: a compiler it runs, a second CUDA process) passes
// through untraced, so the manifest never has two writers.
bool owner()
{
    if (g_owner >= 0) return g_owner == 1;
    const std::string path = g_options.directory + "/owner";
    const int fd = open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY, 0644);
    g_owner = fd >= 0 ? 1 : 0;
    if (fd < 0) {
        if (errno != EEXIST) fprintf(stderr, "bankism tracer: cannot create %s: %s\n", path.c_str(), strerror(errno));
        return false;
    }
    const std::string pid = std::to_string(getpid()) + "\n";
    (void)!write(fd, pid.data(), pid.size());
    close(fd);
    g_manifest = fopen((g_options.directory + "/manifest.jsonl").c_str(), "w");
    if (g_manifest == nullptr) {
        fprintf(stderr, "bankism tracer: cannot write %s/manifest.jsonl\n", g_options.directory.c_str());
        return false;
    }
    write_line("{\"event\": \"start\", \"tracer\": \"bankism-sanitizer 1\", \"record_size\": " +
               std::to_string(sizeof(RawRecord)) + ", \"max_records\": " + std::to_string(g_options.max_records) +
               ", \"pid\": " + std::to_string(getpid()) + ", \"stage\": " + std::to_string((int)g_stage) + "}");
    return true;
}

void report_message(const char* event, const std::string& message)
{
    fprintf(stderr, "bankism tracer: %s: %s\n", event, message.c_str());
    write_line(std::string("{\"event\": \"") + event + "\", \"message\": " + json_string(message) + "}");
}

void report(const char* event, const std::string& what, SanitizerResult result)
{
    const char* text = "";
    sanitizerGetResultString(result, &text);
    report_message(event, what + ": " + (text ? text : "") + " (" + std::to_string((int)result) + ")");
}

// A failed call that makes the trace wrong or incomplete: the Python side refuses to write a trace.
bool check(SanitizerResult result, const std::string& what)
{
    if (result == SANITIZER_SUCCESS) return true;
    report("error", what, result);
    return false;
}

// A failed call the trace can do without (it is noted, and the trace written).
bool check_optional(SanitizerResult result, const std::string& what)
{
    if (result == SANITIZER_SUCCESS) return true;
    report("warning", what, result);
    return false;
}

std::string demangle(const std::string& mangled)
{
    int status = 0;
    char* text = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
    if (status != 0 || text == nullptr) return mangled;
    std::string result(text);
    free(text);
    return result;
}

std::vector<std::string> split(const std::string& text, char separator)
{
    std::vector<std::string> parts;
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find(separator, start);
        if (end == std::string::npos) end = text.size();
        if (end > start) parts.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return parts;
}

bool parse_blocks(const std::string& text, Options& options)
{
    if (text.empty() || text == "all") return true;
    if (text.rfind("first:", 0) == 0) {
        options.block_mode = BLOCKS_FIRST;
        options.block_limit = (uint32_t)strtoul(text.c_str() + 6, nullptr, 10);
        return true;
    }
    if (text.rfind("every:", 0) == 0) {  // blocks whose linear index is a multiple of the stride
        options.block_mode = BLOCKS_EVERY;
        options.block_limit = (uint32_t)strtoul(text.c_str() + 6, nullptr, 10);
        return options.block_limit > 0;
    }
    options.block_mode = BLOCKS_LIST;
    for (const std::string& item : split(text, ';')) {
        std::vector<std::string> coords = split(item, ',');
        if (coords.empty() || coords.size() > 3) return false;
        for (size_t i = 0; i < 3; ++i)
            options.selected.push_back(i < coords.size() ? (uint32_t)strtoul(coords[i].c_str(), nullptr, 10) : 0);
    }
    return options.selected.size() / 3 <= BANKISM_MAX_SELECTED_BLOCKS;
}

bool read_options(Options& options)
{
    const char* directory = getenv("BANKISM_TRACE_DIR");
    const char* patches = getenv("BANKISM_TRACE_PATCHES");
    if (directory == nullptr || patches == nullptr) {
        fprintf(stderr, "bankism tracer: BANKISM_TRACE_DIR and BANKISM_TRACE_PATCHES must be set\n");
        return false;
    }
    options.directory = directory;
    options.patches = patches;
    if (const char* regex = getenv("BANKISM_TRACE_KERNEL"); regex != nullptr && *regex) {
        try {
            options.kernel_regex = std::regex(regex, std::regex::ECMAScript);
            options.has_kernel_regex = true;
        } catch (const std::regex_error&) {
            fprintf(stderr, "bankism tracer: bad BANKISM_TRACE_KERNEL regex %s\n", regex);
            return false;
        }
    }
    if (const char* launches = getenv("BANKISM_TRACE_LAUNCHES"); launches != nullptr)
        for (const std::string& item : split(launches, ',')) options.launches.insert(strtoull(item.c_str(), nullptr, 10));
    if (const char* blocks = getenv("BANKISM_TRACE_BLOCKS"); blocks != nullptr && !parse_blocks(blocks, options)) {
        fprintf(stderr, "bankism tracer: bad BANKISM_TRACE_BLOCKS %s\n", blocks);
        return false;
    }
    if (const char* records = getenv("BANKISM_TRACE_MAX_RECORDS"); records != nullptr && *records)
        options.max_records = strtoull(records, nullptr, 10);
    const char* patch_all = getenv("BANKISM_TRACE_PATCH_ALL");
    options.patch_all = patch_all != nullptr && *patch_all == '1';
    return true;
}

bool read_stage()
{
    const char* stage = getenv("BANKISM_TRACE_STAGE");
    if (stage == nullptr || *stage == 0) return true;
    const std::string name = stage;
    const char* names[] = {"load", "subscribe", "observe", "patch", "trace"};
    for (int i = 0; i <= STAGE_TRACE; ++i)
        if (name == names[i]) {
            g_stage = (Stage)i;
            return true;
        }
    fprintf(stderr, "bankism tracer: bad BANKISM_TRACE_STAGE %s (load, subscribe, observe, patch or trace)\n", stage);
    return false;
}

// The bare function name of a demangled kernel name, as users write it in their source:
// 'void ns::f<1>(int*)' -> 'f'; Numba's 'cudapy::__main__::f$241(Array<...>)' and
// 'cudapy::__main__::f[abi:v1][abi:cw51...](...)' -> 'f'; Triton's 'f' -> 'f'.
std::string base_name(const std::string& kernel)
{
    size_t cut = kernel.size();
    int depth = 0;
    for (size_t i = 0; i < kernel.size(); ++i) {  // the parameter list: the first '(' outside template arguments
        if (kernel[i] == '<') ++depth;
        if (kernel[i] == '>') --depth;
        if (kernel[i] == '(' && depth == 0 && kernel.compare(i, 21, "(anonymous namespace)") != 0) {
            cut = i;
            break;
        }
    }
    std::string head = kernel.substr(0, cut);
    while (!head.empty() && head.back() == ' ') head.pop_back();
    if (!head.empty() && head.back() == '>') {  // drop the template argument list
        depth = 0;
        for (size_t i = head.size(); i-- > 0;) {
            if (head[i] == '>') ++depth;
            if (head[i] == '<') --depth;
            if (depth == 0) {
                head = head.substr(0, i);
                break;
            }
        }
    }
    const size_t space = head.rfind(' ');
    if (space != std::string::npos) head = head.substr(space + 1);
    const size_t scope = head.rfind("::");
    if (scope != std::string::npos) head = head.substr(scope + 2);
    const size_t suffix = head.find_first_of("$[");
    if (suffix != std::string::npos && suffix > 0) head = head.substr(0, suffix);
    return head.empty() ? kernel : head;
}

// Whether --kernel selects a kernel: the regex is searched in the demangled name, the mangled name and
// the bare function name (so '^f$' picks f whatever its namespace, template arguments or Numba suffix).
bool kernel_matches(const std::string& mangled)
{
    if (!g_options.has_kernel_regex) return true;
    auto cached = g_name_matches.find(mangled);
    if (cached != g_name_matches.end()) return cached->second;
    const std::string demangled = demangle(mangled);
    const bool matches = std::regex_search(demangled, g_options.kernel_regex) ||
                         std::regex_search(mangled, g_options.kernel_regex) ||
                         std::regex_search(base_name(demangled), g_options.kernel_regex);
    g_name_matches[mangled] = matches;
    return matches;
}

// The functions of an ELF cubin (the names of its .text.<function> sections); ok=false when the image is
// not a well-formed 64-bit ELF file.
std::vector<std::string> cubin_functions(const char* image, size_t size, bool& ok)
{
    std::vector<std::string> names;
    ok = false;
    if (image == nullptr || size < sizeof(Elf64_Ehdr) || memcmp(image, ELFMAG, SELFMAG) != 0 ||
        image[EI_CLASS] != ELFCLASS64)
        return names;
    Elf64_Ehdr header;
    memcpy(&header, image, sizeof(header));
    if (header.e_shentsize != sizeof(Elf64_Shdr) || header.e_shoff > size ||
        header.e_shnum > (size - header.e_shoff) / sizeof(Elf64_Shdr) || header.e_shstrndx >= header.e_shnum)
        return names;
    auto section = [&](size_t i) {
        Elf64_Shdr out;
        memcpy(&out, image + header.e_shoff + i * sizeof(Elf64_Shdr), sizeof(out));
        return out;
    };
    const Elf64_Shdr strings = section(header.e_shstrndx);
    if (strings.sh_offset > size || strings.sh_size > size - strings.sh_offset) return names;
    const char* table = image + strings.sh_offset;
    for (size_t i = 0; i < header.e_shnum; ++i) {
        const Elf64_Shdr current = section(i);
        if (current.sh_name >= strings.sh_size) continue;
        const char* name = table + current.sh_name;
        const size_t length = strnlen(name, strings.sh_size - current.sh_name);
        if (length > 6 && length < strings.sh_size - current.sh_name && strncmp(name, ".text.", 6) == 0)
            names.emplace_back(name + 6, length - 6);
    }
    ok = true;
    return names;
}

// Whether a module is patched: with a kernel regex, only modules holding a kernel it matches (the others
// run unpatched, at full speed; PyTorch loads hundreds of modules and uses few of their kernels).
bool module_wanted(const Sanitizer_ResourceModuleData* data)
{
    if (!g_options.has_kernel_regex || g_options.patch_all) return true;
    bool ok = false;
    const std::vector<std::string> functions = cubin_functions(data->pCubin, data->cubinSize, ok);
    if (!ok) return true;  // not an ELF image we can read: patch it rather than miss a kernel
    for (const std::string& function : functions)
        if (kernel_matches(function)) return true;
    return false;
}

int static_shared_bytes(CUfunction function)
{
    using GetAttribute = CUresult (*)(int*, CUfunction_attribute, CUfunction);
    static GetAttribute get_attribute = nullptr;
    if (get_attribute == nullptr) {
        void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
        if (driver != nullptr) get_attribute = (GetAttribute)dlsym(driver, "cuFuncGetAttribute");
    }
    int bytes = -1;
    if (get_attribute == nullptr || get_attribute(&bytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, function) != CUDA_SUCCESS)
        return -1;
    return bytes;
}

ContextState& context_state(CUcontext context)
{
    ContextState& state = g_contexts[context];
    if (!state.patches_loaded) {
        state.patches_loaded = check(sanitizerAddPatchesFromFile(g_options.patches.c_str(), context),
                                     "sanitizerAddPatchesFromFile " + g_options.patches);
    }
    return state;
}

void on_module_loaded(const Sanitizer_ResourceModuleData* data)
{
    const int id = (int)g_modules.size();
    g_modules[data->module] = id;
    g_patched[data->module] = false;
    const std::string name = "module_" + std::to_string(id) + ".cubin";
    const bool wanted = module_wanted(data);
    if (!wanted || g_stage < STAGE_PATCH) {
        write_line("{\"event\": \"module\", \"id\": " + std::to_string(id) + ", \"cubin\": null, \"size\": " +
                   std::to_string(data->cubinSize) + ", \"selected\": " + (wanted ? "true" : "false") +
                   ", \"patched\": false, \"matrix_patched\": false}");
        return;
    }
    bool written = false;
    if (data->pCubin != nullptr && data->cubinSize > 0) {
        FILE* file = fopen((g_options.directory + "/" + name).c_str(), "wb");
        if (file != nullptr) {
            written = fwrite(data->pCubin, 1, data->cubinSize, file) == data->cubinSize;
            fclose(file);
        }
    }
    ContextState& state = context_state(data->context);
    bool patched = state.patches_loaded &&
                   check(sanitizerPatchInstructions(SANITIZER_INSTRUCTION_SHARED_MEMORY_ACCESS, data->module,
                                                    "bankism_shared_access"), "patch shared-memory accesses");
    const bool matrix = patched &&
                        check_optional(sanitizerPatchInstructions(SANITIZER_INSTRUCTION_MATRIX_MEMORY_ACCESS,
                                                                  data->module, "bankism_matrix_access"),
                                       "patch ldmatrix/stmatrix accesses");
    const std::string async = patched ? bankism_patch_async(data->module, check_optional) : "[]";
    patched = patched && check(sanitizerPatchModule(data->module), "sanitizerPatchModule");
    g_patched[data->module] = patched;
    write_line("{\"event\": \"module\", \"id\": " + std::to_string(id) + ", \"cubin\": " +
               (written ? json_string(name) : std::string("null")) + ", \"size\": " + std::to_string(data->cubinSize) +
               ", \"selected\": true, \"patched\": " + (patched ? "true" : "false") + ", \"matrix_patched\": " +
               (matrix ? "true" : "false") + ", \"async_patched\": " + async + "}");
}

bool launch_selected(const std::string& mangled)
{
    if (!kernel_matches(mangled)) return false;
    const unsigned long long matching = g_matching_counter++;
    return g_options.launches.empty() || g_options.launches.count(matching) > 0;
}

TraceControl make_control(bool enabled, RawRecord* records)
{
    TraceControl control;
    memset(&control, 0, sizeof(control));
    control.enabled = enabled ? 1 : 0;
    control.records = records;
    control.capacity = enabled ? g_options.max_records : 0;
    control.block_mode = g_options.block_mode;
    control.block_limit = g_options.block_limit;
    control.selected_count = (uint32_t)(g_options.selected.size() / 3);
    for (size_t i = 0; i < g_options.selected.size(); ++i) control.selected[i] = g_options.selected[i];
    return control;
}

bool prepare_buffers(ContextState& state, CUcontext context, Sanitizer_StreamHandle stream)
{
    if (state.disabled == nullptr) {
        if (!check(sanitizerAlloc(context, (void**)&state.disabled, sizeof(TraceControl)), "sanitizerAlloc control"))
            return false;
        state.host_disabled = make_control(false, nullptr);
        if (!check(sanitizerMemcpyHostToDeviceAsync(state.disabled, &state.host_disabled, sizeof(TraceControl), stream),
                   "copy control"))
            return false;
    }
    return true;
}

void collect_finished();

void on_launch_begin(const Sanitizer_LaunchData* data)
{
    collect_finished();  // the previous traced launch's records leave the shared buffer before it is reused
    PendingLaunch launch;
    launch.index = g_launch_counter++;
    launch.context = data->context;
    launch.stream = data->hStream;
    launch.mangled = data->functionName ? data->functionName : "";
    auto module = g_modules.find(data->module);
    launch.module_id = module == g_modules.end() ? -1 : module->second;
    launch.grid[0] = data->gridDim_x, launch.grid[1] = data->gridDim_y, launch.grid[2] = data->gridDim_z;
    launch.block[0] = data->blockDim_x, launch.block[1] = data->blockDim_y, launch.block[2] = data->blockDim_z;
    launch.cluster[0] = data->clusterDim_x, launch.cluster[1] = data->clusterDim_y, launch.cluster[2] = data->clusterDim_z;
    launch.static_shared = static_shared_bytes(data->function);
    launch.function_pc = 0;
    launch.function_size = 0;
    launch.traced = launch_selected(launch.mangled);
    auto patched = g_patched.find(data->module);
    const bool module_patched = patched != g_patched.end() && patched->second;
    if (g_stage < STAGE_TRACE || !module_patched) {
        if (launch.traced && g_stage == STAGE_TRACE)
            report_message("error", "launch " + std::to_string(launch.index) + " of " + launch.mangled +
                                        " matches the kernel regex, but its module was not patched");
        launch.traced = false;
        // Kernels of unpatched modules call no patch: they need no callback data. Patched ones get the
        // disabled control block, so their patches return at once.
        if (!module_patched || g_stage < STAGE_PATCH) {
            g_pending[data->hLaunch] = launch;
            return;
        }
    }

    ContextState& state = context_state(data->context);
    if (!prepare_buffers(state, data->context, data->hStream)) launch.traced = false;
    TraceControl* userdata = state.disabled;
    if (launch.traced) {
        if (state.records == nullptr &&
            !check(sanitizerAlloc(data->context, (void**)&state.records, sizeof(RawRecord) * g_options.max_records),
                   "sanitizerAlloc records (lower --max-records)"))
            launch.traced = false;
        if (launch.traced && state.control == nullptr &&
            !check(sanitizerAlloc(data->context, (void**)&state.control, sizeof(TraceControl)), "sanitizerAlloc control"))
            launch.traced = false;
    }
    if (launch.traced) {
        state.host_control = make_control(true, state.records);
        launch.traced = check(sanitizerMemcpyHostToDeviceAsync(state.control, &state.host_control,
                                                               sizeof(TraceControl), data->hStream),
                              "copy control");
        if (launch.traced) userdata = state.control;
        check_optional(sanitizerGetFunctionPcAndSize(data->module, launch.mangled.c_str(), &launch.function_pc,
                                                     &launch.function_size),
                       "sanitizerGetFunctionPcAndSize " + launch.mangled);
    }
    check(sanitizerSetLaunchCallbackData(data->hLaunch, data->function, data->hStream, userdata),
          "sanitizerSetLaunchCallbackData");
    g_pending[data->hLaunch] = launch;
}

std::string triple(const uint32_t* values)
{
    return "[" + std::to_string(values[0]) + ", " + std::to_string(values[1]) + ", " + std::to_string(values[2]) + "]";
}

std::string launch_line(const PendingLaunch& launch)
{
    return "{\"event\": \"launch\", \"index\": " + std::to_string(launch.index) +
           ", \"mangled\": " + json_string(launch.mangled) + ", \"kernel\": " + json_string(demangle(launch.mangled)) +
           ", \"module\": " + std::to_string(launch.module_id) + ", \"grid\": " + triple(launch.grid) +
           ", \"block\": " + triple(launch.block) + ", \"cluster\": " + triple(launch.cluster) +
           ", \"static_shared\": " + std::to_string(launch.static_shared) +
           ", \"traced\": " + (launch.traced ? "true" : "false");
}

// Waits for a traced launch to finish, then copies its records out and writes them to launch_<index>.bin.
void collect(const PendingLaunch& launch)
{
    ContextState& state = g_contexts[launch.context];
    TraceControl control;
    memset(&control, 0, sizeof(control));
    bool ok = check(sanitizerStreamSynchronize(launch.stream), "synchronize the traced launch's stream") &&
              check(sanitizerMemcpyDeviceToHost(&control, state.control, sizeof(control), launch.stream),
                    "copy control back (did the kernel fail?)");
    unsigned long long kept = ok ? (control.count < control.capacity ? control.count : control.capacity) : 0;
    std::vector<RawRecord> records(kept);
    if (ok && kept > 0)
        ok = check(sanitizerMemcpyDeviceToHost(records.data(), state.records, sizeof(RawRecord) * kept, launch.stream),
                   "copy records back");
    const std::string name = "launch_" + std::to_string(launch.index) + ".bin";
    if (ok) {
        FILE* file = fopen((g_options.directory + "/" + name).c_str(), "wb");
        ok = file != nullptr && fwrite(records.data(), sizeof(RawRecord), kept, file) == kept;
        if (file != nullptr) fclose(file);
    }
    char pcs[96];
    snprintf(pcs, sizeof(pcs), ", \"function_pc\": %llu, \"function_size\": %llu",
             (unsigned long long)launch.function_pc, (unsigned long long)launch.function_size);
    write_line(launch_line(launch) + pcs + ", \"records_file\": " + (ok ? json_string(name) : std::string("null")) +
               ", \"records\": " + std::to_string(kept) + ", \"seen\": " + std::to_string(ok ? control.count : 0) +
               ", \"dynamic_shared\": " +
               (control.dynamic_shared_seen ? std::to_string(control.dynamic_shared) : "null") +
               ", \"ok\": " + (ok ? "true" : "false") + "}");
}

// Traced launches whose launch call has returned but whose records are not collected yet. Their kernels may
// still be running (a copy is not ordered after them), so they are collected, after a stream synchronize, at
// the next launch (which reuses the record buffer), synchronization, memcpy, module unload or context teardown.
std::vector<PendingLaunch> g_finished;

void collect_finished()
{
    std::vector<PendingLaunch> finished;
    finished.swap(g_finished);
    for (const PendingLaunch& launch : finished) collect(launch);
}

void on_launch_end(const Sanitizer_LaunchData* data)
{
    auto found = g_pending.find(data->hLaunch);
    if (found == g_pending.end()) return;
    PendingLaunch launch = found->second;
    g_pending.erase(found);
    if (launch.traced)
        g_finished.push_back(launch);
    else
        write_line(launch_line(launch) + "}");
}

void debug(const char* what, const std::string& detail)
{
    if (g_debug) fprintf(stderr, "bankism tracer: %s %s\n", what, detail.c_str());
}

// Marks the current thread as inside a callback for the lifetime of the guard.
struct CallbackScope {
    CallbackScope() { t_in_callback = true; }
    ~CallbackScope() { t_in_callback = false; }
};

void callback(void*, Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid, const void* cbdata)
{
    // Sanitizer calls made from a callback (loading the patch module, copies) can call back on the same
    // thread; those nested events are the tracer's own and are ignored.
    if (g_debug) fprintf(stderr, "bankism tracer: callback domain %d cbid %d%s\n", (int)domain, (int)cbid,
                         t_in_callback ? " (nested, ignored)" : "");
    if (t_in_callback || g_stage <= STAGE_SUBSCRIBE) return;
    CallbackScope scope;
    std::lock_guard<std::recursive_mutex> lock(g_mutex);
    if (!g_ready || !owner()) return;
    if (domain == SANITIZER_CB_DOMAIN_RESOURCE && cbid == SANITIZER_CBID_RESOURCE_MODULE_LOADED) {
        debug("module loaded", "");
        on_module_loaded((const Sanitizer_ResourceModuleData*)cbdata);
        debug("module patched", "");
    } else if (domain == SANITIZER_CB_DOMAIN_LAUNCH && cbid == SANITIZER_CBID_LAUNCH_BEGIN) {
        const auto* data = (const Sanitizer_LaunchData*)cbdata;
        debug("launch begin", data->functionName ? data->functionName : "");
        on_launch_begin(data);
    } else if (domain == SANITIZER_CB_DOMAIN_LAUNCH && cbid == SANITIZER_CBID_LAUNCH_END) {
        debug("launch end", "");
        on_launch_end((const Sanitizer_LaunchData*)cbdata);
    } else if (!g_finished.empty() &&
               (domain == SANITIZER_CB_DOMAIN_SYNCHRONIZE || domain == SANITIZER_CB_DOMAIN_MEMCPY ||
                (domain == SANITIZER_CB_DOMAIN_RESOURCE &&
                 (cbid == SANITIZER_CBID_RESOURCE_CONTEXT_DESTROY_STARTING ||
                  cbid == SANITIZER_CBID_RESOURCE_MODULE_UNLOAD_STARTING)))) {
        debug("collecting records", "");
        collect_finished();
        debug("records written", "");
    }
}

// Last chance for launches nothing synchronized before exit (the context may already be gone: then the
// manifest says so and the Python side refuses to write a trace).
void collect_at_exit()
{
    if (t_in_callback) return;
    CallbackScope scope;
    std::lock_guard<std::recursive_mutex> lock(g_mutex);
    if (g_ready && g_owner == 1) collect_finished();
}

void install_backtrace_handler();

// Diagnosis: who handles SIGSEGV once the Sanitizer API is initialised; with BANKISM_TRACE_BACKTRACE=1 our
// handler goes back on top, so a crash after this point is reported with its native stack.
void report_signal_handler()
{
    if (!g_debug) return;
    struct sigaction current;
    sigaction(SIGSEGV, nullptr, &current);
    Dl_info where;
    memset(&where, 0, sizeof(where));
    const void* handler = (current.sa_flags & SA_SIGINFO) ? (void*)current.sa_sigaction : (void*)current.sa_handler;
    dladdr(handler, &where);
    fprintf(stderr, "bankism tracer: SIGSEGV handler after subscribing: %p (%s in %s)\n", handler,
            where.dli_sname ? where.dli_sname : "?", where.dli_fname ? where.dli_fname : "?");
    const char* backtraces = getenv("BANKISM_TRACE_BACKTRACE");
    if (backtraces != nullptr && *backtraces == '1') install_backtrace_handler();
}

int initialize_once()
{
    if (!read_options(g_options) || !read_stage()) return 1;
    g_debug = getenv("BANKISM_TRACE_DEBUG") != nullptr && *getenv("BANKISM_TRACE_DEBUG") == '1';
    if (g_stage == STAGE_LOAD) {
        debug("stage load: not subscribing", "");
        return 0;
    }
    debug("subscribing", "");
    Sanitizer_SubscriberHandle subscriber;
    if (!check(sanitizerSubscribe(&subscriber, callback, nullptr), "sanitizerSubscribe")) return 1;
    // BANKISM_TRACE_DOMAINS (diagnosis): which callback domains to enable, default all four.
    const char* domains = getenv("BANKISM_TRACE_DOMAINS");
    const std::string enabled = domains != nullptr ? domains : "resource,launch,synchronize,memcpy";
    const std::pair<const char*, Sanitizer_CallbackDomain> known[] = {
        {"resource", SANITIZER_CB_DOMAIN_RESOURCE}, {"launch", SANITIZER_CB_DOMAIN_LAUNCH},
        {"synchronize", SANITIZER_CB_DOMAIN_SYNCHRONIZE}, {"memcpy", SANITIZER_CB_DOMAIN_MEMCPY}};
    for (const auto& [name, domain] : known)
        if (enabled.find(name) != std::string::npos)
            check(sanitizerEnableDomain(1, subscriber, domain), std::string("enable ") + name + " callbacks");
    atexit(collect_at_exit);
    {
        std::lock_guard<std::recursive_mutex> lock(g_mutex);
        g_ready = true;
    }
    debug("ready", "");
    report_signal_handler();
    return 0;
}

int initialize()
{
    std::call_once(g_once, [] { g_init_result = initialize_once(); });
    return g_init_result;
}

struct sigaction g_previous_segv, g_previous_bus;

// BANKISM_TRACE_BACKTRACE=1: where a crash happened (the faulting pc, its library and symbol, the native
// stack), then the signal goes to the handler that was there before (Python's faulthandler, or the default).
void on_fatal_signal(int signal, siginfo_t* info, void* context)
{
    static const char first[] = "bankism tracer: fatal signal, backtrace follows\n";
    (void)!write(2, first, sizeof(first) - 1);
    const void* pc = (const void*)((ucontext_t*)context)->uc_mcontext.gregs[REG_RIP];
    Dl_info where;
    memset(&where, 0, sizeof(where));
    dladdr(pc, &where);
    char text[512];
    const int length = snprintf(text, sizeof(text),
                                "bankism tracer: signal %d (fault address %p) at pc %p = %s+%#lx in %s\n", signal,
                                info->si_addr, pc, where.dli_sname ? where.dli_sname : "?",
                                (unsigned long)((const char*)pc - (const char*)(where.dli_saddr ? where.dli_saddr : where.dli_fbase)),
                                where.dli_fname ? where.dli_fname : "?");
    if (length > 0) (void)!write(2, text, (size_t)length < sizeof(text) ? (size_t)length : sizeof(text) - 1);
    void* frames[64];
    backtrace_symbols_fd(frames, backtrace(frames, 64), 2);
    sigaction(signal, signal == SIGBUS ? &g_previous_bus : &g_previous_segv, nullptr);  // re-raised on return
}

void install_backtrace_handler()
{
    void* warm[2];
    backtrace(warm, 2);  // loads the unwinder now, not inside the handler
    Dl_info where;
    dladdr((void*)&install_backtrace_handler, &where);  // binds dladdr now, not inside the handler
    // Our own alternate stack, large enough for the unwinder: a stack overflow is a likely crash.
    stack_t stack;
    stack.ss_size = 1 << 20;
    stack.ss_sp = malloc(stack.ss_size);
    stack.ss_flags = 0;
    if (stack.ss_sp != nullptr) sigaltstack(&stack, nullptr);
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_sigaction = on_fatal_signal;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, &g_previous_segv);
    sigaction(SIGBUS, &action, &g_previous_bus);
}

}  // namespace

// The CUDA driver calls this when it loads the library named by CUDA_INJECTION64_PATH.
extern "C" int InitializeInjection()
{
    return initialize();
}

// With BANKISM_TRACE_INIT_AT_LOAD=1 (the library is also in LD_PRELOAD) the tracer starts when it is loaded.
static int g_initialized_at_load = [] {
    const char* backtraces = getenv("BANKISM_TRACE_BACKTRACE");
    if (backtraces != nullptr && *backtraces == '1') install_backtrace_handler();
    const char* at_load = getenv("BANKISM_TRACE_INIT_AT_LOAD");
    return at_load != nullptr && *at_load == '1' ? initialize() : 0;
}();
