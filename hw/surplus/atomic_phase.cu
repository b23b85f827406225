// bankism: where does torch.topk's surplus of shared atomic wavefronts come from (issue 21)?
//
// sbtopk::gatherTopK (16 blocks x 1024 threads) measures 2,207 more shared atomic wavefronts than its
// 19,200 single-lane ATOMS.ADD. Its radix pass: lane 0 of every warp does 4 back-to-back ATOMS.ADD (value a
// popc of a ballot, result unused) to 4 adjacent shared words, then __syncthreads(); 8-11 passes per warp.
// This program replays that phase with one knob at a time. Each block runs ROUNDS rounds; in a round every
// warp takes NOPS ballots of per-thread hashed bits (value j = __popc(__ballot_sync(bit j))), optionally
// after a per-warp ALU gap and global loads, then its first LANES lanes each do NOPS shared atomic adds,
// op j on word j*STRIDE of the warp's counters, back to back; then optionally __syncthreads().
//
// Config lines:  name blocks threads rounds nops lanes stride wpriv bar used gap pl [rb]
//   nops    atomics per lane and round: 1, 2, 4 or 8 (a template parameter, so they are back to back)
//   lanes   active lanes 0..LANES-1 (1: lane 0 only, as topk; 32: every lane, all on the same word)
//   stride  words between op j and j+1 (1: adjacent, as topk; 32: one bank, other rows; 0: one word)
//   wpriv   0: all warps of a block share the counters; 1: each warp has its own, 64 words apart (more,
//           a multiple of 64, when STRIDE*(NOPS-1) >= 64, so the banks stay the same)
//   bar     1: __syncthreads() after each round's atomics
//   used    1: the old value is used (atom.shared.add, ATOMS.ADD Rd); 0: red.shared.add (ATOMS.ADD RZ)
//   gap     warp w runs GAP*w iterations of a dependent integer multiply-add between its ballots and its
//           atomics, whose address waits for the result (0: none; >0 desynchronises the warps)
//   pl      0: no loads; 1: one float per thread and round from a 256 MiB buffer (streaming, L1 misses),
//           the ballot waits for it; 2: eight floats per thread and round from the block's 32 KB row
//           (L1 hits after the first round: topk's per-pass reads of its slice)
//   rb      optional, default 0. 1: after the atomics __syncthreads(), every thread reads the NOPS
//           counters, __syncthreads() (topk's read-back of the counts); 2: also, before the round, the
//           counters are zeroed (lanes < NOPS of warp 0, or of each warp with wpriv) and __syncthreads(),
//           which is topk's whole countRadixUsingMask. rb > 0 implies the barrier after the atomics.
// The loaded data and the gap's result enter the value / address through "& zero" (zero = 0 at run
// time), so the dependence is real and the results are known. The host simulates one block (all blocks
// do the same work) and checks every counter word of every block, and with rb every thread's read-back
// sum: OK / FAIL on each CONFIG line, which also gives the expected ATOMS instructions
// (blocks x warps x rounds x nops) and the launch's cudaEvent time (ms; inflated under ncu).
//
// SASS (nvcc 13.0 -O3 -arch=sm_90, cuobjdump -sass), the atomics of each instance (NOPS, USED, STRIDE):
//   used 0: NOPS x "ATOMS.ADD RZ, [Ra], Rv / [Ra+0x4] / [Ra+0x8] / [Ra+0xc] ..." (stride 1; offsets
//           j*stride*4: 0x80 steps for stride 32, all [Ra] for stride 0), at consecutive PCs, in a branch on
//           lane < LANES, after the NOPS VOTE.ANY + POPC; no POPC.INC form (the values are ballot
//           popcounts, never a constant 1). atomicAdd with the result unused compiles to the same ATOMS.ADD RZ.
//   used 1: the same with a destination, "ATOMS.ADD Rd, [Ra+0x4], Rv", consecutive, the Rd summed afterwards.
//   The strides 0, 1, 2, 8, 16, 32 are compile-time (immediate offsets); any other stride takes a generic
//   instance whose ATOMS use one address register each and are interleaved with IMADs (not back to back).
//   topk's trace has 4 x ATOMS.ADD at consecutive PCs (2640..2688). The same four atomicAdd on a static
//   __shared__ array, lane 0 predicated, compile here to "@P0 ATOMS.ADD RZ, [UR5+0x4], R7" (a uniform
//   address register) where this kernel, with a per-warp base, uses [Rx+0x4]. topk's read-back is one
//   LDS.128; here rb reads NOPS x LDS.
//   28-32 registers per thread, so 1,024-thread blocks (2 per SM) fit.
// Usage: atomic_phase CONFIGS.txt
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #x, __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1);} } while (0)

static const size_t kStreamFloats = (size_t)1 << 26;  // 256 MiB
static const int kRowFloats = 8192;                     // pl 2: the block's row (topk's slice of 8,192 floats)
static const unsigned kFull = 0xffffffffu;

struct Params {
    int rounds, lanes, stride, region, bar, gap, pl, rb;
    int block_words;    // counter words of one block
    unsigned seed, zero;
    const float* stream;
};

__host__ __device__ inline unsigned hash3(unsigned t, unsigned r, unsigned seed)
{
    unsigned x = t * 0x9E3779B1u ^ (r + 0x7F4A7C15u) * 0x85EBCA77u ^ seed;
    x ^= x >> 16; x *= 0x7FEB352Du; x ^= x >> 15; x *= 0x846CA68Bu; x ^= x >> 16;
    return x;
}

// ST >= 0: the stride as a compile-time constant (immediate address offsets, [Ra+0x4]); -1: p.stride
template <int NOPS, bool USED, int ST>
__global__ void __launch_bounds__(1024)
atomic_phase(Params p, unsigned* __restrict__ counters_out, unsigned* __restrict__ readback_out,
             unsigned* __restrict__ sink)
{
    extern __shared__ __align__(1024) unsigned cnt[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, stride = ST >= 0 ? ST : p.stride;
    const size_t gtid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = threadIdx.x; i < p.block_words; i += blockDim.x) cnt[i] = 0;
    __syncthreads();
    volatile unsigned* mine = cnt + warp * p.region;  // region 0: every warp on the same counters
    const unsigned base = (unsigned)__cvta_generic_to_shared(cnt + warp * p.region);
    const bool resetter = lane < NOPS && (p.region != 0 || warp == 0);
    const int gap_iters = p.gap * warp;
    unsigned old_sum = 0, readback = 0, g = threadIdx.x;
    for (int r = 0; r < p.rounds; ++r) {
        if (p.rb == 2) {  // topk: if (threadIdx.x < RadixSize) smem[threadIdx.x] = 0; __syncthreads();
            if (resetter) mine[lane * stride] = 0;
            __syncthreads();
        }
        unsigned loaded = 0;
        if (p.pl == 1) {
            const size_t i = ((size_t)r * gridDim.x * blockDim.x + gtid) & (kStreamFloats - 1);
            loaded = __float_as_uint(__ldcs(p.stream + i));
        } else if (p.pl == 2) {
            const float* row = p.stream + (size_t)blockIdx.x * kRowFloats;
#pragma unroll
            for (int k = 0; k < 8; ++k)
                loaded += __float_as_uint(__ldg(row + ((threadIdx.x + k * blockDim.x) & (kRowFloats - 1))));
        }
        const unsigned x = hash3(threadIdx.x, r, p.seed) ^ (loaded & p.zero);
        unsigned v[NOPS];
#pragma unroll
        for (int j = 0; j < NOPS; ++j) {
            v[j] = __popc(__ballot_sync(kFull, (x >> j) & 1u));
            g ^= v[j] & p.zero;  // the address waits for every value, so the atomics are back to back
        }
#pragma unroll 1
        for (int i = 0; i < gap_iters; ++i) g = g * 0x9E3779B1u + (unsigned)i;  // dependent IMADs
        const unsigned a0 = base + (g & p.zero);
        if (lane < p.lanes) {
#pragma unroll
            for (int j = 0; j < NOPS; ++j) {
                if (USED) {
                    unsigned o;
                    asm volatile("atom.shared.add.u32 %0, [%1], %2;"
                                 : "=r"(o) : "r"(a0 + j * stride * 4u), "r"(v[j]) : "memory");
                    old_sum += o;
                } else {
                    asm volatile("red.shared.add.u32 [%0], %1;" :: "r"(a0 + j * stride * 4u), "r"(v[j]) : "memory");
                }
            }
        }
        if (p.bar || p.rb) __syncthreads();
        if (p.rb) {  // topk: counts[i] = smem[i]; __syncthreads();
#pragma unroll
            for (int j = 0; j < NOPS; ++j) readback += mine[j * stride];
            __syncthreads();
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < p.block_words; i += blockDim.x)
        counters_out[(size_t)blockIdx.x * p.block_words + i] = cnt[i];
    readback_out[gtid] = readback;
    if (USED) sink[gtid] = old_sum + g;
    else sink[gtid] = g;
}

struct Config {
    std::string name;
    int blocks, threads, rounds, nops, lanes, stride, wpriv, bar, used, gap, pl, rb;
};

typedef void (*KFn)(Params, unsigned*, unsigned*, unsigned*);

template <int ST>
static KFn kernel_for_stride(int nops, int used)
{
#define K(N) if (nops == N) return used ? atomic_phase<N, true, ST> : atomic_phase<N, false, ST>;
    K(1) K(2) K(4) K(8)
#undef K
    return nullptr;
}

static KFn kernel_for(int nops, int used, int stride)
{
#define S(V) if (stride == V) return kernel_for_stride<V>(nops, used);
    S(0) S(1) S(2) S(8) S(16) S(32)
#undef S
    return kernel_for_stride<-1>(nops, used);
}

// One block's counters after the launch, and each thread's read-back sum (every block does the same).
static void simulate(const Config& c, const Params& p, std::vector<unsigned>& words, std::vector<unsigned>& readback)
{
    const int warps = c.threads / 32, lanes = c.lanes < 32 ? c.lanes : 32;
    words.assign(p.block_words, 0);
    readback.assign(c.threads, 0);
    for (int r = 0; r < c.rounds; ++r) {
        if (c.rb == 2)
            for (int w = 0; w < (p.region ? warps : 1); ++w)
                for (int j = 0; j < c.nops; ++j) words[w * p.region + j * c.stride] = 0;
        for (int w = 0; w < warps; ++w)
            for (int j = 0; j < c.nops; ++j) {
                unsigned ballot = 0;
                for (int l = 0; l < 32; ++l) ballot |= ((hash3(w * 32 + l, r, p.seed) >> j) & 1u) << l;
                words[w * p.region + j * c.stride] += (unsigned)lanes * (unsigned)__builtin_popcount(ballot);
            }
        if (c.rb)
            for (int t = 0; t < c.threads; ++t)
                for (int j = 0; j < c.nops; ++j) readback[t] += words[(t / 32) * p.region + j * c.stride];
    }
}

int main(int argc, char** argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s CONFIGS.txt\n", argv[0]); return 2; }
    float* stream;
    CK(cudaMalloc(&stream, kStreamFloats * 4));
    CK(cudaMemset(stream, 0, kStreamFloats * 4));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    FILE* f = fopen(argv[1], "r");
    if (!f) { perror("open configs"); return 2; }
    char line[512], name[128];
    int n = 0, failed = 0;
    while (fgets(line, sizeof line, f)) {
        Config c{};
        const int got = sscanf(line, "%127s %d %d %d %d %d %d %d %d %d %d %d %d", name, &c.blocks, &c.threads,
                               &c.rounds, &c.nops, &c.lanes, &c.stride, &c.wpriv, &c.bar, &c.used, &c.gap, &c.pl,
                               &c.rb);
        if (got < 12 || name[0] == '#') continue;
        c.name = name;
        KFn fn = kernel_for(c.nops, c.used, c.stride);
        if (!fn || c.threads < 32 || c.threads > 1024 || c.threads % 32 || c.blocks < 1 || c.blocks > 8192 ||
            c.lanes < 1 || c.lanes > 32 || c.stride < 0 || c.stride > 64 || c.rounds < 1 || c.gap < 0 ||
            c.pl < 0 || c.pl > 2 || c.rb < 0 || c.rb > 2) {
            fprintf(stderr, "%s: bad configuration\n", name); return 2;
        }
        const int span = c.stride * (c.nops - 1) + 1, warps = c.threads / 32;
        Params p{};
        p.rounds = c.rounds; p.lanes = c.lanes; p.stride = c.stride; p.bar = c.bar; p.gap = c.gap; p.pl = c.pl;
        p.rb = c.rb; p.region = c.wpriv ? (span + 63) / 64 * 64 : 0;
        p.block_words = c.wpriv ? warps * p.region : span;
        p.seed = 0x5EED1234u; p.zero = 0; p.stream = stream;  // one seed: repeats are identical launches
        const size_t smem = (size_t)p.block_words * 4;
        CK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        unsigned *counters, *readback, *sink;
        const size_t nthreads = (size_t)c.blocks * c.threads;
        CK(cudaMalloc(&counters, (size_t)c.blocks * smem));
        CK(cudaMalloc(&readback, nthreads * 4));
        CK(cudaMalloc(&sink, nthreads * 4));
        CK(cudaEventRecord(e0));
        fn<<<c.blocks, c.threads, smem>>>(p, counters, readback, sink);
        CK(cudaEventRecord(e1));
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        std::vector<unsigned> got_words((size_t)c.blocks * p.block_words), got_rb(nthreads), want_words, want_rb;
        CK(cudaMemcpy(got_words.data(), counters, got_words.size() * 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(got_rb.data(), readback, nthreads * 4, cudaMemcpyDeviceToHost));
        CK(cudaFree(counters)); CK(cudaFree(readback)); CK(cudaFree(sink));
        simulate(c, p, want_words, want_rb);
        size_t wrong = 0;
        unsigned long long sum = 0, want_sum = 0;
        for (int b = 0; b < c.blocks; ++b) {
            for (int i = 0; i < p.block_words; ++i) {
                const unsigned w = got_words[(size_t)b * p.block_words + i];
                sum += w; want_sum += want_words[i];
                wrong += w != want_words[i];
            }
            for (int t = 0; t < c.threads; ++t) wrong += got_rb[(size_t)b * c.threads + t] != want_rb[t];
        }
        const long long instructions = (long long)c.blocks * warps * c.rounds * c.nops;
        printf("CONFIG %d %s blocks=%d threads=%d rounds=%d nops=%d lanes=%d stride=%d wpriv=%d bar=%d used=%d gap=%d "
               "pl=%d rb=%d smem=%zu atoms=%lld sum=%llu expected=%llu wrong=%zu ms=%.4f %s\n",
               n++, name, c.blocks, c.threads, c.rounds, c.nops, c.lanes, c.stride, c.wpriv, c.bar, c.used, c.gap,
               c.pl, c.rb, smem, instructions, sum, want_sum, wrong, ms, wrong ? "FAIL" : "OK");
        fflush(stdout);
        failed += wrong != 0;
    }
    fclose(f);
    printf("DONE %d configs, %d failed\n", n, failed);
    return failed ? 1 : 0;
}
