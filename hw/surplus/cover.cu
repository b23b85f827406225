// bankism: which shared accesses meet L1 fills, and from how many L1 bytes on (issue 21, run 19).
//
// The sweep (hw/surplus/sweep.cu) measured a POPC.INC whose 32 lanes hit one word at about a third of the
// surplus of one whose lanes hit 32 banks, at the same wavefronts and fills; the stored `counters` program
// (4 counters in banks 0-3) measures 1.8% where the even-spread estimate expects 8%. And the sweep's
// 256-thread atomics at 129 KiB of fills per SM measured almost none, as stores do below 132 KiB (run 14).
// This probe asks both questions with one kernel. Each warp runs ITERS iterations of: GL streaming float4
// loads per thread (every one an L1 miss), SHN shared ops of one kind on K distinct words, lane i on word
// OFF + (i % K) * S of the op's 128-byte row (op j one row further: the same banks), then GS streaming
// float4 global stores per thread. K words at stride S touch K banks in one to four 8-bank groups (32 bytes,
// one sector of an L1 line), so the same bank count comes in different group counts. Every warp of a block
// works on the same words (atomics contend as in a shared histogram).
// Ops: st32 (STS), ld32 (LDS), popc (red.add 1: ATOMS.POPC.INC), atomadd (red.add lane: ATOMS.ADD).
// Config lines:  name op gl iters blocks threads shn K S off gs [row]
// ROW (bytes, default 128; run 20): op j's words lie ROW bytes further, so K * S may span several 128-byte rows
// (bank conflicts: several wavefronts per instruction, each on its own banks).
// Usage: cover CONFIGS.txt      (prints CONFIG n ... per launch, DONE n at the end)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #x, __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1);} } while (0)

enum { ST32, LD32, POPC, ATOM_ADD };
static const char* kOpName[] = {"st32", "ld32", "popc", "atomadd"};

struct Params {
    int iters, shn, k, s, off, gs, row;
    size_t vectors_mask;  // the global arrays hold mask + 1 float4 (a power of two)
};

template <int OP, int GL>
__global__ void cover(const float4* __restrict__ src, float4* __restrict__ sink, float* __restrict__ out, Params p)
{
    extern __shared__ __align__(1024) unsigned char smem[];
    const int lane = threadIdx.x & 31;
    const unsigned base = (unsigned)__cvta_generic_to_shared(smem) + (p.off + (lane % p.k) * p.s) * 4u;
    const size_t nthreads = (size_t)gridDim.x * blockDim.x;
    const size_t gtid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (int it = 0; it < p.iters; ++it) {
        float4 v[GL > 0 ? GL : 1];
#pragma unroll
        for (int g = 0; g < GL; ++g) v[g] = src[(((size_t)it * nthreads + gtid) * GL + g) & p.vectors_mask];
        const unsigned value = (unsigned)it + lane;
#pragma unroll 1
        for (int j = 0; j < p.shn; ++j) {
            const unsigned a = base + j * (unsigned)p.row;
            if (OP == ST32) {
                asm volatile("st.shared.u32 [%0], %1;" :: "r"(a), "r"(value) : "memory");
            } else if (OP == LD32) {
                unsigned r; asm volatile("ld.shared.u32 %0, [%1];" : "=r"(r) : "r"(a) : "memory");
                acc += (float)r;
            } else if (OP == POPC) {
                asm volatile("red.shared.add.u32 [%0], 1;" :: "r"(a) : "memory");
            } else {
                asm volatile("red.shared.add.u32 [%0], %1;" :: "r"(a), "r"(value) : "memory");
            }
        }
#pragma unroll
        for (int g = 0; g < GL; ++g) acc += v[g].x + v[g].y + v[g].z + v[g].w;  // the loads complete after the ops
#pragma unroll 1
        for (int g = 0; g < p.gs; ++g)
            sink[(((size_t)it * nthreads + gtid) * p.gs + g) & p.vectors_mask] = make_float4(acc, it, g, lane);
    }
    out[gtid] = acc;
}

typedef void (*KFn)(const float4*, float4*, float*, Params);
struct KEntry { int op, gl; KFn fn; };

template <int OP> static void add(std::vector<KEntry>& table)
{
    table.push_back({OP, 0, cover<OP, 0>});
    table.push_back({OP, 2, cover<OP, 2>});
}

int main(int argc, char** argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s CONFIGS.txt\n", argv[0]); return 2; }
    std::vector<KEntry> table;
    add<ST32>(table); add<LD32>(table); add<POPC>(table); add<ATOM_ADD>(table);
    const size_t vectors = (size_t)1 << 24;  // 16 Mi float4 = 256 MiB each: far beyond L2, every load a miss
    float4 *src, *sink;
    float* out;
    CK(cudaMalloc(&src, vectors * 16));
    CK(cudaMalloc(&sink, vectors * 16));
    CK(cudaMalloc(&out, (size_t)528 * 1024 * 4));
    CK(cudaMemset(src, 0x3f, vectors * 16));
    FILE* f = fopen(argv[1], "r");
    if (!f) { perror("open configs"); return 2; }
    char line[512], name[128], op[32];
    int gl, iters, blocks, threads, shn, k, s, off, gs, row, n = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        row = 128;
        if (sscanf(line, "%127s %31s %d %d %d %d %d %d %d %d %d %d", name, op, &gl, &iters, &blocks, &threads, &shn, &k,
                   &s, &off, &gs, &row) < 11) continue;
        const KEntry* e = nullptr;
        for (const KEntry& t : table) if (!strcmp(kOpName[t.op], op) && t.gl == gl) e = &t;
        if (!e || k < 1 || row < 128 || row % 128 || (off + (k - 1) * s) * 4 >= row || shn * row > 160 * 1024 ||
            blocks > 528 || threads > 1024) {
            fprintf(stderr, "%s: bad configuration\n", name); return 2;
        }
        const size_t smem = (size_t)shn * row + 64;
        CK(cudaFuncSetAttribute(e->fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        Params p{iters, shn, k, s, off, gs, row, vectors - 1};
        e->fn<<<blocks, threads, smem>>>(src, sink, out, p);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        printf("CONFIG %d %s op=%s gl=%d iters=%d blocks=%d threads=%d shn=%d k=%d s=%d off=%d gs=%d row=%d\n", n++,
               name, op, gl, iters, blocks, threads, shn, k, s, off, gs, row);
    }
    fclose(f);
    printf("DONE %d configs\n", n);
    return 0;
}
