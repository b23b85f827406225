// bankism corpus: ldmatrix / stmatrix on fp16 tiles with 64-element (128-byte) rows, swizzled or not.
//
// Each block of 4 warps copies one 64x64 tile of 16-bit values from global memory into shared memory with
// 16-byte stores. Unswizzled, the 16-byte chunk c of row r sits at byte r*128 + c*16; swizzled (the 128-byte
// XOR swizzle), at r*128 + ((c ^ (r % 8)) * 16). Warp w then reads its 16 rows as 16x16 fragments:
//   ldmatrix.x4        (lane l: row 16w + l%16, chunk 2j + l/16)  -> the four 8x8 matrices of a 16x16 block
//   ldmatrix.x2.trans  (lanes 0-15: same rows, chunk 2j)          -> two 8x8 matrices, transposed
//   stmatrix.x4        writes the x4 fragment back into a second tile with the same layout,
// and the second tile is copied out to global memory. Without the swizzle the 8 row addresses of an 8x8
// matrix are 128 bytes apart and fall in the same four banks; with it they cover all 32 banks.
// Checks: the fragments each lane received, and the round-trip copy, against the input.
//
// Usage: ldmatrix_tile plain|swizzled
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #call, __FILE__, __LINE__, cudaGetErrorString(e_)); \
    exit(1); } } while (0)

constexpr int ROWS = 64, COLS = 64, CHUNKS = COLS / 8;  // 8 chunks of 16 bytes per 128-byte row
constexpr int WARPS = 4, THREADS = 32 * WARPS, TILES = 4;
constexpr int FRAG_WORDS = 6;  // per lane and column block: 4 words of ldmatrix.x4, 2 of ldmatrix.x2.trans

template <bool SWIZZLE>
__device__ __forceinline__ uint32_t chunk_offset(int row, int chunk)
{
    return row * 128 + ((SWIZZLE ? (chunk ^ (row % 8)) : chunk) * 16);
}

template <bool SWIZZLE>
__global__ void __launch_bounds__(THREADS)
ldmatrix_tile(const uint4* __restrict__ in, uint4* __restrict__ out, uint32_t* __restrict__ frags)
{
    __shared__ __align__(128) unsigned char tile[ROWS * 128];
    __shared__ __align__(128) unsigned char copy[ROWS * 128];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const uint4* src = in + blockIdx.x * ROWS * CHUNKS;
    for (int i = threadIdx.x; i < ROWS * CHUNKS; i += THREADS)
        *reinterpret_cast<uint4*>(tile + chunk_offset<SWIZZLE>(i / CHUNKS, i % CHUNKS)) = src[i];
    __syncthreads();
    const uint32_t tile_base = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
    const uint32_t copy_base = static_cast<uint32_t>(__cvta_generic_to_shared(copy));
    uint32_t* my_frags = frags + ((blockIdx.x * WARPS + warp) * (COLS / 16) * 32) * FRAG_WORDS;
    for (int j = 0; j < COLS / 16; ++j) {
        const int row = 16 * warp + lane % 16;
        const uint32_t off = chunk_offset<SWIZZLE>(row, 2 * j + lane / 16);
        const uint32_t off_t = chunk_offset<SWIZZLE>(row, 2 * j);
        uint32_t r0, r1, r2, r3, t0, t1;
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(tile_base + off));
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                     : "=r"(t0), "=r"(t1) : "r"(tile_base + off_t));
        asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
                     :: "r"(copy_base + off), "r"(r0), "r"(r1), "r"(r2), "r"(r3) : "memory");
        uint32_t* f = my_frags + (j * 32 + lane) * FRAG_WORDS;
        f[0] = r0; f[1] = r1; f[2] = r2; f[3] = r3; f[4] = t0; f[5] = t1;
    }
    __syncthreads();
    uint4* dst = out + blockIdx.x * ROWS * CHUNKS;
    for (int i = threadIdx.x; i < ROWS * CHUNKS; i += THREADS)
        dst[i] = *reinterpret_cast<const uint4*>(copy + chunk_offset<SWIZZLE>(i / CHUNKS, i % CHUNKS));
}

// The two 16-bit values a lane holds in one register of an 8x8 fragment (low half first).
static uint32_t pack(uint16_t lo, uint16_t hi) { return (uint32_t)lo | ((uint32_t)hi << 16); }

int main(int argc, char** argv)
{
    const bool swizzled = argc > 1 && strcmp(argv[1], "swizzled") == 0;
    if (argc < 2 || (!swizzled && strcmp(argv[1], "plain") != 0)) {
        fprintf(stderr, "usage: %s plain|swizzled\n", argv[0]);
        return 2;
    }
    const size_t elems = (size_t)TILES * ROWS * COLS;
    std::vector<uint16_t> in(elems), out(elems);
    srand(77);
    for (size_t i = 0; i < elems; ++i) in[i] = (uint16_t)(rand() & 0xffff);
    const size_t frag_words = (size_t)TILES * WARPS * (COLS / 16) * 32 * FRAG_WORDS;
    std::vector<uint32_t> frags(frag_words);
    uint4 *dIn, *dOut;
    uint32_t* dFrags;
    CK(cudaMalloc(&dIn, elems * 2));
    CK(cudaMalloc(&dOut, elems * 2));
    CK(cudaMalloc(&dFrags, frag_words * 4));
    CK(cudaMemcpy(dIn, in.data(), elems * 2, cudaMemcpyHostToDevice));
    CK(cudaMemset(dOut, 0xff, elems * 2));
    CK(cudaMemset(dFrags, 0xff, frag_words * 4));
    if (swizzled)
        ldmatrix_tile<true><<<TILES, THREADS>>>(dIn, dOut, dFrags);
    else
        ldmatrix_tile<false><<<TILES, THREADS>>>(dIn, dOut, dFrags);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(out.data(), dOut, elems * 2, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(frags.data(), dFrags, frag_words * 4, cudaMemcpyDeviceToHost));
    long bad_copy = 0, bad_frag = 0;
    for (size_t i = 0; i < elems; ++i) bad_copy += out[i] != in[i];
    for (int b = 0; b < TILES; ++b)
        for (int w = 0; w < WARPS; ++w)
            for (int j = 0; j < COLS / 16; ++j)
                for (int l = 0; l < 32; ++l) {
                    auto at = [&](int r, int c) { return in[((size_t)b * ROWS + 16 * w + r) * COLS + 16 * j + c]; };
                    const uint32_t* f = &frags[((((size_t)b * WARPS + w) * (COLS / 16) + j) * 32 + l) * FRAG_WORDS];
                    const int r = l / 4, c = 2 * (l % 4);
                    // x4: matrices (rows 0-7, cols 0-7), (rows 8-15, cols 0-7), (rows 0-7, cols 8-15), (rows 8-15, cols 8-15)
                    const uint32_t want[6] = {
                        pack(at(r, c), at(r, c + 1)), pack(at(r + 8, c), at(r + 8, c + 1)),
                        pack(at(r, c + 8), at(r, c + 9)), pack(at(r + 8, c + 8), at(r + 8, c + 9)),
                        // x2.trans: the transposes of (rows 0-7, cols 0-7) and (rows 8-15, cols 0-7)
                        pack(at(c, r), at(c + 1, r)), pack(at(c + 8, r), at(c + 9, r))};
                    for (int k = 0; k < FRAG_WORDS; ++k) bad_frag += f[k] != want[k];
                }
    const bool ok = bad_copy == 0 && bad_frag == 0;
    printf("ldmatrix_tile %s: %d tiles of 64x64 16-bit, block %d: %ld wrong fragment words, %ld wrong copied elements %s\n",
           argv[1], TILES, THREADS, bad_frag, bad_copy, ok ? "OK" : "FAIL");
    return ok ? 0 : 1;
}
