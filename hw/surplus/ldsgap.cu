// bankism: does the code between a shared access and the global access it feeds move the surplus (issue 21)?
// Run 16-17 measured the stored double transpose (hw/surplus/kernels/transpose_f64.cu, padded) at a 14.7%
// load surplus and the one-shot probe's transpose of the same tiles, addresses and traffic at 1.8%; the probe
// computes the global store's address between the shared load and the store, the kernel before the load.
// This program is the stored transposes' code (2D grid of 32 x 32 tiles, block 32 x R, R = 8 or 32, rows
// padded by PAD) with two knobs:
//   GAP: integer operations between each shared load and its global store (the store's address waits for
//        the loaded value through "& zero", zero = 0 at run time): 0 = the stored kernels' code;
//   PRE: dependent integer operations before the first global load (a longer prologue, as the probe's).
// Config lines:  name type R pad gap pre n      (type 4 float, 8 double; n x n matrix, n a multiple of 32)
// The host checks every element (OK / FAIL per CONFIG line, with the cudaEvent time).
// Usage: ldsgap CONFIGS.txt
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #x, __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1);} } while (0)

template <typename T> __device__ __forceinline__ long long bits(T v);
template <> __device__ __forceinline__ long long bits<float>(float v) { return __float_as_int(v); }
template <> __device__ __forceinline__ long long bits<double>(double v) { return __double_as_longlong(v); }

template <typename T, int R, int PAD, int GAP>
__global__ void ldsgap(const T* __restrict__ in, T* __restrict__ out, int n, int pre, long long zero)
{
    __shared__ T tile[32][32 + PAD];
    long long delay = blockIdx.x;
    for (int k = 0; k < pre; ++k) delay = delay * 3 + k;  // a prologue of dependent integer work
    const int skew = (int)(delay & zero);
    int x = blockIdx.x * 32 + threadIdx.x + skew, y = blockIdx.y * 32 + threadIdx.y;
#pragma unroll
    for (int j = 0; j < 32; j += R) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
#pragma unroll
    for (int j = 0; j < 32; j += R) {
        const T v = tile[threadIdx.x][threadIdx.y + j];
        size_t at = (size_t)(y + j) * n + x;
        if (GAP > 0) {
            long long h = bits(v) & zero;  // 0, but only known once the load has returned
#pragma unroll
            for (int k = 1; k < GAP; ++k) h = (h ^ (k * 0x9E3779B97F4A7C15ll)) & zero;
            at += (size_t)h;
        }
        out[at] = v;
    }
}

struct Config {
    std::string name;
    int type, rows, pad, gap, pre, n;
};

template <typename T>
static long run(const Config& c, float* ms)
{
    typedef void (*K)(const T*, T*, int, int, long long);
    K fn = nullptr;
#define PICK(RR, PP, GG) if (c.rows == RR && c.pad == PP && c.gap == GG) fn = ldsgap<T, RR, PP, GG>;
#define GAPS(RR, PP) PICK(RR, PP, 0) PICK(RR, PP, 4) PICK(RR, PP, 16)
    GAPS(8, 0) GAPS(8, 1) GAPS(32, 0) GAPS(32, 1)
#undef GAPS
#undef PICK
    if (!fn) return -1;
    const size_t count = (size_t)c.n * c.n;
    std::vector<T> in(count);
    for (size_t i = 0; i < count; ++i) in[i] = (T)(i % 9973) + (T)0.5;
    T *d_in, *d_out;
    CK(cudaMalloc(&d_in, count * sizeof(T)));
    CK(cudaMalloc(&d_out, count * sizeof(T)));
    CK(cudaMemcpy(d_in, in.data(), count * sizeof(T), cudaMemcpyHostToDevice));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    CK(cudaEventRecord(e0));
    fn<<<dim3(c.n / 32, c.n / 32), dim3(32, c.rows)>>>(d_in, d_out, c.n, c.pre, 0);
    CK(cudaEventRecord(e1));
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaEventElapsedTime(ms, e0, e1));
    std::vector<T> got(count);
    CK(cudaMemcpy(got.data(), d_out, count * sizeof(T), cudaMemcpyDeviceToHost));
    CK(cudaFree(d_in)); CK(cudaFree(d_out));
    long wrong = 0;
    for (int y = 0; y < c.n; ++y)
        for (int x = 0; x < c.n; ++x) wrong += got[(size_t)y * c.n + x] != in[(size_t)x * c.n + y];
    return wrong;
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
        if (sscanf(line, "%127s %d %d %d %d %d %d", name, &c.type, &c.rows, &c.pad, &c.gap, &c.pre, &c.n) < 7 ||
            name[0] == '#')
            continue;
        c.name = name;
        if ((c.type != 4 && c.type != 8) || c.n < 32 || c.n % 32 || c.pre < 0) {
            fprintf(stderr, "%s: bad configuration\n", name); return 2;
        }
        float ms = 0;
        const long wrong = c.type == 4 ? run<float>(c, &ms) : run<double>(c, &ms);
        if (wrong < 0) { fprintf(stderr, "%s: R 8 or 32, pad 0 or 1, gap 0, 4 or 16\n", name); return 2; }
        printf("CONFIG %d %s type=%d rows=%d pad=%d gap=%d pre=%d n=%d wrong=%ld ms=%.4f %s\n", done++, name, c.type,
               c.rows, c.pad, c.gap, c.pre, c.n, wrong, ms, wrong ? "FAIL" : "OK");
        fflush(stdout);
        failed += wrong != 0;
    }
    fclose(f);
    printf("DONE %d configs, %d failed\n", done, failed);
    return failed ? 1 : 0;
}
