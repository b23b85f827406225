// Shared-memory tiles laid out as CuTe and Triton lay them out, read and written as their copies do.
// Written for bankism (docs/layouts.md): each kernel is one block of 128 threads, one launch.
//
// CuTe-style tiles (cute_*): a half tile of NROWS rows of ROW contiguous elements, element offset
// r * ROW + c, composed with CuTe's Swizzle<B,M,S> on element offsets (B = 0: no swizzle).
//   - filled by 16-byte cp.async as make_tiled_copy(SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, thr, (1,8))
//     places them: thread t -> row t / (ROW/8) + i * (128 / (ROW/8)), columns 8 * (t % (ROW/8)) ...+7;
//   - read by ldmatrix.x4 (or .x4.trans): one instruction per 16x16 block, lane l -> row 16*br + l % 16,
//     column 16*bc + 8*(l / 16); warp w takes blocks w, w+4, ... (every block read once).
//   A K-major A tile (M,K) = (64,64):(64,1) is ROW=64, NROWS=64 read by ldmatrix; an MN-major B tile
//   (N,K):(1,N) is ROW=N, NROWS=K read by ldmatrix.trans.
// Triton-style tiles (triton_*): a 64x64 half tile in #ttg.swizzled_shared<{vec, perPhase, maxPhase,
// order=[1,0]}>: element (r, c) at r * 64 + (c ^ ((vec * ((r / perPhase) % maxPhase)) % 64)), written
// from #blocked<{sizePerThread=[8,1], threadsPerWarp=[8,4], warpsPerCTA=[1,4], order=[0,1]}> (one
// 2-byte store per register: lane l, warp w, register i, repetition j -> row 8*(l%8)+i,
// column l/8 + 4*w + 16*j), then read as a dot operand by ldmatrix.x4 as above; triton_rows_* store the
// tile from row runs instead (see triton_rows).
#include <cuda_fp16.h>
#include <cstdio>
#include <cstring>

__device__ __forceinline__ unsigned smem_address(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

template <int B, int M, int S>
__device__ __forceinline__ int cute_swizzle(int offset) {
    if (B == 0) return offset;
    return offset ^ ((offset >> S) & (((1 << B) - 1) << M));
}

template <bool TRANS>
__device__ __forceinline__ unsigned ldmatrix_x4(unsigned address) {
    unsigned a, b, c, d;
    if (TRANS) {
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(address));
    } else {
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(address));
    }
    return a ^ b ^ c ^ d;
}

template <int ROW, int NROWS, int B, int M, int S, bool TRANS>
__device__ void cute_tile(const half* in, unsigned* out) {
    __shared__ __align__(1024) half tile[ROW * NROWS];
    const int t = threadIdx.x;
    constexpr int CHUNKS = ROW / 8;
    constexpr int ROWS_PER_PASS = 128 / CHUNKS;
    for (int i = 0; i < NROWS / ROWS_PER_PASS; ++i) {
        const int r = t / CHUNKS + i * ROWS_PER_PASS, c = (t % CHUNKS) * 8;
        const int o = cute_swizzle<B, M, S>(r * ROW + c);
        asm volatile("cp.async.ca.shared.global [%0], [%1], 16;"
                     :: "r"(smem_address(tile + o)), "l"(in + r * ROW + c));
    }
    asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;" ::: "memory");
    __syncthreads();
    const int warp = t / 32, lane = t % 32;
    constexpr int BR = NROWS / 16, BLOCKS = BR * (ROW / 16);
    unsigned acc = 0;
    for (int b = warp; b < BLOCKS; b += 4) {
        const int r = (b % BR) * 16 + lane % 16, c = (b / BR) * 16 + (lane / 16) * 8;
        acc ^= ldmatrix_x4<TRANS>(smem_address(tile + cute_swizzle<B, M, S>(r * ROW + c)));
    }
    out[t] = acc;
}

template <int VEC, int PER_PHASE, int MAX_PHASE>
__device__ __forceinline__ int triton_offset(int r, int c) {
    return r * 64 + (c ^ ((VEC * ((r / PER_PHASE) % MAX_PHASE)) % 64));
}

template <int VEC, int PER_PHASE, int MAX_PHASE>
__device__ void triton_tile(const half* in, unsigned* out) {
    __shared__ __align__(1024) half tile[64 * 64];
    const int t = threadIdx.x, warp = t / 32, lane = t % 32;
    for (int j = 0; j < 4; ++j) {
        for (int i = 0; i < 8; ++i) {
            const int r = 8 * (lane % 8) + i, c = lane / 8 + 4 * warp + 16 * j;
            tile[triton_offset<VEC, PER_PHASE, MAX_PHASE>(r, c)] = in[c * 64 + r];  // a column-major source
        }
    }
    __syncthreads();
    unsigned acc = 0;
    for (int b = warp; b < 16; b += 4) {
        const int r = (b % 4) * 16 + lane % 16, c = (b / 4) * 16 + (lane / 16) * 8;
        acc ^= ldmatrix_x4<false>(smem_address(tile + triton_offset<VEC, PER_PHASE, MAX_PHASE>(r, c)));
    }
    out[t] = acc;
}

// Row runs: #blocked<{sizePerThread=[1,8], threadsPerWarp=[4,8], warpsPerCTA=[4,1], order=[1,0]}>, each thread's
// 8 halves one 16-byte store: lane l, warp w, repetition j -> row l/8 + 4*w + 16*j, columns 8*(l%8) ... +7.
template <int VEC, int PER_PHASE, int MAX_PHASE>
__device__ void triton_rows(const half* in, unsigned* out) {
    __shared__ __align__(1024) half tile[64 * 64];
    const int t = threadIdx.x, warp = t / 32, lane = t % 32;
    for (int j = 0; j < 4; ++j) {
        const int r = lane / 8 + 4 * warp + 16 * j, c = 8 * (lane % 8);
        *reinterpret_cast<uint4*>(tile + triton_offset<VEC, PER_PHASE, MAX_PHASE>(r, c)) =
            *reinterpret_cast<const uint4*>(in + r * 64 + c);
    }
    __syncthreads();
    unsigned acc = 0;
    for (int b = warp; b < 16; b += 4) {
        const int r = (b % 4) * 16 + lane % 16, c = (b / 4) * 16 + (lane / 16) * 8;
        acc ^= ldmatrix_x4<false>(smem_address(tile + triton_offset<VEC, PER_PHASE, MAX_PHASE>(r, c)));
    }
    out[t] = acc;
}

#define CUTE(name, ROW, NROWS, B, M, S, TRANS) \
    extern "C" __global__ void name(const half* in, unsigned* out) { cute_tile<ROW, NROWS, B, M, S, TRANS>(in, out); }
#define TRITON(name, VEC, PER, MAXP) \
    extern "C" __global__ void name(const half* in, unsigned* out) { triton_tile<VEC, PER, MAXP>(in, out); }
#define TRITON_ROWS(name, VEC, PER, MAXP) \
    extern "C" __global__ void name(const half* in, unsigned* out) { triton_rows<VEC, PER, MAXP>(in, out); }

CUTE(cute_a64_plain, 64, 64, 0, 0, 0, false)
CUTE(cute_a64_sw333, 64, 64, 3, 3, 3, false)
CUTE(cute_b128_sw333_trans, 128, 32, 3, 3, 3, true)
CUTE(cute_b128_sw334_trans, 128, 32, 3, 3, 4, true)
CUTE(cute_b64_sw334_trans, 64, 32, 3, 3, 4, true)
CUTE(cute_b64_sw333_trans, 64, 32, 3, 3, 3, true)
TRITON(triton_v8_p1_m8, 8, 1, 8)
TRITON(triton_v8_p8_m8, 8, 8, 8)
TRITON(triton_v8_p2_m4, 8, 2, 4)
TRITON(triton_v1_p1_m1, 1, 1, 1)
TRITON(triton_v8_p4_m8, 8, 4, 8)
TRITON_ROWS(triton_rows_v1_p1_m1, 1, 1, 1)
TRITON_ROWS(triton_rows_v8_p1_m8, 8, 1, 8)

typedef void (*Kernel)(const half*, unsigned*);
struct Entry { const char* name; Kernel kernel; };
static const Entry KERNELS[] = {
    {"cute_a64_plain", cute_a64_plain}, {"cute_a64_sw333", cute_a64_sw333},
    {"cute_b128_sw333_trans", cute_b128_sw333_trans}, {"cute_b128_sw334_trans", cute_b128_sw334_trans},
    {"cute_b64_sw334_trans", cute_b64_sw334_trans}, {"cute_b64_sw333_trans", cute_b64_sw333_trans},
    {"triton_v8_p1_m8", triton_v8_p1_m8}, {"triton_v8_p8_m8", triton_v8_p8_m8},
    {"triton_v8_p2_m4", triton_v8_p2_m4}, {"triton_v1_p1_m1", triton_v1_p1_m1},
    {"triton_v8_p4_m8", triton_v8_p4_m8}, {"triton_rows_v1_p1_m1", triton_rows_v1_p1_m1},
    {"triton_rows_v8_p1_m8", triton_rows_v8_p1_m8},
};

int main(int argc, char** argv) {
    half* in;
    unsigned* out;
    cudaMalloc(&in, 128 * 64 * sizeof(half));
    cudaMemset(in, 0, 128 * 64 * sizeof(half));
    cudaMalloc(&out, 128 * sizeof(unsigned));
    int ran = 0;
    for (const Entry& entry : KERNELS) {
        if (argc > 1 && std::strcmp(argv[1], entry.name) != 0) continue;
        entry.kernel<<<1, 128>>>(in, out);
        ++ran;
    }
    cudaError_t error = cudaDeviceSynchronize();
    if (error != cudaSuccess || ran == 0) {
        std::fprintf(stderr, "layouts: %s\n", ran ? cudaGetErrorString(error) : "no such kernel");
        return 1;
    }
    std::printf("ran %d kernel(s)\n", ran);
    return 0;
}
