// bankism atomic probes (sm_90): one launch = one warp executing ONE shared-memory atomic
// instruction (or one compiler-emitted retry loop, whose iterations ncu counts), with per-lane
// byte offsets and an active mask read from device memory. Same input format and launch order
// as hw/probes/probe.cu (the first launch is a shared-base probe of pattern 0).
//
// Usage: atomics PATTERNS.txt [first last]   (inclusive pattern-id range)
// PATTERNS.txt lines: id kernel_name active_mask off0 ... off31
// The SASS each kernel compiles to is checked with cuobjdump -sass (traces/probes/sm_90_atomics_sass.txt).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <vector>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #x, __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1);} } while (0)

static const int kSmemBytes = 100 * 1024;

#define PARAMS const unsigned* __restrict__ g_off, const unsigned* __restrict__ g_mask, unsigned* __restrict__ g_out, int pid
#define HEAD \
  extern __shared__ __align__(1024) unsigned char smem[]; \
  const unsigned lane = threadIdx.x; \
  const unsigned mask = g_mask[pid]; \
  const unsigned base = (unsigned)__cvta_generic_to_shared(smem); \
  const unsigned off = g_off[pid * 32 + lane]; \
  const unsigned a = base + off; \
  (void)a; (void)off; \
  if (lane == 0 && pid == 0) g_out[0] = base;
#define OUT(v) g_out[1 + pid * 32 + lane] = (v)
#define ACTIVE if ((mask >> lane) & 1u)

// ---- one native ATOMS instruction, result used: atom.shared.<op>.<type> r, [a], v
#define ATOM32(NAME, PTX, VAL) \
extern "C" __global__ void NAME(PARAMS) { HEAD \
  ACTIVE { unsigned r; asm volatile(PTX " %0, [%1], %2;" : "=r"(r) : "r"(a), "r"(VAL) : "memory"); OUT(r); } }
ATOM32(probe_atom_add_u32, "atom.shared.add.u32", lane + 1)
ATOM32(probe_atom_inc_u32, "atom.shared.inc.u32", 1000u)
ATOM32(probe_atom_dec_u32, "atom.shared.dec.u32", 1000u)
ATOM32(probe_atom_min_s32, "atom.shared.min.s32", lane - 16)
ATOM32(probe_atom_max_s32, "atom.shared.max.s32", lane - 16)
ATOM32(probe_atom_min_u32, "atom.shared.min.u32", lane)
ATOM32(probe_atom_max_u32, "atom.shared.max.u32", lane)
ATOM32(probe_atom_and_b32, "atom.shared.and.b32", ~(1u << lane))
ATOM32(probe_atom_or_b32, "atom.shared.or.b32", 1u << lane)
ATOM32(probe_atom_xor_b32, "atom.shared.xor.b32", 1u << lane)

// ---- result unused: red.shared.add.u32 [a], 1 -> ATOMS.POPC.INC.32 (what atomicAdd(&s[i], 1) becomes
// when its result is unused); red with a lane-dependent value -> ATOMS.ADD
extern "C" __global__ void probe_red_add1_u32(PARAMS) { HEAD
  ACTIVE { asm volatile("red.shared.add.u32 [%0], 1;" :: "r"(a) : "memory"); OUT(lane); } }
extern "C" __global__ void probe_red_addv_u32(PARAMS) { HEAD
  ACTIVE { asm volatile("red.shared.add.u32 [%0], %1;" :: "r"(a), "r"(lane + 1) : "memory"); OUT(lane); } }

// ---- compiler-emitted loops (no native instruction on sm_90)
// f32 add: LDS + ATOMS.CAST.SPIN retry loop
extern "C" __global__ void probe_atom_add_f32(PARAMS) { HEAD
  ACTIVE { float r; asm volatile("atom.shared.add.f32 %0, [%1], %2;" : "=f"(r) : "r"(a), "f"(1.0f + lane) : "memory");
    OUT(__float_as_uint(r)); } }
// f64 add: LDS.64 + ATOMS.CAST.SPIN.64 loop
extern "C" __global__ void probe_atom_add_f64(PARAMS) { HEAD
  ACTIVE { double r; asm volatile("atom.shared.add.f64 %0, [%1], %2;" : "=d"(r) : "r"(a), "d"(1.0 + lane) : "memory");
    unsigned long long b = __double_as_longlong(r); OUT((unsigned)b ^ (unsigned)(b >> 32)); } }
// 64-bit integer max / and: LDS.64 + ATOMS.CAST.SPIN.64 loop
extern "C" __global__ void probe_atom_max_u64(PARAMS) { HEAD
  ACTIVE { unsigned long long r; asm volatile("atom.shared.max.u64 %0, [%1], %2;" : "=l"(r) : "r"(a), "l"((unsigned long long)lane << 20) : "memory");
    OUT((unsigned)r ^ (unsigned)(r >> 32)); } }
extern "C" __global__ void probe_atom_and_b64(PARAMS) { HEAD
  ACTIVE { unsigned long long r; asm volatile("atom.shared.and.b64 %0, [%1], %2;" : "=l"(r) : "r"(a), "l"(~(1ull << lane)) : "memory");
    OUT((unsigned)r ^ (unsigned)(r >> 32)); } }
// f16x2 add on a shared address: LDS + ATOMS.CAST.SPIN loop
extern "C" __global__ void probe_atom_add_f16x2(PARAMS) { HEAD
  ACTIVE { unsigned r; asm volatile("atom.shared.add.noftz.f16x2 %0, [%1], %2;" : "=r"(r) : "r"(a), "r"(0x3c003c00u) : "memory"); OUT(r); } }
// f16 add on a shared address (2-byte lanes): LDS + ATOMS.CAS loop on the enclosing word
extern "C" __global__ void probe_atom_add_f16(PARAMS) { HEAD
  ACTIVE { unsigned short r; asm volatile("atom.shared.add.noftz.f16 %0, [%1], %2;" : "=h"(r) : "r"(a), "h"((unsigned short)0x3c00) : "memory"); OUT(r); } }
// 16-bit CAS: LDS + ATOMS.CAS loop on the enclosing word
extern "C" __global__ void probe_atom_cas_b16(PARAMS) { HEAD
  ACTIVE { unsigned short r; asm volatile("atom.shared.cas.b16 %0, [%1], %2, %3;" : "=h"(r) : "r"(a), "h"((unsigned short)pid), "h"((unsigned short)lane) : "memory"); OUT(r); } }

// ---- CUDA-source forms that go through a generic pointer (what cuda_fp16.h / cuda_bf16.h emit)
extern "C" __global__ void probe_src_half_add(PARAMS) { HEAD
  ACTIVE { __half r = atomicAdd((__half*)(smem + off), __float2half(1.0f)); OUT(__half_as_ushort(r)); } }
extern "C" __global__ void probe_src_half2_add(PARAMS) { HEAD
  ACTIVE { __half2 r = atomicAdd((__half2*)(smem + off), __floats2half2_rn(1.0f, 2.0f));
    OUT(*reinterpret_cast<unsigned*>(&r)); } }
extern "C" __global__ void probe_src_bf16_add(PARAMS) { HEAD
  ACTIVE { __nv_bfloat16 r = atomicAdd((__nv_bfloat16*)(smem + off), __float2bfloat16(1.0f)); OUT(__bfloat16_as_ushort(r)); } }

typedef void (*KFn)(PARAMS);
struct KEntry { const char* name; KFn fn; };
#define K(n) { #n, n }
static KEntry kTable[] = {
  K(probe_atom_add_u32), K(probe_atom_inc_u32), K(probe_atom_dec_u32), K(probe_atom_min_s32), K(probe_atom_max_s32),
  K(probe_atom_min_u32), K(probe_atom_max_u32), K(probe_atom_and_b32), K(probe_atom_or_b32), K(probe_atom_xor_b32),
  K(probe_red_add1_u32), K(probe_red_addv_u32),
  K(probe_atom_add_f32), K(probe_atom_add_f64), K(probe_atom_max_u64), K(probe_atom_and_b64),
  K(probe_atom_add_f16x2), K(probe_atom_add_f16), K(probe_atom_cas_b16),
  K(probe_src_half_add), K(probe_src_half2_add), K(probe_src_bf16_add),
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
  for (int i = 0; i < kNK; ++i) CK(cudaFuncSetAttribute(kTable[i].fn, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
  unsigned *d_off, *d_mask, *d_out;
  CK(cudaMalloc(&d_off, offs.size() * 4)); CK(cudaMalloc(&d_mask, masks.size() * 4));
  CK(cudaMalloc(&d_out, (size_t)(n * 32 + 1) * 4));
  CK(cudaMemcpy(d_off, offs.data(), offs.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_mask, masks.data(), masks.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemset(d_out, 0xff, (size_t)(n * 32 + 1) * 4));
  kTable[kern[0]].fn<<<1, 32, kSmemBytes>>>(d_off, d_mask, d_out, 0);
  CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
  unsigned base = 0; CK(cudaMemcpy(&base, d_out, 4, cudaMemcpyDeviceToHost));
  printf("SHARED_BASE %u\n", base);
  printf("LAUNCH_ORDER_NOTE first launch is a base probe of pattern 0; probes follow: %d..%d\n", first, last);
  for (int i = first; i <= last; ++i) {
    kTable[kern[i]].fn<<<1, 32, kSmemBytes>>>(d_off, d_mask, d_out, i);
    CK(cudaGetLastError());
  }
  CK(cudaDeviceSynchronize());
  printf("DONE %d launches\n", last - first + 2);
  return 0;
}
