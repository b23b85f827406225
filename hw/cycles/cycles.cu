// bankism cycles benchmark: shared-pipe throughput per warp-instruction.
// 1 block of 1024 threads (32 warps) per SM, grid = number of SMs; each warp
// runs ITER iterations of COPIES (=32) independent copies of one shared-memory
// instruction; copy j uses the warp's lane pattern + j*128 bytes (keeps banks).
// clock64 is read by thread 0 after a __syncthreads at start and end.
//
// Usage: cycles CONFIGS.txt MODE [first last]
//   MODE=time : run each config (grid=#SMs, 1024 thr, ITER iterations), REPS
//               repetitions, print "ROW id kernel cyc_per_inst_median ..."
//   MODE=ncu  : launch each config once with 1 block of 32 threads and ITER=1
//               (for ncu to count wavefronts per instruction).
// CONFIGS.txt lines: id kernel_name active_mask off0 ... off31
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <utility>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #x, __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1);} } while (0)

static const int kSmemBytes = 100 * 1024;
#define COPIES 32
#define STEP 128

enum Op { LD1, LD2, LD4, LD8, LD16, ST1, ST2, ST4, ST8, ST16, AADD32, AADD64,
          LDSM1, LDSM2, LDSM4, STSM1, STSM2, STSM4,
          AEXCH32, ACAS32, AEXCH64, ACAS64 };
// CAS compare value: the CAS kernels zero their target words before timing and
// never write them (every CAS fails), so the compare value never matches.
#define CAS_CMP32 0xFFFFFFFFu
#define CAS_CMP64 0xFFFFFFFFFFFFFFFFull

template <int OP, int J>
__device__ __forceinline__ void one(unsigned a, unsigned v, unsigned& acc) {  // acc: this copy's result slot (loads) / 2nd store value
  constexpr int o = J * STEP;
  if constexpr (OP == LD1) { unsigned r; asm volatile("ld.volatile.shared.u8 %0, [%1+%2];" : "=r"(r) : "r"(a), "n"(o)); acc += r; }
  if constexpr (OP == LD2) { unsigned r; asm volatile("ld.volatile.shared.u16 %0, [%1+%2];" : "=r"(r) : "r"(a), "n"(o)); acc += r; }
  if constexpr (OP == LD4) { unsigned r; asm volatile("ld.volatile.shared.u32 %0, [%1+%2];" : "=r"(r) : "r"(a), "n"(o)); acc += r; }
  if constexpr (OP == LD8) { unsigned r, s; asm volatile("ld.volatile.shared.v2.u32 {%0,%1}, [%2+%3];" : "=r"(r), "=r"(s) : "r"(a), "n"(o)); acc += r ^ s; }
  if constexpr (OP == LD16) { unsigned r, s, t, u; asm volatile("ld.volatile.shared.v4.u32 {%0,%1,%2,%3}, [%4+%5];" : "=r"(r), "=r"(s), "=r"(t), "=r"(u) : "r"(a), "n"(o)); acc += (r ^ s) + (t ^ u); }
  if constexpr (OP == ST1) { asm volatile("st.shared.u8 [%0+%2], %1;" :: "r"(a), "r"(v), "n"(o)); }
  if constexpr (OP == ST2) { asm volatile("st.shared.u16 [%0+%2], %1;" :: "r"(a), "r"(v), "n"(o)); }
  if constexpr (OP == ST4) { asm volatile("st.shared.u32 [%0+%2], %1;" :: "r"(a), "r"(v), "n"(o)); }
  if constexpr (OP == ST8) { asm volatile("st.shared.v2.u32 [%0+%3], {%1,%2};" :: "r"(a), "r"(v), "r"(acc), "n"(o)); }
  if constexpr (OP == ST16) { asm volatile("st.shared.v4.u32 [%0+%3], {%1,%2,%1,%2};" :: "r"(a), "r"(v), "r"(acc), "n"(o)); }
  if constexpr (OP == AADD32) { unsigned r; asm volatile("atom.shared.add.u32 %0, [%1+%3], %2;" : "=r"(r) : "r"(a), "r"(v), "n"(o)); acc += r; }
  if constexpr (OP == AADD64) { unsigned long long r; asm volatile("atom.shared.add.u64 %0, [%1+%3], %2;" : "=l"(r) : "r"(a), "l"((unsigned long long)v), "n"(o)); acc += (unsigned)r; }
  if constexpr (OP == LDSM1) { unsigned r; asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1+%2];" : "=r"(r) : "r"(a), "n"(o)); acc += r; }
  if constexpr (OP == LDSM2) { unsigned r, s; asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2+%3];" : "=r"(r), "=r"(s) : "r"(a), "n"(o)); acc += r ^ s; }
  if constexpr (OP == LDSM4) { unsigned r, s, t, u; asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4+%5];" : "=r"(r), "=r"(s), "=r"(t), "=r"(u) : "r"(a), "n"(o)); acc += (r ^ s) + (t ^ u); }
  if constexpr (OP == STSM1) { asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0+%2], {%1};" :: "r"(a), "r"(v), "n"(o)); }
  if constexpr (OP == STSM2) { asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0+%3], {%1,%2};" :: "r"(a), "r"(v), "r"(acc), "n"(o)); }
  if constexpr (OP == STSM4) { asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0+%3], {%1,%2,%1,%2};" :: "r"(a), "r"(v), "r"(acc), "n"(o)); }
  if constexpr (OP == AEXCH32) { unsigned r; asm volatile("atom.shared.exch.b32 %0, [%1+%3], %2;" : "=r"(r) : "r"(a), "r"(v), "n"(o)); acc += r; }
  if constexpr (OP == ACAS32) { unsigned r; asm volatile("atom.shared.cas.b32 %0, [%1+%4], %2, %3;" : "=r"(r) : "r"(a), "r"(CAS_CMP32), "r"(v), "n"(o)); acc += r; }
  if constexpr (OP == AEXCH64) { unsigned long long r; asm volatile("atom.shared.exch.b64 %0, [%1+%3], %2;" : "=l"(r) : "r"(a), "l"((unsigned long long)v), "n"(o)); acc += (unsigned)r ^ (unsigned)(r >> 32); }
  if constexpr (OP == ACAS64) { unsigned long long r; asm volatile("atom.shared.cas.b64 %0, [%1+%4], %2, %3;" : "=l"(r) : "r"(a), "l"(CAS_CMP64), "l"((unsigned long long)v), "n"(o)); acc += (unsigned)r ^ (unsigned)(r >> 32); }
}

// Results of a group of 8 copies are folded by volatile asm adds placed after
// the group's 8 instructions: <= 8 independent instructions in flight per warp
// and no register spills (ptxas otherwise hoists all 64 loads).
__device__ __forceinline__ void vadd(unsigned& acc, unsigned x) { asm volatile("add.u32 %0, %0, %1;" : "+r"(acc) : "r"(x)); }
template <int OP, int G, int... K>
__device__ __forceinline__ void group(unsigned a, unsigned v, unsigned& acc, std::integer_sequence<int, K...>) {
  unsigned r[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  (one<OP, G * 8 + K>(a, v, r[K]), ...);
  (void)r;
  if constexpr (!(OP >= ST1 && OP <= ST16) && !(OP >= STSM1 && OP <= STSM4)) {
    (vadd(acc, r[K]), ...);
  }
}
template <int OP, int... G>
__device__ __forceinline__ void body(unsigned a, unsigned v, unsigned& acc, std::integer_sequence<int, G...>) {
  (group<OP, G>(a, v, acc, std::make_integer_sequence<int, 8>{}), ...);
}

template <int OP>
__global__ void __launch_bounds__(1024, 1)
bench(const unsigned* __restrict__ g_off, unsigned mask, int iters, unsigned zero, long long* __restrict__ g_time, unsigned* __restrict__ g_sink) {
  extern __shared__ __align__(1024) unsigned char smem[];
  const unsigned lane = threadIdx.x & 31;
  const unsigned a = (unsigned)__cvta_generic_to_shared(smem) + g_off[lane];
  unsigned acc = 0, v = threadIdx.x;
  const bool active = (mask >> lane) & 1u;
  if constexpr (OP == ACAS32 || OP == ACAS64) {  // zero every CAS target so that every CAS fails
    if (active) for (int j = 0; j < COPIES; ++j) {
      if constexpr (OP == ACAS32) asm volatile("st.shared.u32 [%0], %1;" :: "r"(a + j * STEP), "r"(0u));
      else asm volatile("st.shared.u64 [%0], %1;" :: "r"(a + j * STEP), "l"(0ull));
    }
  }
  __syncthreads();
  long long t0 = clock64();
  if (active) {
    for (int it = 0; it < iters; ++it) {
      // zero == 0 at run time, unknown to the compiler: the address looks
      // different every iteration, so ptxas can neither hoist the loads out of
      // the loop nor merge iterations (seen without it: LDS hoisted out of the loop)
      body<OP>(a + zero * v, v, acc, std::make_integer_sequence<int, COPIES / 8>{});
      v += 1;
    }
  }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) { g_time[2 * blockIdx.x] = t0; g_time[2 * blockIdx.x + 1] = t1; }
  if (acc == 0x9e3779b9u) g_sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;  // keeps loads alive
}

typedef void (*KFn)(const unsigned*, unsigned, int, unsigned, long long*, unsigned*);
struct KEntry { const char* name; KFn fn; };
static KEntry kTable[] = {
  {"ld_u8", bench<LD1>}, {"ld_u16", bench<LD2>}, {"ld_u32", bench<LD4>}, {"ld_v2u32", bench<LD8>}, {"ld_v4u32", bench<LD16>},
  {"st_u8", bench<ST1>}, {"st_u16", bench<ST2>}, {"st_u32", bench<ST4>}, {"st_v2u32", bench<ST8>}, {"st_v4u32", bench<ST16>},
  {"atom_add_u32", bench<AADD32>}, {"atom_add_u64", bench<AADD64>},
  {"ldsm_x1", bench<LDSM1>}, {"ldsm_x2", bench<LDSM2>}, {"ldsm_x4", bench<LDSM4>},
  {"stsm_x1", bench<STSM1>}, {"stsm_x2", bench<STSM2>}, {"stsm_x4", bench<STSM4>},
  {"atom_exch_b32", bench<AEXCH32>}, {"atom_cas_b32", bench<ACAS32>},
  {"atom_exch_b64", bench<AEXCH64>}, {"atom_cas_b64", bench<ACAS64>},
};
static const int kNK = sizeof(kTable) / sizeof(kTable[0]);

int main(int argc, char** argv) {
  if (argc < 3) { fprintf(stderr, "usage: %s configs.txt time|ncu [first last]\n", argv[0]); return 2; }
  bool ncu = !strcmp(argv[2], "ncu");
  FILE* f = fopen(argv[1], "r"); if (!f) { perror("open"); return 2; }
  std::vector<int> kern; std::vector<unsigned> masks, offs; char name[128]; int id; unsigned m;
  while (fscanf(f, "%d %127s %u", &id, name, &m) == 3) {
    int k = -1; for (int i = 0; i < kNK; ++i) if (!strcmp(kTable[i].name, name)) k = i;
    if (k < 0) { fprintf(stderr, "unknown kernel %s\n", name); return 2; }
    for (int l = 0; l < 32; ++l) { unsigned o; if (fscanf(f, "%u", &o) != 1) return 2;
      if (o + 16 + (COPIES - 1) * STEP > (unsigned)kSmemBytes) { fprintf(stderr, "offset too big id %d\n", id); return 2; }
      offs.push_back(o); }
    if (id != (int)kern.size()) { fprintf(stderr, "bad id order\n"); return 2; }
    kern.push_back(k); masks.push_back(m);
  }
  fclose(f);
  int n = (int)kern.size(), first = 0, last = n - 1;
  if (argc >= 5) { first = atoi(argv[3]); last = std::min(atoi(argv[4]), n - 1); }
  int dev = 0; cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, dev));
  int sms = p.multiProcessorCount;
  printf("DEVICE %s SMS %d\n", p.name, sms);
  for (int i = 0; i < kNK; ++i) CK(cudaFuncSetAttribute(kTable[i].fn, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
  unsigned *d_off, *d_sink; long long* d_time;
  CK(cudaMalloc(&d_off, offs.size() * 4)); CK(cudaMalloc(&d_sink, (size_t)sms * 1024 * 4));
  CK(cudaMalloc(&d_time, (size_t)sms * 2 * 8));
  CK(cudaMemcpy(d_off, offs.data(), offs.size() * 4, cudaMemcpyHostToDevice));
  std::vector<long long> ht(sms * 2);
  const int REPS = 5;
  for (int i = first; i <= last; ++i) {
    KFn fn = kTable[kern[i]].fn;
    if (ncu) {
      fn<<<1, 32, kSmemBytes>>>(d_off + 32 * i, masks[i], 1, 0u, d_time, d_sink);
      CK(cudaGetLastError());
      continue;
    }
    // ITER sized so that the slowest case (~32 cycles/inst) stays ~ few ms
    const int iters = 128;
    fn<<<sms, 1024, kSmemBytes>>>(d_off + 32 * i, masks[i], 2, 0u, d_time, d_sink);  // warm-up
    CK(cudaGetLastError());
    std::vector<double> per;
    for (int r = 0; r < REPS; ++r) {
      fn<<<sms, 1024, kSmemBytes>>>(d_off + 32 * i, masks[i], iters, 0u, d_time, d_sink);
      CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
      CK(cudaMemcpy(ht.data(), d_time, ht.size() * 8, cudaMemcpyDeviceToHost));
      std::vector<double> cyc(sms);
      for (int b = 0; b < sms; ++b) cyc[b] = (double)(ht[2 * b + 1] - ht[2 * b]);
      std::sort(cyc.begin(), cyc.end());
      per.push_back(cyc[sms / 2]);
    }
    std::sort(per.begin(), per.end());
    double insts = 32.0 * iters * COPIES;  // warp-instructions per SM (1 block of 32 warps)
    printf("ROW %d %s cycles_median %.1f cycles_min %.1f cycles_max %.1f insts_per_sm %.0f cpi %.4f cpi_min %.4f cpi_max %.4f\n",
           i, kTable[kern[i]].name, per[REPS / 2], per[0], per[REPS - 1], insts, per[REPS / 2] / insts, per[0] / insts, per[REPS - 1] / insts);
  }
  CK(cudaDeviceSynchronize());
  printf("DONE\n");
  return 0;
}
