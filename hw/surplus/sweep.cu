// bankism: what drives the whole-kernel surplus of shared-memory wavefronts (issue 21)?
//
// One parametrised kernel, launched once per line of a configuration file under Nsight Compute. Each
// warp runs ITERS iterations; each iteration issues GL global loads of VEC floats per thread (LDG.32 or
// LDG.128), then SHN shared-memory operations of one kind (OP), each with the same lane pattern: lane i
// at unit i*DEG (units of the op's width, DEG-way bank conflict; DEG 0: every lane on unit 0), op j of
// the iteration SHN*... units further (same banks), warp w WPRIV bytes further (WPRIV 0: every warp of
// the block on the same words, which matters for atomics). DEP 1 makes every shared op wait for the
// iteration's loaded data (value or address depends on it); DEP 0 consumes the data after the shared
// ops, so the loads are in flight while they run. HITLOG bounds the global index to 2^HITLOG vectors:
// small = L1 hits after the first touch, large = every load misses L1 (fills from L2).
// The address-level cost of each op is known (see hw/surplus/collect_sweep.py), so the surplus is
// measured wavefronts minus instructions x that cost; the SASS instrumented counters give a second
// reference.
//
// GS: global float4 stores per thread and iteration after the shared ops; BAR 1: __syncthreads() before
// and after the shared ops (the load / shared / store phases of a tiled kernel).
// Usage: sweep CONFIGS.txt     lines: name kernel iters blocks threads shn deg hitlog wpriv [gs bar]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #x, __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1);} } while (0)

enum { ST32, LD32, ST128, LD64, ST64, ATOM_ADD, POPC, FADD };
static const int kWidth[] = {4, 4, 16, 8, 8, 4, 4, 4};
static const char* kOpName[] = {"st32", "ld32", "st128", "ld64", "st64", "atomadd", "popc", "fadd"};

struct Params {
    int iters, shn, deg, hitlog, wpriv, zero;
    size_t src_vectors;
    int gs, bar;  // global float4 stores per thread and iteration (after the shared ops); __syncthreads phases
};

template <int VEC> struct Vec;
template <> struct Vec<1> { typedef float T; __device__ static float sum(float v) { return v; } };
template <> struct Vec<4> { typedef float4 T; __device__ static float sum(float4 v) { return v.x + v.y + v.z + v.w; } };

template <int OP, int GL, int VEC, bool DEP>
__global__ void sweep(const float* __restrict__ src, float* __restrict__ out, float4* __restrict__ sink, Params p)
{
    extern __shared__ __align__(1024) unsigned char smem[];
    typedef typename Vec<VEC>::T V;
    const V* vsrc = reinterpret_cast<const V*>(src);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int width = OP == ST128 ? 16 : (OP == LD64 || OP == ST64) ? 8 : 4;
    const unsigned base = (unsigned)__cvta_generic_to_shared(smem) + warp * p.wpriv + lane * p.deg * width;
    const unsigned op_stride = 32u * (p.deg ? p.deg : 1) * width;
    const size_t nthreads = (size_t)gridDim.x * blockDim.x;
    const size_t gtid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t hitmask = ((size_t)1 << p.hitlog) - 1;
    float acc = 0.0f;
    for (int it = 0; it < p.iters; ++it) {
        float loaded = 0.0f;
        V v[GL > 0 ? GL : 1];
#pragma unroll
        for (int g = 0; g < GL; ++g)
            v[g] = vsrc[(((size_t)it * nthreads + gtid) * GL + g) & hitmask];
        if (DEP) {
#pragma unroll
            for (int g = 0; g < GL; ++g) loaded += Vec<VEC>::sum(v[g]);
        }
        if (p.bar) __syncthreads();
        // DEP: the shared op's value and address wait for the data (the address offset is 0 at run time)
        const unsigned dep_off = DEP ? (__float_as_uint(loaded) & p.zero) : 0u;
        const unsigned value = (unsigned)it + dep_off + lane;
#pragma unroll 1
        for (int j = 0; j < p.shn; ++j) {
            const unsigned a = base + j * op_stride + dep_off;
            if (OP == ST32) {
                asm volatile("st.shared.u32 [%0], %1;" :: "r"(a), "r"(value) : "memory");
            } else if (OP == LD32) {
                unsigned r; asm volatile("ld.shared.u32 %0, [%1];" : "=r"(r) : "r"(a) : "memory");
                acc += (float)r;
            } else if (OP == ST128) {
                asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" :: "r"(a), "r"(value), "r"(value + 1),
                             "r"(value + 2), "r"(value + 3) : "memory");
            } else if (OP == LD64) {
                unsigned r0, r1; asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(r0), "=r"(r1) : "r"(a) : "memory");
                acc += (float)(r0 ^ r1);
            } else if (OP == ST64) {
                asm volatile("st.shared.v2.u32 [%0], {%1, %2};" :: "r"(a), "r"(value), "r"(value + 7) : "memory");
            } else if (OP == ATOM_ADD) {
                asm volatile("red.shared.add.u32 [%0], %1;" :: "r"(a), "r"(value) : "memory");
            } else if (OP == POPC) {
                asm volatile("red.shared.add.u32 [%0], 1;" :: "r"(a) : "memory");
            } else {
                float r; asm volatile("atom.shared.add.f32 %0, [%1], %2;" : "=f"(r) : "r"(a), "f"(1.0f) : "memory");
                acc += r * 1e-30f;
            }
        }
        if (!DEP) {
#pragma unroll
            for (int g = 0; g < GL; ++g) loaded += Vec<VEC>::sum(v[g]);
        }
        acc += loaded;
        if (p.bar) __syncthreads();
#pragma unroll 1
        for (int g = 0; g < p.gs; ++g)  // streaming global stores, after the shared ops (as in a transpose)
            sink[(((size_t)it * nthreads + gtid) * p.gs + g) & (((size_t)1 << 24) - 1)] = make_float4(acc, it, g, lane);
    }
    out[gtid] = acc;
}

typedef void (*KFn)(const float*, float*, float4*, Params);
struct KEntry { std::string name; KFn fn; int op; };
static std::vector<KEntry> table;

template <int OP, int GL, int VEC, bool DEP>
static void add_kernel()
{
    char name[64];
    snprintf(name, sizeof name, "%s_gl%d_v%d_dep%d", kOpName[OP], GL, VEC, DEP ? 1 : 0);
    table.push_back({name, sweep<OP, GL, VEC, DEP>, OP});
}

template <int OP>
static void add_op()
{
    add_kernel<OP, 0, 4, false>();
    add_kernel<OP, 1, 4, false>(); add_kernel<OP, 1, 4, true>();
    add_kernel<OP, 2, 4, false>(); add_kernel<OP, 2, 4, true>();
    add_kernel<OP, 4, 4, false>(); add_kernel<OP, 4, 4, true>();
    add_kernel<OP, 1, 1, false>(); add_kernel<OP, 1, 1, true>();
    add_kernel<OP, 4, 1, false>(); add_kernel<OP, 4, 1, true>();
}

int main(int argc, char** argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s CONFIGS.txt\n", argv[0]); return 2; }
    add_op<ST32>(); add_op<LD32>(); add_op<ST128>(); add_op<LD64>(); add_op<ST64>();
    add_op<ATOM_ADD>(); add_op<POPC>(); add_op<FADD>();
    const size_t src_vectors = (size_t)1 << 24;  // 16 Mi float4 = 256 MiB
    float *src, *out;
    float4* sink;
    CK(cudaMalloc(&sink, src_vectors * 16));
    CK(cudaMalloc(&src, src_vectors * 16));
    CK(cudaMalloc(&out, (size_t)132 * 16 * 1024 * 4));
    {
        std::vector<float> host(src_vectors * 4);
        for (size_t i = 0; i < host.size(); ++i) host[i] = (float)(i % 1000) * 0.001f;
        CK(cudaMemcpy(src, host.data(), host.size() * 4, cudaMemcpyHostToDevice));
    }
    FILE* f = fopen(argv[1], "r");
    if (!f) { perror("open configs"); return 2; }
    char name[128], kernel[64];
    int iters, blocks, threads, shn, deg, hitlog, wpriv, gs, bar, n = 0;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        gs = bar = 0;
        const int got = sscanf(line, "%127s %63s %d %d %d %d %d %d %d %d %d", name, kernel, &iters, &blocks, &threads,
                               &shn, &deg, &hitlog, &wpriv, &gs, &bar);
        if (got < 9) continue;
        const KEntry* k = nullptr;
        for (const KEntry& e : table) if (e.name == kernel) k = &e;
        if (!k) { fprintf(stderr, "unknown kernel %s\n", kernel); return 2; }
        const int width = kWidth[k->op];
        const int warps = threads / 32;
        size_t smem = (size_t)shn * 32 * (deg ? deg : 1) * width + (size_t)(warps - 1) * wpriv + 64;
        if (smem > 200 * 1024) { fprintf(stderr, "%s: %zu bytes of shared memory\n", name, smem); return 2; }
        CK(cudaFuncSetAttribute(k->fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        Params p{iters, shn, deg, hitlog, wpriv, 0, src_vectors, gs, bar};
        k->fn<<<blocks, threads, smem>>>(src, out, sink, p);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        printf("CONFIG %d %s %s iters=%d blocks=%d threads=%d shn=%d deg=%d hitlog=%d wpriv=%d gs=%d bar=%d smem=%zu\n", n++,
               name, kernel, iters, blocks, threads, shn, deg, hitlog, wpriv, gs, bar, smem);
    }
    fclose(f);
    printf("DONE %d configs\n", n);
    return 0;
}
