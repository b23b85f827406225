// bankism random atomic probes (sm_90): one launch = one warp executing ONE shared-memory atomic
// instruction (or, for the loop forms, one compiler retry loop), on per-lane byte offsets and an
// active mask read from device memory. Input format and launch order as hw/atomics/atomics.cu (the
// first launch is a shared-base probe of pattern 0); the patterns come from hw/atomics/gen_random.py.
//
// Usage: random PATTERNS.txt [first last [pairs]]   (inclusive pattern-id range)
// PATTERNS.txt lines: id kernel_name active_mask off0 ... off31
// With "pairs", two probes of the same kernel run in one launch, one warp in each of two blocks whose
// 120 KiB of shared memory keep them on two SMs: ncu's .max over the L1 units gives the larger count, .sum
// minus .max the other (a line "PAIR launch a b" names the probes of each launch).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #x, __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1);} } while (0)

static const int kSmemBytes = 100 * 1024;

#define PARAMS const unsigned* __restrict__ g_off, const unsigned* __restrict__ g_mask, unsigned* __restrict__ g_out, int pid0, int pid1
#define HEAD \
  extern __shared__ __align__(1024) unsigned char smem[]; \
  const int pid = blockIdx.x ? pid1 : pid0; \
  const unsigned lane = threadIdx.x; \
  const unsigned mask = g_mask[pid]; \
  const unsigned base = (unsigned)__cvta_generic_to_shared(smem); \
  const unsigned a = base + g_off[pid * 32 + lane]; \
  if (lane == 0 && pid == 0) g_out[0] = base;
#define OUT(v) g_out[1 + pid * 32 + lane] = (v)
#define ACTIVE if ((mask >> lane) & 1u)

// result unused, value 1: ATOMS.POPC.INC.32; lane-dependent value: ATOMS.ADD
extern "C" __global__ void rnd_popc(PARAMS) { HEAD
  ACTIVE { asm volatile("red.shared.add.u32 [%0], 1;" :: "r"(a) : "memory"); OUT(lane); } }
extern "C" __global__ void rnd_redadd(PARAMS) { HEAD
  ACTIVE { asm volatile("red.shared.add.u32 [%0], %1;" :: "r"(a), "r"(lane + 1) : "memory"); OUT(lane); } }

#define ATOM32(NAME, PTX, VAL) \
extern "C" __global__ void NAME(PARAMS) { HEAD \
  ACTIVE { unsigned r; asm volatile(PTX " %0, [%1], %2;" : "=r"(r) : "r"(a), "r"(VAL) : "memory"); OUT(r); } }
ATOM32(rnd_add_u32, "atom.shared.add.u32", lane + 1)
ATOM32(rnd_inc_u32, "atom.shared.inc.u32", 1000u)
ATOM32(rnd_dec_u32, "atom.shared.dec.u32", 1000u)
ATOM32(rnd_min_s32, "atom.shared.min.s32", lane - 16)
ATOM32(rnd_max_s32, "atom.shared.max.s32", lane - 16)
ATOM32(rnd_min_u32, "atom.shared.min.u32", lane)
ATOM32(rnd_max_u32, "atom.shared.max.u32", lane)
ATOM32(rnd_and_b32, "atom.shared.and.b32", ~(1u << lane))
ATOM32(rnd_or_b32, "atom.shared.or.b32", 1u << lane)
ATOM32(rnd_xor_b32, "atom.shared.xor.b32", 1u << lane)
ATOM32(rnd_exch_b32, "atom.shared.exch.b32", lane)

extern "C" __global__ void rnd_cas_b32(PARAMS) { HEAD
  ACTIVE { unsigned r;
    asm volatile("atom.shared.cas.b32 %0, [%1], %2, %3;" : "=r"(r) : "r"(a), "r"(pid), "r"(lane) : "memory"); OUT(r); } }
extern "C" __global__ void rnd_exch_b64(PARAMS) { HEAD
  ACTIVE { unsigned long long r;
    asm volatile("atom.shared.exch.b64 %0, [%1], %2;" : "=l"(r) : "r"(a), "l"((unsigned long long)lane) : "memory");
    OUT((unsigned)r ^ (unsigned)(r >> 32)); } }
extern "C" __global__ void rnd_cas_b64(PARAMS) { HEAD
  ACTIVE { unsigned long long r;
    asm volatile("atom.shared.cas.b64 %0, [%1], %2, %3;" : "=l"(r) : "r"(a), "l"((unsigned long long)pid), "l"((unsigned long long)lane) : "memory");
    OUT((unsigned)r ^ (unsigned)(r >> 32)); } }
// loops: f32 add (LDS + ATOMS.CAST.SPIN), u64 add (LDS.64 + ATOMS.CAST.SPIN.64)
extern "C" __global__ void rnd_add_f32(PARAMS) { HEAD
  ACTIVE { float r; asm volatile("atom.shared.add.f32 %0, [%1], %2;" : "=f"(r) : "r"(a), "f"(1.0f + lane) : "memory");
    OUT(__float_as_uint(r)); } }
extern "C" __global__ void rnd_add_u64(PARAMS) { HEAD
  ACTIVE { unsigned long long r;
    asm volatile("atom.shared.add.u64 %0, [%1], %2;" : "=l"(r) : "r"(a), "l"((unsigned long long)lane + 1) : "memory");
    OUT((unsigned)r ^ (unsigned)(r >> 32)); } }

typedef void (*KFn)(PARAMS);
struct KEntry { const char* name; KFn fn; };
#define K(n) { #n, n }
static KEntry kTable[] = {
  K(rnd_popc), K(rnd_redadd), K(rnd_add_u32), K(rnd_inc_u32), K(rnd_dec_u32), K(rnd_min_s32), K(rnd_max_s32),
  K(rnd_min_u32), K(rnd_max_u32), K(rnd_and_b32), K(rnd_or_b32), K(rnd_xor_b32), K(rnd_exch_b32),
  K(rnd_cas_b32), K(rnd_exch_b64), K(rnd_cas_b64), K(rnd_add_f32), K(rnd_add_u64),
};
static const int kNK = sizeof(kTable) / sizeof(kTable[0]);

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s patterns.txt [first last]\n", argv[0]); return 2; }
  FILE* f = fopen(argv[1], "r");
  if (!f) { perror("open patterns"); return 2; }
  std::vector<int> kern; std::vector<unsigned> masks, offs;
  char name[128];
  int id; unsigned m;
  while (fscanf(f, "%d %127s %u", &id, name, &m) == 3) {
    int k = -1;
    for (int i = 0; i < kNK; ++i) if (!strcmp(kTable[i].name, name)) k = i;
    if (k < 0) { fprintf(stderr, "unknown kernel %s\n", name); return 2; }
    for (int l = 0; l < 32; ++l) { unsigned o; if (fscanf(f, "%u", &o) != 1) { fprintf(stderr, "bad line %d\n", id); return 2; }
      if (o + 16 > (unsigned)kSmemBytes) { fprintf(stderr, "offset out of range id %d\n", id); return 2; }
      offs.push_back(o); }
    if (id != (int)kern.size()) { fprintf(stderr, "ids must be 0..N-1 in order (got %d)\n", id); return 2; }
    kern.push_back(k); masks.push_back(m);
  }
  fclose(f);
  int n = (int)kern.size();
  int first = 0, last = n - 1;
  if (argc >= 4) { first = atoi(argv[2]); last = atoi(argv[3]); if (last >= n) last = n - 1; }
  const bool pairs = argc >= 5 && !strcmp(argv[4], "pairs");
  const int pairSmem = 120 * 1024;
  for (int i = 0; i < kNK; ++i) CK(cudaFuncSetAttribute(kTable[i].fn, cudaFuncAttributeMaxDynamicSharedMemorySize, pairSmem));
  unsigned *d_off, *d_mask, *d_out;
  CK(cudaMalloc(&d_off, offs.size() * 4)); CK(cudaMalloc(&d_mask, masks.size() * 4));
  CK(cudaMalloc(&d_out, (size_t)(n * 32 + 1) * 4));
  CK(cudaMemcpy(d_off, offs.data(), offs.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_mask, masks.data(), masks.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemset(d_out, 0xff, (size_t)(n * 32 + 1) * 4));
  kTable[kern[0]].fn<<<1, 32, kSmemBytes>>>(d_off, d_mask, d_out, 0, 0);
  CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
  unsigned base = 0; CK(cudaMemcpy(&base, d_out, 4, cudaMemcpyDeviceToHost));
  printf("SHARED_BASE %u\n", base);
  printf("LAUNCH_ORDER_NOTE first launch is a base probe of pattern 0; probes follow: %d..%d\n", first, last);
  int launches = 1;
  if (!pairs) {
    for (int i = first; i <= last; ++i, ++launches) {
      kTable[kern[i]].fn<<<1, 32, kSmemBytes>>>(d_off, d_mask, d_out, i, i);
      CK(cudaGetLastError());
    }
  } else {
    std::vector<int> waiting(kNK, -1);  // per kernel, a probe waiting for its partner
    for (int i = first; i <= last; ++i) {
      const int k = kern[i];
      if (waiting[k] < 0) { waiting[k] = i; continue; }
      printf("PAIR %d %d %d\n", launches++, waiting[k], i);
      kTable[k].fn<<<2, 32, pairSmem>>>(d_off, d_mask, d_out, waiting[k], i);
      CK(cudaGetLastError());
      waiting[k] = -1;
    }
    for (int k = 0; k < kNK; ++k) if (waiting[k] >= 0) {
      printf("PAIR %d %d %d\n", launches++, waiting[k], -1);
      kTable[k].fn<<<1, 32, pairSmem>>>(d_off, d_mask, d_out, waiting[k], waiting[k]);
      CK(cudaGetLastError());
    }
  }
  CK(cudaDeviceSynchronize());
  printf("DONE %d launches\n", launches);
  return 0;
}
