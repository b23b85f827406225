// bankism issue 22: what a bank conflict costs in time, measured on the H100.
//
// Twelve pairs of kernels. In each pair the `_conflict` kernel and the `_fixed` kernel run the same
// instructions on the same data; only the shared-memory layout differs (padding or an XOR swizzle), so the
// difference in their durations is what the bank conflicts cost. The pairs span the cases where that cost
// differs: shared-pipe-bound loops (4-, 8- and 16-byte loads, stores), loops where arithmetic hides part of
// the conflicts, DRAM-bound transposes (load side, store side), tensor-core GEMMs fed by ldmatrix and by
// WMMA, shared atomics, a cp.async pipeline and a latency-bound dependent chain.
//
//   pair        kernels                          conflict (in the _conflict kernel)
//   col32       col32_{conflict,fixed}           LDS 4 B, a warp reads a column of a 32x32 tile: 32-way
//   quad_fma    quad_fma_{...}                   LDS 4 B, 4 rows of 8 floats on the same banks: 4-way, 8 FFMA
//   lds64       lds64_{...}                      LDS.64, rows 32 B apart mod 128: 4-way per half-warp, 2 FFMA
//   lds128      lds128_{...}                     LDS.128, rows of 128 B: 8-way per quarter-warp, 16 FFMA
//   sts2        sts2_{...}                       STS 4 B, two half-warps on the same banks: 2-way, 3 FFMA
//   transpose   transpose_{...}                  8192^2 float transpose, 32x32 tile: LDS 32-way
//   transpose64 transpose64_{...}                8192^2 double transpose, 32x32 tile: STS.64 16-way
//   mma_ldsm    mma_ldsm_{...}                   4096^3 fp16 GEMM, mma.sync m16n8k16 fed by ldmatrix.x4: 8-way
//   wmma        wmma_{...}                       4096^3 fp16 GEMM, WMMA 16x16x16 from shared tiles of ld 64
//   hist        hist_{...}                       per-lane 32-bin histograms, ATOMS.ADD, bins on one bank
//   cpasync     cpasync_{...}                    2-stage cp.async.ca 16 B pipeline: LDGSTS 8-way
//   chase       chase_{...}                      dependent LDS chain, 2 warps per SM: 32-way, latency-bound
//
// Usage:
//   pairs list
//   pairs time [PAIR ...]            cudaEvent median of 30 launches after 5 warm-up launches, per kernel,
//                                    the two kernels of a pair alternating (CSV on stdout)
//   pairs run PAIR|all conflict|fixed|both [REPS]
//                                    one launch (or REPS) of the chosen kernels, outputs checked: for ncu
//                                    and the tracer
//   pairs clock                      the SM clock measured on the device (clock64 against %globaltimer)
// Every launch's output is checked: the two kernels of a pair must agree exactly, and the transposes and
// GEMMs are checked against the input (GEMMs: 64 sampled elements against a float64 host product).
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(call)                                                                                        \
    do {                                                                                                \
        cudaError_t e_ = (call);                                                                        \
        if (e_ != cudaSuccess) {                                                                        \
            fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #call, __FILE__, __LINE__,                  \
                    cudaGetErrorString(e_));                                                            \
            exit(1);                                                                                    \
        }                                                                                               \
    } while (0)

// ------------------------------------------------------------------------------------------------
// Data: a hash, never zeros
// ------------------------------------------------------------------------------------------------

__host__ __device__ inline uint32_t hash32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

__host__ __device__ inline float unit_float(uint32_t h) { return (float)(h >> 8) * (1.0f / 16777216.0f) - 0.5f; }

__global__ void init_float(float* p, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = unit_float(hash32((uint32_t)i * 2654435761u ^ seed));
}

__global__ void init_double(double* p, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = (double)unit_float(hash32((uint32_t)i * 2654435761u ^ seed)) + 1e-9 * (double)(i & 1023);
}

__global__ void init_half(__half* p, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = __float2half(unit_float(hash32((uint32_t)i * 2654435761u ^ seed)));
}

__global__ void init_u32(uint32_t* p, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = hash32((uint32_t)i * 2654435761u ^ seed);
}

__device__ __forceinline__ void keep_shared() { asm volatile("" ::: "memory"); }

constexpr int SMS = 132;  // H100 SXM: the grids below are multiples of it

// ------------------------------------------------------------------------------------------------
// col32: a warp reads a column of its own 32x32 float tile (row pitch 32: 32-way; 33: none)
// ------------------------------------------------------------------------------------------------

constexpr int COL32_ITERS = 1024;

template <bool FIX>
__device__ __forceinline__ void col32_body(float* out, int iters, int step)
{
    constexpr int P = FIX ? 33 : 32;
    __shared__ float s[8][32 * 33];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    float* t = s[warp];
    for (int r = 0; r < 32; ++r) t[r * P + lane] = (float)(r * 32 + lane + blockIdx.x);
    __syncwarp();
    float acc = 0.f;
#pragma unroll 8
    for (int i = 0; i < iters; ++i) {
        acc += t[lane * P + ((i * step + warp) & 31)];
        keep_shared();
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
__global__ void __launch_bounds__(256) col32_conflict(float* out, int iters, int step) { col32_body<false>(out, iters, step); }
__global__ void __launch_bounds__(256) col32_fixed(float* out, int iters, int step) { col32_body<true>(out, iters, step); }

// ------------------------------------------------------------------------------------------------
// quad_fma: quarter-warp q reads 8 consecutive floats of row q; rows 128 floats apart (4-way) or 136 (none);
// 8 independent FFMA per load. The column advances by 8 floats a step over the 128-float row: a period of
// 16 steps, longer than the unrolled loop body (with a period of 4 the compiler hoisted the loads).
// ------------------------------------------------------------------------------------------------

constexpr int QUAD_ITERS = 2048;

template <bool FIX>
__device__ __forceinline__ void quad_fma_body(float* out, int iters, int step)
{
    constexpr int P = FIX ? 136 : 128;
    __shared__ float s[8][4 * 136];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    float* t = s[warp];
    for (int i = lane; i < 4 * 128; i += 32)  // logical (row i / 128, column i % 128): the same values in both
        t[(i >> 7) * P + (i & 127)] = 1.0f + (float)((i * 7 + blockIdx.x) & 63) * (1.0f / 1024.0f);
    __syncwarp();
    const int row = lane >> 3, col = lane & 7;
    float a[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) a[k] = (float)k * 0.125f;
#pragma unroll 4
    for (int i = 0; i < iters; ++i) {
        const float v = t[row * P + (((i * step + warp) * 8 + col) & 127)];
#pragma unroll
        for (int k = 0; k < 8; ++k) a[k] = fmaf(a[k], v, 0.5f - 0.0625f * k);
        keep_shared();
    }
    float sum = 0.f;
#pragma unroll
    for (int k = 0; k < 8; ++k) sum += a[k];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
__global__ void __launch_bounds__(256) quad_fma_conflict(float* out, int iters, int step) { quad_fma_body<false>(out, iters, step); }
__global__ void __launch_bounds__(256) quad_fma_fixed(float* out, int iters, int step) { quad_fma_body<true>(out, iters, step); }

// ------------------------------------------------------------------------------------------------
// lds64: lane l reads a float2 of its own row of 20 float2 (pitch 160 B: the rows of a half-warp's lanes
// 32 bytes apart modulo 128, 4-way) or 21 float2 (168 B: none); 2 FFMA per load. 16 elements a row are
// read in turn (a period longer than the unrolled loop body).
// ------------------------------------------------------------------------------------------------

constexpr int LDS64_ITERS = 2048;

template <bool FIX>
__device__ __forceinline__ void lds64_body(float* out, int iters, int step)
{
    constexpr int P = FIX ? 21 : 20;
    __shared__ float2 s[8][32 * 21];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    float2* t = s[warp];
    for (int i = lane; i < 32 * 16; i += 32)  // logical (row i / 16, element i % 16)
        t[(i >> 4) * P + (i & 15)] =
            make_float2(0.5f + (float)(i & 15) * (1.0f / 64.0f), 0.25f + (float)((i + blockIdx.x) & 7) * 0.03125f);
    __syncwarp();
    float x = 0.f, y = 1.f;
#pragma unroll 4
    for (int i = 0; i < iters; ++i) {
        const float2 v = t[lane * P + ((i * step + warp) & 15)];
        x = fmaf(x, v.x, v.y);
        y = fmaf(y, v.y, v.x);
        keep_shared();
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x + y;
}
__global__ void __launch_bounds__(256) lds64_conflict(float* out, int iters, int step) { lds64_body<false>(out, iters, step); }
__global__ void __launch_bounds__(256) lds64_fixed(float* out, int iters, int step) { lds64_body<true>(out, iters, step); }

// ------------------------------------------------------------------------------------------------
// lds128: lane l reads a float4 of its own 128-byte row (8-way per quarter-warp), or the same element
// through the XOR swizzle chunk ^ (l & 7) (none); 16 FFMA per load
// ------------------------------------------------------------------------------------------------

constexpr int LDS128_ITERS = 1024;

template <bool FIX>
__device__ __forceinline__ int lds128_slot(int row, int chunk)
{
    return row * 8 + (FIX ? (chunk ^ (row & 7)) : chunk);
}

template <bool FIX>
__device__ __forceinline__ void lds128_body(float* out, int iters, int step)
{
    __shared__ float4 s[8][32 * 8];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    float4* t = s[warp];
    for (int i = lane; i < 256; i += 32) {  // slot i holds logical (row, chunk): the same values in both layouts
        const int row = i >> 3, chunk = FIX ? ((i & 7) ^ (row & 7)) : (i & 7);
        const float base = 0.75f + (float)((row * 8 + chunk + blockIdx.x) & 31) * (1.0f / 256.0f);
        t[i] = make_float4(base, base * 0.5f, 1.0f - base * 0.25f, base * 0.125f);
    }
    __syncwarp();
    float a[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) a[k] = (float)k;
#pragma unroll 2
    for (int i = 0; i < iters; ++i) {
        const float4 v = t[lds128_slot<FIX>(lane, (i * step + warp) & 7)];
#pragma unroll
        for (int k = 0; k < 8; k += 2) {
            a[k] = fmaf(a[k], v.x, v.y);
            a[k + 1] = fmaf(a[k + 1], v.z, v.w);
            a[k] = fmaf(a[k], v.w, v.z);
            a[k + 1] = fmaf(a[k + 1], v.y, v.x);
        }
        keep_shared();
    }
    float sum = 0.f;
#pragma unroll
    for (int k = 0; k < 8; ++k) sum += a[k];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
__global__ void __launch_bounds__(256) lds128_conflict(float* out, int iters, int step) { lds128_body<false>(out, iters, step); }
__global__ void __launch_bounds__(256) lds128_fixed(float* out, int iters, int step) { lds128_body<true>(out, iters, step); }

// ------------------------------------------------------------------------------------------------
// sts2: half-warp h stores 16 consecutive floats into row h; rows 32 floats apart (2-way) or 48 (none)
// ------------------------------------------------------------------------------------------------

constexpr int STS2_ITERS = 2048;

template <bool FIX>
__device__ __forceinline__ void sts2_body(float* out, int iters, int step)
{
    constexpr int P = FIX ? 48 : 32;
    __shared__ float s[8][2 * 48];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    float* t = s[warp];
    const int row = lane >> 4, col = lane & 15;
    float v = (float)(lane + blockIdx.x) * (1.0f / 64.0f);
#pragma unroll 4
    for (int i = 0; i < iters; ++i) {
        t[row * P + (((i * step + warp) * 16 + col) & 31)] = v;
        v = fmaf(v, 0.999f, 0.25f);
        v = fmaf(v, 1.001f, -0.125f);
        v = fmaf(v, 0.5f, 0.0625f);
        keep_shared();
    }
    __syncwarp();
    out[blockIdx.x * blockDim.x + threadIdx.x] = t[row * P + col] + t[row * P + 16 + col] + v;
}
__global__ void __launch_bounds__(256) sts2_conflict(float* out, int iters, int step) { sts2_body<false>(out, iters, step); }
__global__ void __launch_bounds__(256) sts2_fixed(float* out, int iters, int step) { sts2_body<true>(out, iters, step); }

// ------------------------------------------------------------------------------------------------
// transpose: 32x32 float tiles, block 32x8; the warp reads a column of tile[32][32] (32-way) or [32][33]
// ------------------------------------------------------------------------------------------------

constexpr int TR_N = 8192;

template <bool FIX>
__device__ __forceinline__ void transpose_body(float* __restrict__ out, const float* __restrict__ in, int n)
{
    __shared__ float tile[32][FIX ? 33 : 32];
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
#pragma unroll
    for (int j = 0; j < 32; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
#pragma unroll
    for (int j = 0; j < 32; j += 8) out[(size_t)(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}
__global__ void transpose_conflict(float* __restrict__ out, const float* __restrict__ in, int n)
{
    transpose_body<false>(out, in, n);
}
__global__ void transpose_fixed(float* __restrict__ out, const float* __restrict__ in, int n)
{
    transpose_body<true>(out, in, n);
}

// ------------------------------------------------------------------------------------------------
// transpose64: 32x32 double tiles, block 32x8; the warp stores a column of tile[32][32] (STS.64, 16-way per
// half-warp) or [32][33], then reads rows
// ------------------------------------------------------------------------------------------------

template <bool FIX>
__device__ __forceinline__ void transpose64_body(double* __restrict__ out, const double* __restrict__ in, int n)
{
    __shared__ double tile[32][FIX ? 33 : 32];
    const int x = blockIdx.x * 32 + threadIdx.x;
    const int y = blockIdx.y * 32 + threadIdx.y;
#pragma unroll
    for (int j = 0; j < 32; j += 8) tile[threadIdx.x][threadIdx.y + j] = in[(size_t)(y + j) * n + x];
    __syncthreads();
    // tile[a][b] = in[by*32 + b][bx*32 + a]; out[c][r] = in[r][c]
    const int ox = blockIdx.y * 32 + threadIdx.x;
    const int oy = blockIdx.x * 32 + threadIdx.y;
#pragma unroll
    for (int j = 0; j < 32; j += 8) out[(size_t)(oy + j) * n + ox] = tile[threadIdx.y + j][threadIdx.x];
}
__global__ void transpose64_conflict(double* __restrict__ out, const double* __restrict__ in, int n)
{
    transpose64_body<false>(out, in, n);
}
__global__ void transpose64_fixed(double* __restrict__ out, const double* __restrict__ in, int n)
{
    transpose64_body<true>(out, in, n);
}

// ------------------------------------------------------------------------------------------------
// GEMMs: C (M x N, float) = A (M x K, half, row-major) * B^T (B: N x K, half, row-major); block tile 128 x
// 128 x 64, 8 warps of 64 x 32; tiles loaded with 16-byte loads and stores (conflict-free in both layouts)
// ------------------------------------------------------------------------------------------------

constexpr int GM = 4096, GN = 4096, GK = 4096;
constexpr int BM = 128, BN = 128, BK = 64;

__device__ __forceinline__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

__device__ __forceinline__ void mma_16816(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1)
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                 "{%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// mma_ldsm: rows of 64 halves (128 bytes, 8 chunks of 16 bytes) stored as they are (an 8x8 matrix's 8 rows on
// the same banks: 8-way) or with chunk ^ (row & 7) (none)
template <bool FIX>
__device__ __forceinline__ int ldsm_offset(int row, int chunk)
{
    return row * BK + (FIX ? (chunk ^ (row & 7)) : chunk) * 8;
}

template <bool FIX>
__device__ __forceinline__ void mma_ldsm_body(float* __restrict__ C, const __half* __restrict__ A,
                                              const __half* __restrict__ B, int M, int N, int K)
{
    __shared__ __align__(128) __half As[BM * BK];
    __shared__ __align__(128) __half Bs[BN * BK];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm = warp >> 2, wn = warp & 3;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    float acc[4][4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
#pragma unroll
            for (int k = 0; k < 4; ++k) acc[i][j][k] = 0.f;
    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            const int id = tid + c * 256, row = id >> 3, chunk = id & 7;
            const uint4 va = *reinterpret_cast<const uint4*>(A + (size_t)(bm + row) * K + k0 + chunk * 8);
            const uint4 vb = *reinterpret_cast<const uint4*>(B + (size_t)(bn + row) * K + k0 + chunk * 8);
            *reinterpret_cast<uint4*>(As + ldsm_offset<FIX>(row, chunk)) = va;
            *reinterpret_cast<uint4*>(Bs + ldsm_offset<FIX>(row, chunk)) = vb;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK / 16; ++kk) {
            uint32_t af[4][4], bf[4][2];
#pragma unroll
            for (int mi = 0; mi < 4; ++mi) {
                const int row = wm * 64 + mi * 16 + (lane & 15), chunk = kk * 2 + (lane >> 4);
                ldmatrix_x4(af[mi], smem_u32(As + ldsm_offset<FIX>(row, chunk)));
            }
#pragma unroll
            for (int nj = 0; nj < 2; ++nj) {
                const int row = wn * 32 + nj * 16 + (lane & 7) + ((lane >> 4) << 3);
                const int chunk = kk * 2 + ((lane >> 3) & 1);
                uint32_t r[4];
                ldmatrix_x4(r, smem_u32(Bs + ldsm_offset<FIX>(row, chunk)));
                bf[nj * 2][0] = r[0];
                bf[nj * 2][1] = r[1];
                bf[nj * 2 + 1][0] = r[2];
                bf[nj * 2 + 1][1] = r[3];
            }
#pragma unroll
            for (int mi = 0; mi < 4; ++mi)
#pragma unroll
                for (int ni = 0; ni < 4; ++ni) mma_16816(acc[mi][ni], af[mi], bf[ni][0], bf[ni][1]);
        }
        __syncthreads();
    }
    const int g = lane >> 2, q = lane & 3;
#pragma unroll
    for (int mi = 0; mi < 4; ++mi)
#pragma unroll
        for (int ni = 0; ni < 4; ++ni) {
            const int row = bm + wm * 64 + mi * 16 + g, col = bn + wn * 32 + ni * 8 + q * 2;
            *reinterpret_cast<float2*>(C + (size_t)row * N + col) = make_float2(acc[mi][ni][0], acc[mi][ni][1]);
            *reinterpret_cast<float2*>(C + (size_t)(row + 8) * N + col) =
                make_float2(acc[mi][ni][2], acc[mi][ni][3]);
        }
}
__global__ void __launch_bounds__(256) mma_ldsm_conflict(float* C, const __half* A, const __half* B, int M, int N,
                                                         int K)
{
    mma_ldsm_body<false>(C, A, B, M, N, K);
}
__global__ void __launch_bounds__(256) mma_ldsm_fixed(float* C, const __half* A, const __half* B, int M, int N,
                                                      int K)
{
    mma_ldsm_body<true>(C, A, B, M, N, K);
}

// wmma: the same tiles with leading dimension 64 halves (conflicting) or 72 (padded)
template <bool FIX>
__device__ __forceinline__ void wmma_body(float* __restrict__ C, const __half* __restrict__ A,
                                          const __half* __restrict__ B, int M, int N, int K)
{
    using namespace nvcuda;
    constexpr int LD = FIX ? BK + 8 : BK;
    __shared__ __align__(128) __half As[BM * (BK + 8)];
    __shared__ __align__(128) __half Bs[BN * (BK + 8)];
    const int tid = threadIdx.x, warp = tid >> 5;
    const int wm = warp >> 2, wn = warp & 3;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4][2];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.f);
    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            const int id = tid + c * 256, row = id >> 3, chunk = id & 7;
            const uint4 va = *reinterpret_cast<const uint4*>(A + (size_t)(bm + row) * K + k0 + chunk * 8);
            const uint4 vb = *reinterpret_cast<const uint4*>(B + (size_t)(bn + row) * K + k0 + chunk * 8);
            *reinterpret_cast<uint4*>(As + row * LD + chunk * 8) = va;
            *reinterpret_cast<uint4*>(Bs + row * LD + chunk * 8) = vb;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> af[4];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> bf[2];
#pragma unroll
            for (int mi = 0; mi < 4; ++mi) wmma::load_matrix_sync(af[mi], As + (wm * 64 + mi * 16) * LD + kk, LD);
#pragma unroll
            for (int ni = 0; ni < 2; ++ni) wmma::load_matrix_sync(bf[ni], Bs + (wn * 32 + ni * 16) * LD + kk, LD);
#pragma unroll
            for (int mi = 0; mi < 4; ++mi)
#pragma unroll
                for (int ni = 0; ni < 2; ++ni) wmma::mma_sync(acc[mi][ni], af[mi], bf[ni], acc[mi][ni]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int mi = 0; mi < 4; ++mi)
#pragma unroll
        for (int ni = 0; ni < 2; ++ni)
            wmma::store_matrix_sync(C + (size_t)(bm + wm * 64 + mi * 16) * N + bn + wn * 32 + ni * 16, acc[mi][ni], N,
                                    wmma::mem_row_major);
}
__global__ void __launch_bounds__(256) wmma_conflict(float* C, const __half* A, const __half* B, int M, int N, int K)
{
    wmma_body<false>(C, A, B, M, N, K);
}
__global__ void __launch_bounds__(256) wmma_fixed(float* C, const __half* A, const __half* B, int M, int N, int K)
{
    wmma_body<true>(C, A, B, M, N, K);
}

// ------------------------------------------------------------------------------------------------
// hist: every lane keeps its own 32 bins; bin b of lane l at l*32 + b (bank = bin: lanes with equal bins
// conflict) or b*32 + l (bank = lane: none). Four 5-bit bins per input word, weight 1 or 2 (ATOMS.ADD).
// ------------------------------------------------------------------------------------------------

constexpr size_t HIST_WORDS = size_t(1) << 26;

template <bool FIX>
__device__ __forceinline__ int hist_slot(int lane, int bin)
{
    return FIX ? bin * 32 + lane : lane * 32 + bin;
}

template <bool FIX>
__device__ __forceinline__ void hist_body(const uint32_t* __restrict__ in, size_t n, unsigned long long* hist)
{
    __shared__ uint32_t h[8][32 * 32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    uint32_t* t = h[warp];
    for (int i = lane; i < 1024; i += 32) t[i] = 0;
    __syncwarp();
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const uint32_t w = in[i];
#pragma unroll
        for (int b = 0; b < 4; ++b) atomicAdd(&t[hist_slot<FIX>(lane, (w >> (8 * b)) & 31)], 1u + ((w >> (8 * b + 5)) & 1));
    }
    __syncwarp();
    unsigned long long total = 0;  // bin `lane`, summed over the 32 lanes, in an order without conflicts
    for (int k = 0; k < 32; ++k) total += t[hist_slot<FIX>((lane + k) & 31, lane)];
    atomicAdd(&hist[lane], total);
}
__global__ void __launch_bounds__(256) hist_conflict(const uint32_t* in, size_t n, unsigned long long* hist)
{
    hist_body<false>(in, n, hist);
}
__global__ void __launch_bounds__(256) hist_fixed(const uint32_t* in, size_t n, unsigned long long* hist)
{
    hist_body<true>(in, n, hist);
}

// ------------------------------------------------------------------------------------------------
// cpasync: a 2-stage cp.async.ca pipeline over 8 KiB tiles (64 rows of 8 chunks of 16 bytes). The tile is
// kept chunk-major, s[chunk][row]: the 8 lanes of a quarter-warp copy the 8 chunks of one row, 1024 bytes
// apart (8-way), or 1040 with one chunk of padding per column (none). The consumer reads rows (conflict-free
// in both).
// ------------------------------------------------------------------------------------------------

constexpr int CP_TILES = 32768;  // 256 MiB
constexpr int CP_BLOCKS = 1024;

__device__ __forceinline__ void cp_async16(uint32_t dst, const void* src)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;\n" ::); }
__device__ __forceinline__ void cp_wait1() { asm volatile("cp.async.wait_group 1;\n" ::); }
__device__ __forceinline__ void cp_wait0() { asm volatile("cp.async.wait_group 0;\n" ::); }

template <bool FIX>
__device__ __forceinline__ void cpasync_body(const float4* __restrict__ in, float* __restrict__ out, int tiles)
{
    constexpr int PITCH = FIX ? 65 : 64;  // float4 per chunk column
    __shared__ __align__(128) float4 s[2][8 * 65];
    const int tid = threadIdx.x;
    const size_t first = (size_t)blockIdx.x * tiles;
    auto issue = [&](int stage, size_t tile) {
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            const int g = tid + j * 256, row = g >> 3, chunk = g & 7;
            cp_async16(smem_u32(&s[stage][chunk * PITCH + row]), in + tile * 512 + g);
        }
        cp_commit();
    };
    float acc = 0.f;
    issue(0, first);
    for (int i = 0; i < tiles; ++i) {
        if (i + 1 < tiles) {
            issue((i + 1) & 1, first + i + 1);
            cp_wait1();
        } else {
            cp_wait0();
        }
        __syncthreads();
        const int row = tid & 63, part = tid >> 6;
#pragma unroll
        for (int c = 0; c < 2; ++c) {
            const float4 v = s[i & 1][(part * 2 + c) * PITCH + row];
            acc = fmaf(v.x, v.y, acc);
            acc = fmaf(v.z, v.w, acc);
        }
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + tid] = acc;
}
__global__ void __launch_bounds__(256) cpasync_conflict(const float4* in, float* out, int tiles)
{
    cpasync_body<false>(in, out, tiles);
}
__global__ void __launch_bounds__(256) cpasync_fixed(const float4* in, float* out, int tiles)
{
    cpasync_body<true>(in, out, tiles);
}

// ------------------------------------------------------------------------------------------------
// chase: each lane follows a chain through its own row; all lanes are at the same column at each step, so
// rows 32 floats apart put the 32 loads on one bank (32-way), 33 apart on 32 banks. One block of 2 warps
// per SM: the chain's latency, not the shared pipe's throughput, sets the time.
// ------------------------------------------------------------------------------------------------

constexpr int CHASE_ITERS = 16384;

template <bool FIX>
__device__ __forceinline__ void chase_body(int* out, int iters)
{
    constexpr int P = FIX ? 33 : 32;
    __shared__ int s[2][32 * 33];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int* t = s[warp];
    for (int r = 0; r < 32; ++r) t[r * P + lane] = (lane * 5 + 3 + blockIdx.x * 0) & 31;  // next column
    __syncwarp();
    int c = warp;
    for (int i = 0; i < iters; ++i) c = t[lane * P + c];
    out[blockIdx.x * blockDim.x + threadIdx.x] = c;
}
__global__ void __launch_bounds__(64) chase_conflict(int* out, int iters) { chase_body<false>(out, iters); }
__global__ void __launch_bounds__(64) chase_fixed(int* out, int iters) { chase_body<true>(out, iters); }

// ------------------------------------------------------------------------------------------------
// Clock: the SM clock, clock64 ticks against the global timer's nanoseconds
// ------------------------------------------------------------------------------------------------

__global__ void clock_probe(unsigned long long* result, long long spin_ns)
{
    unsigned long long t0, t1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    const long long c0 = clock64();
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    } while ((long long)(t1 - t0) < spin_ns);
    const long long c1 = clock64();
    result[0] = (unsigned long long)(c1 - c0);
    result[1] = t1 - t0;
}

// ------------------------------------------------------------------------------------------------
// Host side
// ------------------------------------------------------------------------------------------------

static void fill(float* p, size_t n, uint32_t seed) { init_float<<<1024, 256>>>(p, n, seed); CK(cudaGetLastError()); }
static void fill(double* p, size_t n, uint32_t seed) { init_double<<<1024, 256>>>(p, n, seed); CK(cudaGetLastError()); }
static void fill(__half* p, size_t n, uint32_t seed) { init_half<<<1024, 256>>>(p, n, seed); CK(cudaGetLastError()); }
static void fill(uint32_t* p, size_t n, uint32_t seed) { init_u32<<<1024, 256>>>(p, n, seed); CK(cudaGetLastError()); }

template <typename T>
static std::vector<T> to_host(const T* p, size_t n)
{
    std::vector<T> h(n);
    CK(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

struct Pair {
    virtual ~Pair() {}
    virtual const char* name() const = 0;
    virtual void setup() = 0;
    virtual void launch(bool fix) = 0;
    virtual std::vector<unsigned char> output() = 0;  // bytes compared between the two kernels
    virtual std::string check_against_input() { return ""; }  // "" or what is wrong
    virtual void poison() = 0;
};

template <typename T>
static std::vector<unsigned char> bytes_of(const T* p, size_t n)
{
    std::vector<unsigned char> b(n * sizeof(T));
    CK(cudaMemcpy(b.data(), p, b.size(), cudaMemcpyDeviceToHost));
    return b;
}

// Loop kernels: the access pattern advances by a runtime `step` (1), so that the compiler cannot hoist
// loads whose addresses repeat with the unrolled loop; grid 132 x 6 x 2 blocks of 256 threads, output one float per thread.
struct LoopPair : Pair {
    const char* label;
    void (*k_conflict)(float*, int, int);
    void (*k_fixed)(float*, int, int);
    int iters, blocks = SMS * 12;
    float* out = nullptr;
    LoopPair(const char* l, void (*c)(float*, int, int), void (*f)(float*, int, int), int it)
        : label(l), k_conflict(c), k_fixed(f), iters(it) {}
    const char* name() const override { return label; }
    void setup() override { CK(cudaMalloc(&out, sizeof(float) * blocks * 256)); }
    void poison() override { CK(cudaMemset(out, 0xff, sizeof(float) * blocks * 256)); }
    void launch(bool fix) override
    {
        (fix ? k_fixed : k_conflict)<<<blocks, 256>>>(out, iters, 1);  // step 1, unknown to the compiler
    }
    std::vector<unsigned char> output() override { return bytes_of(out, (size_t)blocks * 256); }
};

struct TransposePair : Pair {
    float *in = nullptr, *out = nullptr;
    const char* name() const override { return "transpose"; }
    void setup() override
    {
        const size_t n = (size_t)TR_N * TR_N;
        CK(cudaMalloc(&in, n * sizeof(float)));
        CK(cudaMalloc(&out, n * sizeof(float)));
        fill(in, n, 11);
    }
    void poison() override { CK(cudaMemset(out, 0xff, sizeof(float) * TR_N * TR_N)); }
    void launch(bool fix) override
    {
        dim3 grid(TR_N / 32, TR_N / 32), block(32, 8);
        if (fix) transpose_fixed<<<grid, block>>>(out, in, TR_N);
        else transpose_conflict<<<grid, block>>>(out, in, TR_N);
    }
    std::vector<unsigned char> output() override { return bytes_of(out, (size_t)TR_N * TR_N); }
    std::string check_against_input() override
    {
        auto a = to_host(in, (size_t)TR_N * TR_N), b = to_host(out, (size_t)TR_N * TR_N);
        for (size_t i = 0; i < (size_t)TR_N; i += 7)
            for (size_t j = 0; j < (size_t)TR_N; j += 13)
                if (b[j * TR_N + i] != a[i * TR_N + j]) return "out != in^T";
        return "";
    }
};

struct Transpose64Pair : Pair {
    double *in = nullptr, *out = nullptr;
    const char* name() const override { return "transpose64"; }
    void setup() override
    {
        const size_t n = (size_t)TR_N * TR_N;
        CK(cudaMalloc(&in, n * sizeof(double)));
        CK(cudaMalloc(&out, n * sizeof(double)));
        fill(in, n, 13);
    }
    void poison() override { CK(cudaMemset(out, 0xff, sizeof(double) * TR_N * TR_N)); }
    void launch(bool fix) override
    {
        dim3 grid(TR_N / 32, TR_N / 32), block(32, 8);
        if (fix) transpose64_fixed<<<grid, block>>>(out, in, TR_N);
        else transpose64_conflict<<<grid, block>>>(out, in, TR_N);
    }
    std::vector<unsigned char> output() override { return bytes_of(out, (size_t)TR_N * TR_N); }
    std::string check_against_input() override
    {
        auto a = to_host(in, (size_t)TR_N * TR_N), b = to_host(out, (size_t)TR_N * TR_N);
        for (size_t i = 0; i < (size_t)TR_N; i += 7)
            for (size_t j = 0; j < (size_t)TR_N; j += 13)
                if (b[j * TR_N + i] != a[i * TR_N + j]) return "out != in^T";
        return "";
    }
};

struct GemmPair : Pair {
    const char* label;
    bool use_wmma;
    __half *A = nullptr, *B = nullptr;
    float* C = nullptr;
    GemmPair(const char* l, bool w) : label(l), use_wmma(w) {}
    const char* name() const override { return label; }
    void setup() override
    {
        CK(cudaMalloc(&A, sizeof(__half) * GM * GK));
        CK(cudaMalloc(&B, sizeof(__half) * GN * GK));
        CK(cudaMalloc(&C, sizeof(float) * GM * GN));
        fill(A, (size_t)GM * GK, 21);
        fill(B, (size_t)GN * GK, 22);
    }
    void poison() override { CK(cudaMemset(C, 0xff, sizeof(float) * GM * GN)); }
    void launch(bool fix) override
    {
        dim3 grid(GN / BN, GM / BM);
        if (use_wmma) {
            if (fix) wmma_fixed<<<grid, 256>>>(C, A, B, GM, GN, GK);
            else wmma_conflict<<<grid, 256>>>(C, A, B, GM, GN, GK);
        } else {
            if (fix) mma_ldsm_fixed<<<grid, 256>>>(C, A, B, GM, GN, GK);
            else mma_ldsm_conflict<<<grid, 256>>>(C, A, B, GM, GN, GK);
        }
    }
    std::vector<unsigned char> output() override { return bytes_of(C, (size_t)GM * GN); }
    std::string check_against_input() override
    {
        auto a = to_host(A, (size_t)GM * GK), b = to_host(B, (size_t)GN * GK);
        auto c = to_host(C, (size_t)GM * GN);
        double worst = 0;
        for (int s = 0; s < 64; ++s) {
            const int i = (int)(hash32(s * 2 + 1) % GM), j = (int)(hash32(s * 2 + 2) % GN);
            double ref = 0, mag = 0;
            for (int k = 0; k < GK; ++k) {
                const double p = (double)__half2float(a[(size_t)i * GK + k]) * (double)__half2float(b[(size_t)j * GK + k]);
                ref += p;
                mag += fabs(p);
            }
            worst = std::max(worst, fabs(c[(size_t)i * GN + j] - ref) / mag);
        }
        char text[96];
        if (!(worst < 1e-4)) {
            snprintf(text, sizeof text, "sampled relative error %.3g", worst);
            return text;
        }
        return "";
    }
};

struct HistPair : Pair {
    uint32_t* in = nullptr;
    unsigned long long* hist = nullptr;
    const char* name() const override { return "hist"; }
    void setup() override
    {
        CK(cudaMalloc(&in, sizeof(uint32_t) * HIST_WORDS));
        CK(cudaMalloc(&hist, sizeof(unsigned long long) * 32));
        fill(in, HIST_WORDS, 31);
    }
    void poison() override { CK(cudaMemset(hist, 0, sizeof(unsigned long long) * 32)); }
    void launch(bool fix) override
    {
        if (fix) hist_fixed<<<SMS * 6, 256>>>(in, HIST_WORDS, hist);
        else hist_conflict<<<SMS * 6, 256>>>(in, HIST_WORDS, hist);
    }
    std::vector<unsigned char> output() override { return bytes_of(hist, 32); }
    std::string check_against_input() override
    {
        auto a = to_host(in, HIST_WORDS);
        std::vector<unsigned long long> ref(32, 0);
        for (size_t i = 0; i < HIST_WORDS; ++i)
            for (int b = 0; b < 4; ++b) ref[(a[i] >> (8 * b)) & 31] += 1 + ((a[i] >> (8 * b + 5)) & 1);
        auto h = to_host(hist, 32);
        for (int b = 0; b < 32; ++b)
            if (h[b] != ref[b]) return "histogram differs from the host's";
        return "";
    }
};

struct CpAsyncPair : Pair {
    float4* in = nullptr;
    float* out = nullptr;
    const char* name() const override { return "cpasync"; }
    void setup() override
    {
        CK(cudaMalloc(&in, sizeof(float4) * 512 * (size_t)CP_TILES));
        CK(cudaMalloc(&out, sizeof(float) * CP_BLOCKS * 256));
        fill(reinterpret_cast<float*>(in), (size_t)CP_TILES * 512 * 4, 41);
    }
    void poison() override { CK(cudaMemset(out, 0xff, sizeof(float) * CP_BLOCKS * 256)); }
    void launch(bool fix) override
    {
        if (fix) cpasync_fixed<<<CP_BLOCKS, 256>>>(in, out, CP_TILES / CP_BLOCKS);
        else cpasync_conflict<<<CP_BLOCKS, 256>>>(in, out, CP_TILES / CP_BLOCKS);
    }
    std::vector<unsigned char> output() override { return bytes_of(out, (size_t)CP_BLOCKS * 256); }
};

struct ChasePair : Pair {
    int* out = nullptr;
    const char* name() const override { return "chase"; }
    void setup() override { CK(cudaMalloc(&out, sizeof(int) * SMS * 64)); }
    void poison() override { CK(cudaMemset(out, 0xff, sizeof(int) * SMS * 64)); }
    void launch(bool fix) override
    {
        if (fix) chase_fixed<<<SMS, 64>>>(out, CHASE_ITERS);
        else chase_conflict<<<SMS, 64>>>(out, CHASE_ITERS);
    }
    std::vector<unsigned char> output() override { return bytes_of(out, (size_t)SMS * 64); }
};

static std::vector<Pair*> all_pairs()
{
    return {
        new LoopPair("col32", col32_conflict, col32_fixed, COL32_ITERS),
        new LoopPair("quad_fma", quad_fma_conflict, quad_fma_fixed, QUAD_ITERS),
        new LoopPair("lds64", lds64_conflict, lds64_fixed, LDS64_ITERS),
        new LoopPair("lds128", lds128_conflict, lds128_fixed, LDS128_ITERS),
        new LoopPair("sts2", sts2_conflict, sts2_fixed, STS2_ITERS),
        new TransposePair(),
        new Transpose64Pair(),
        new GemmPair("mma_ldsm", false),
        new GemmPair("wmma", true),
        new HistPair(),
        new CpAsyncPair(),
        new ChasePair(),
    };
}

static bool run_checked(Pair& p, bool fix, std::vector<unsigned char>* keep)
{
    p.poison();
    p.launch(fix);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    const std::string wrong = p.check_against_input();
    if (!wrong.empty()) {
        fprintf(stderr, "%s_%s: %s\n", p.name(), fix ? "fixed" : "conflict", wrong.c_str());
        return false;
    }
    if (keep) *keep = p.output();
    return true;
}

// Both kernels once, outputs checked and compared; false when anything is wrong.
static bool check_pair(Pair& p)
{
    std::vector<unsigned char> a, b;
    if (!run_checked(p, false, &a) || !run_checked(p, true, &b)) return false;
    if (a != b) {
        fprintf(stderr, "%s: the two kernels' outputs differ\n", p.name());
        return false;
    }
    return true;
}

static float median(std::vector<float> v)
{
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5f * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

static double clock_mhz()
{
    unsigned long long* d;
    CK(cudaMalloc(&d, 16));
    clock_probe<<<1, 1>>>(d, 20000000);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    auto h = to_host(d, 2);
    CK(cudaFree(d));
    return (double)h[0] / (double)h[1] * 1e3;
}

static bool wanted(const Pair& p, int argc, char** argv, int from)
{
    if (argc <= from) return true;
    for (int i = from; i < argc; ++i)
        if (!strcmp(argv[i], p.name()) || !strcmp(argv[i], "all")) return true;
    return false;
}

int main(int argc, char** argv)
{
    const std::string mode = argc > 1 ? argv[1] : "";
    auto pairs = all_pairs();
    if (mode == "list") {
        for (auto* p : pairs) printf("%s\n", p->name());
        return 0;
    }
    if (mode == "clock") {
        printf("sm_clock_mhz,%.1f\n", clock_mhz());
        return 0;
    }
    if (mode == "time") {
        constexpr int WARM = 5, REPS = 30;
        cudaEvent_t e0, e1;
        CK(cudaEventCreate(&e0));
        CK(cudaEventCreate(&e1));
        printf("clock_before_mhz,%.1f\n", clock_mhz());
        printf("pair,variant,kernel,median_us,min_us,max_us,reps\n");
        int failures = 0;
        for (auto* p : pairs) {
            if (!wanted(*p, argc, argv, 2)) continue;
            p->setup();
            if (!check_pair(*p)) {
                ++failures;
                continue;
            }
            for (int w = 0; w < WARM; ++w) {
                p->launch(false);
                p->launch(true);
            }
            CK(cudaDeviceSynchronize());
            std::vector<float> ms[2];
            for (int r = 0; r < REPS; ++r)
                for (int fix = 0; fix < 2; ++fix) {
                    CK(cudaEventRecord(e0));
                    p->launch(fix);
                    CK(cudaEventRecord(e1));
                    CK(cudaEventSynchronize(e1));
                    float t;
                    CK(cudaEventElapsedTime(&t, e0, e1));
                    ms[fix].push_back(t);
                }
            CK(cudaGetLastError());
            for (int fix = 0; fix < 2; ++fix) {
                const auto& v = ms[fix];
                printf("%s,%s,%s_%s,%.3f,%.3f,%.3f,%d\n", p->name(), fix ? "fixed" : "conflict", p->name(),
                       fix ? "fixed" : "conflict", 1e3 * median(v), 1e3 * *std::min_element(v.begin(), v.end()),
                       1e3 * *std::max_element(v.begin(), v.end()), REPS);
            }
            fflush(stdout);
        }
        printf("clock_after_mhz,%.1f\n", clock_mhz());
        return failures ? 1 : 0;
    }
    if (mode == "run" && argc >= 4) {
        const std::string which = argv[3];
        const int reps = argc > 4 ? atoi(argv[4]) : 1;
        if (which != "conflict" && which != "fixed" && which != "both") {
            fprintf(stderr, "run: expected conflict, fixed or both, got %s\n", which.c_str());
            return 2;
        }
        bool any = false;
        int failures = 0;
        for (auto* p : pairs) {
            if (strcmp(argv[2], "all") && strcmp(argv[2], p->name())) continue;
            any = true;
            p->setup();
            for (int r = 0; r < reps; ++r) {
                if (which != "fixed" && !run_checked(*p, false, nullptr)) ++failures;
                if (which != "conflict" && !run_checked(*p, true, nullptr)) ++failures;
            }
            printf("%s %s x%d: %s\n", p->name(), which.c_str(), reps, failures ? "FAIL" : "OK");
        }
        if (!any) {
            fprintf(stderr, "run: no pair named %s\n", argv[2]);
            return 2;
        }
        return failures ? 1 : 0;
    }
    fprintf(stderr, "usage: %s list | time [PAIR ...] | run PAIR|all conflict|fixed|both [REPS] | clock\n", argv[0]);
    return 2;
}
