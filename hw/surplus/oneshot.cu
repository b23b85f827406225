// bankism: the load and store surplus of one-shot tiled kernels (issue 21). The tile-phase probe
// (hw/surplus/tile_phase.cu) loops each block over many tiles and measured shared loads that feed global stores
// at under 1.3% surplus; one-shot transposes (one tile per block, thousands of blocks) measure up to 14.7% on
// the same loads, and a column sum whose loads feed no global store 5%. This program moves one 32x32 tile
// per block (or per iteration of a block, PERSIST) through shared memory with one knob at a time:
//   load phase: 32 / R rows per thread from global memory into tile[row][tx] (the store of a value just
//     loaded: a fed store, conflict-free);
//   __syncthreads();
//   SINK 0: each thread stores 32 / R shared values to global memory (READ 0: tile[tx][ty + j], a transpose;
//           READ 1: tile[ty + j][tx], a copy);
//   SINK 1: each thread adds the same 32 / R shared values into a register (one global store at the end);
//   SINK 2: only warp 0 reads, all 32 rows (READ 0: tile[tx][k]; READ 1: tile[k][tx]), a column sum's
//           last step; one global store per thread of warp 0 at the end.
// The tile's rows are 32 + PAD elements apart. Block 32 x R threads; grid TILES (one tile per block) or
// 132 x PERSIST blocks looping over the tiles (a barrier closes each iteration).
// Config lines:  name type R pad read sink n persist      (type 4 float, 8 double; n: the matrix is n x n)
// The host checks every output element (OK / FAIL per CONFIG line, with the cudaEvent time).
// Usage: oneshot CONFIGS.txt
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #x, __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1);} } while (0)

template <typename T, int R, int SINK>
__global__ void __launch_bounds__(1024) oneshot(const T* __restrict__ in, T* __restrict__ out, int n, int pad,
                                                int read, int tiles_x, int tiles)
{
    __shared__ T tile[32 * 33];
    const int tx = threadIdx.x, ty = threadIdx.y, stride = 32 + pad;
    T acc = 0;
    for (int id = blockIdx.x; id < tiles; id += gridDim.x) {
        const int bx = id % tiles_x, by = id / tiles_x;
#pragma unroll
        for (int j = 0; j < 32; j += R) tile[(ty + j) * stride + tx] = in[(size_t)(by * 32 + ty + j) * n + bx * 32 + tx];
        __syncthreads();
        if (SINK == 0) {
#pragma unroll
            for (int j = 0; j < 32; j += R) {
                const T v = read ? tile[(ty + j) * stride + tx] : tile[tx * stride + ty + j];
                if (read) out[(size_t)(by * 32 + ty + j) * n + bx * 32 + tx] = v;
                else out[(size_t)(bx * 32 + ty + j) * n + by * 32 + tx] = v;
            }
        } else if (SINK == 1) {
#pragma unroll
            for (int j = 0; j < 32; j += R) acc += read ? tile[(ty + j) * stride + tx] : tile[tx * stride + ty + j];
        } else if (ty == 0) {
#pragma unroll
            for (int k = 0; k < 32; ++k) acc += read ? tile[k * stride + tx] : tile[tx * stride + k];
        }
        if (gridDim.x < tiles) __syncthreads();
    }
    if (SINK != 0 && (SINK == 1 || ty == 0)) out[(size_t)blockIdx.x * blockDim.x * blockDim.y + ty * 32 + tx] = acc;
}

struct Config {
    std::string name;
    int type, rows, pad, read, sink, n, persist;
};

template <typename T>
static long check(const Config& c, const std::vector<T>& in, const std::vector<T>& got, int grid)
{
    const int n = c.n, tiles_x = n / 32, tiles = tiles_x * tiles_x;
    long wrong = 0;
    if (c.sink == 0) {
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x)
                wrong += got[(size_t)y * n + x] != (c.read ? in[(size_t)y * n + x] : in[(size_t)x * n + y]);
        return wrong;
    }
    // sums: every thread of a block adds its values over the block's tiles (exact: small integers)
    for (int b = 0; b < grid; ++b)
        for (int ty = 0; ty < (c.sink == 1 ? c.rows : 1); ++ty)
            for (int tx = 0; tx < 32; ++tx) {
                T acc = 0;
                for (int id = b; id < tiles; id += grid) {
                    const int bx = id % tiles_x, by = id / tiles_x;
                    auto at = [&](int r, int col) { return in[(size_t)(by * 32 + r) * n + bx * 32 + col]; };
                    if (c.sink == 1)
                        for (int j = 0; j < 32; j += c.rows) acc += c.read ? at(ty + j, tx) : at(tx, ty + j);
                    else
                        for (int k = 0; k < 32; ++k) acc += c.read ? at(k, tx) : at(tx, k);
                }
                wrong += got[(size_t)b * 32 * c.rows + ty * 32 + tx] != acc;
            }
    return wrong;
}

template <typename T>
static long run(const Config& c, float* ms)
{
    typedef void (*K)(const T*, T*, int, int, int, int, int);
    K fn = nullptr;
#define PICK(RR) if (c.rows == RR) fn = c.sink == 0 ? oneshot<T, RR, 0> : c.sink == 1 ? oneshot<T, RR, 1> : oneshot<T, RR, 2>;
    PICK(2) PICK(4) PICK(8) PICK(16) PICK(32)
#undef PICK
    if (!fn) return -1;
    const size_t count = (size_t)c.n * c.n;
    const int tiles_x = c.n / 32, tiles = tiles_x * tiles_x;
    const int grid = c.persist ? 132 * c.persist : tiles;
    std::vector<T> in(count);
    for (size_t i = 0; i < count; ++i) in[i] = (T)(i % 13);
    T *d_in, *d_out;
    const size_t out_count = c.sink == 0 ? count : (size_t)grid * 32 * c.rows;
    CK(cudaMalloc(&d_in, count * sizeof(T)));
    CK(cudaMalloc(&d_out, out_count * sizeof(T)));
    CK(cudaMemcpy(d_in, in.data(), count * sizeof(T), cudaMemcpyHostToDevice));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    CK(cudaEventRecord(e0));
    fn<<<grid, dim3(32, c.rows)>>>(d_in, d_out, c.n, c.pad, c.read, tiles_x, tiles);
    CK(cudaEventRecord(e1));
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaEventElapsedTime(ms, e0, e1));
    std::vector<T> got(out_count);
    CK(cudaMemcpy(got.data(), d_out, out_count * sizeof(T), cudaMemcpyDeviceToHost));
    CK(cudaFree(d_in)); CK(cudaFree(d_out));
    return check<T>(c, in, got, grid);
}

int main(int argc, char** argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s CONFIGS.txt\n", argv[0]); return 2; }
    FILE* f = fopen(argv[1], "r");
    if (!f) { perror("open configs"); return 2; }
    char line[512], name[128];
    int done = 0, failed = 0;
    while (fgets(line, sizeof line, f)) {
        Config c{};
        if (sscanf(line, "%127s %d %d %d %d %d %d %d", name, &c.type, &c.rows, &c.pad, &c.read, &c.sink, &c.n,
                   &c.persist) < 8 || name[0] == '#')
            continue;
        c.name = name;
        if ((c.type != 4 && c.type != 8) || c.pad < 0 || c.pad > 1 || c.read < 0 || c.read > 1 || c.sink < 0 ||
            c.sink > 2 || c.n < 32 || c.n % 32 || c.persist < 0) {
            fprintf(stderr, "%s: bad configuration\n", name); return 2;
        }
        float ms = 0;
        const long wrong = c.type == 4 ? run<float>(c, &ms) : run<double>(c, &ms);
        if (wrong < 0) { fprintf(stderr, "%s: R must be 2, 4, 8, 16 or 32\n", name); return 2; }
        printf("CONFIG %d %s type=%d rows=%d pad=%d read=%d sink=%d n=%d persist=%d wrong=%ld ms=%.4f %s\n", done++,
               name, c.type, c.rows, c.pad, c.read, c.sink, c.n, c.persist, wrong, ms, wrong ? "FAIL" : "OK");
        fflush(stdout);
        failed += wrong != 0;
    }
    fclose(f);
    printf("DONE %d configs, %d failed\n", done, failed);
    return failed ? 1 : 0;
}
