// bankism: does the surplus of a one-wavefront shared access depend on how many bank rows its lanes span,
// on the block's shape, or on blocks that end after one tile (issue 21, run 28)?
//
// The stored transposes miss the even-spread estimate in opposite directions: a padded 32x32 transpose of
// doubles measures its loads 14.7% over the address-level count (expected 5.1%), the padded 32x8 float
// one 4.3% (expected 9.9%); their unpadded twins agree. The tile-phase probe (tile_phase.cu, GSTORES),
// whose loads read one row and whose blocks loop over tiles, measured at most 1.2% on loads. This probe
// is a transpose with one knob at a time:
//   - LSPAN / SSPAN: lanes of one shared load / store spread over that many 128-byte rows (1, 2, 4, 8, 32)
//     while every lane keeps its own bank (column = lane): one wavefront for floats, two for doubles;
//   - BY: 32x32 threads with one element each, or 32x8 with four;
//   - TILES: tiles per block (1: a grid of one-shot blocks like the transposes; more: a persistent loop);
//   - MODE 1: the real transpose (column reads, PAD 0 or 1 element per row), LSPAN and SSPAN ignored;
//   - DELAY (run 32; run 30's adds of the constant 0 were removed by ptxas): that many dependent integer
//     adds (a loop of about 3 instructions each) between the barrier and each warp's first shared load,
//     whose address they carry;
//   - TAIL (run 31): 1 (default) ends each tile with a barrier, 0 lets each warp leave after its stores (as
//     the stored transposes do; only with one tile per block); EXTRA: KiB of dynamic shared memory the block
//     reserves and never touches (fewer blocks per SM).
// Global traffic is the same in every mode: coalesced reads of an N x N matrix, coalesced writes of one.
// Config lines:  name type by mode pad lspan sspan tiles n [delay [tail [extra]]]  (type 4, 8; by 4-32)
// The host checks every output element (OK / FAIL per config). Usage: rowspan CONFIGS.txt
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #x, __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1);} } while (0)

struct Params { int n, mode, pad, lspan, sspan, tiles_total, delay, tail; };

// Row offset of lane c in a spread over `span` rows: lanes in groups of 32/span, group g one row further.
__host__ __device__ inline int spread(int c, int span) { return c / (32 / span); }

template <typename T, int BY>
__global__ void __launch_bounds__(1024) rowspan(const T* __restrict__ in, T* __restrict__ out, Params p)
{
    extern __shared__ __align__(1024) unsigned char smem[];
    T* tile = reinterpret_cast<T*>(smem);
    const int stride = 32 + p.pad, per_row = p.n / 32, tx = threadIdx.x, ty = threadIdx.y;
    for (int t = blockIdx.x; t < p.tiles_total; t += gridDim.x) {
        const int bx = t % per_row, by = t / per_row;
#pragma unroll
        for (int j = 0; j < 32; j += BY) {
            const int r = ty + j;
            const T v = in[(size_t)(by * 32 + r) * p.n + bx * 32 + tx];
            const int row = p.mode ? r : (r + spread(tx, p.sspan)) % 32;
            tile[row * stride + tx] = v;
        }
        __syncthreads();
        int first = ty;
        const int zero = p.tiles_total >> 30;  // 0, which ptxas cannot fold (an add of the constant 0 it drops)
#pragma unroll 1
        for (int k = 0; k < p.delay; ++k) asm volatile("add.s32 %0, %0, %1;" : "+r"(first) : "r"(zero));
#pragma unroll
        for (int j = 0; j < 32; j += BY) {
            const int r = first + j;
            const T v = p.mode ? tile[tx * stride + r] : tile[((r + spread(tx, p.lspan)) % 32) * stride + tx];
            out[(size_t)(bx * 32 + r) * p.n + by * 32 + tx] = v;
        }
        if (p.tail) __syncthreads();
    }
}

// What out holds after one launch, element by element (the same index arithmetic on the host).
template <typename T>
static long check(const std::vector<T>& in, const std::vector<T>& out, const Params& p)
{
    const int per_row = p.n / 32;
    long bad = 0;
    for (int t = 0; t < p.tiles_total; ++t) {
        const int bx = t % per_row, by = t / per_row;
        for (int r = 0; r < 32; ++r)
            for (int c = 0; c < 32; ++c) {
                int src_r, src_c;
                if (p.mode) { src_r = c; src_c = r; }  // tile[c][r] holds in's row c, column r of the tile
                else {
                    const int row = (r + spread(c, p.lspan)) % 32;           // the load's tile position
                    src_c = c;
                    src_r = ((row - spread(c, p.sspan)) % 32 + 32) % 32;     // which input row was stored there
                }
                const T want = in[(size_t)(by * 32 + src_r) * p.n + bx * 32 + src_c];
                bad += out[(size_t)(bx * 32 + r) * p.n + by * 32 + c] != want;
            }
    }
    return bad;
}

template <typename T, int BY>
static void launch(const char* name, const Params& p, int blocks, int extra, void* d_in, void* d_out, size_t count)
{
    static std::vector<T> in, out;
    if (in.size() != count) {
        in.resize(count);
        for (size_t i = 0; i < count; ++i) in[i] = (T)(i % 9973) + (T)0.5;
    }
    CK(cudaMemcpy(d_in, in.data(), count * sizeof(T), cudaMemcpyHostToDevice));
    CK(cudaMemset(d_out, 0, count * sizeof(T)));
    const size_t smem = (size_t)32 * (32 + p.pad) * sizeof(T) + (size_t)extra * 1024;
    CK(cudaFuncSetAttribute(rowspan<T, BY>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    rowspan<T, BY><<<blocks, dim3(32, BY), smem>>>((const T*)d_in, (T*)d_out, p);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    out.resize(count);
    CK(cudaMemcpy(out.data(), d_out, count * sizeof(T), cudaMemcpyDeviceToHost));
    const long bad = check(in, out, p);
    printf("CONFIG %s type=%d by=%d mode=%d pad=%d lspan=%d sspan=%d blocks=%d n=%d delay=%d tail=%d extra=%d: %ld "
           "wrong %s\n", name, (int)sizeof(T), BY, p.mode, p.pad, p.lspan, p.sspan, blocks, p.n, p.delay, p.tail, extra,
           bad, bad ? "FAIL" : "OK");
}

template <typename T>
static void by_block(const char* name, int by, const Params& p, int blocks, int extra, void* d_in, void* d_out,
                     size_t count)
{
    if (by == 4) launch<T, 4>(name, p, blocks, extra, d_in, d_out, count);
    else if (by == 8) launch<T, 8>(name, p, blocks, extra, d_in, d_out, count);
    else if (by == 16) launch<T, 16>(name, p, blocks, extra, d_in, d_out, count);
    else launch<T, 32>(name, p, blocks, extra, d_in, d_out, count);
}

int main(int argc, char** argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s CONFIGS.txt\n", argv[0]); return 2; }
    FILE* f = fopen(argv[1], "r");
    if (!f) { perror("open configs"); return 2; }
    const int max_n = 4096;
    void *d_in, *d_out;
    CK(cudaMalloc(&d_in, (size_t)max_n * max_n * 8));
    CK(cudaMalloc(&d_out, (size_t)max_n * max_n * 8));
    char line[512], name[128];
    int type, by, mode, pad, lspan, sspan, tiles, n, delay, tail, extra, configs = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        delay = 0, tail = 1, extra = 0;
        if (sscanf(line, "%127s %d %d %d %d %d %d %d %d %d %d %d", name, &type, &by, &mode, &pad, &lspan, &sspan,
                   &tiles, &n, &delay, &tail, &extra) < 9) continue;
        const bool span_ok = lspan >= 1 && lspan <= 32 && 32 % lspan == 0 && sspan >= 1 && sspan <= 32 && 32 % sspan == 0;
        if ((type != 4 && type != 8) || (by != 4 && by != 8 && by != 16 && by != 32) || !span_ok || tiles < 1 || n % 32 || n > max_n ||
            pad < 0 || pad > 1 || delay < 0 || (!tail && tiles != 1) || extra < 0 || extra > 200) {
            fprintf(stderr, "%s: bad configuration\n", name); return 2;
        }
        const int tiles_total = (n / 32) * (n / 32);
        const int blocks = (tiles_total + tiles - 1) / tiles;
        const Params p{n, mode, pad, lspan, sspan, tiles_total, delay, tail};
        const size_t count = (size_t)n * n;
        if (type == 4) by_block<float>(name, by, p, blocks, extra, d_in, d_out, count);
        else by_block<double>(name, by, p, blocks, extra, d_in, d_out, count);
        ++configs;
    }
    fclose(f);
    printf("DONE %d configs\n", configs);
    return 0;
}
