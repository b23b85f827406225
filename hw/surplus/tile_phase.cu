// bankism: the store surplus of tiled kernels, whose warps load a tile, store it to shared memory and meet
// at a barrier (issue 21). The sweep (hw/surplus/sweep.cu) measured stores and fills spread evenly over a
// launch; transposes and tiled GEMMs measure up to 4.5 times that, a double-precision tile GEMM none.
// This program replays one tile phase with one knob at a time. Each block runs ITERS iterations of:
//   L global loads of T per thread (streaming: each element read once, from REGION bytes, L1 misses);
//   L shared stores of T per thread, conflict-free (thread t at element j*blockDim+t), storing the loaded
//     values (FED 1: each store waits for its load) or the iteration number (FED 0: the stores issue
//     before the loads return; the loaded values are added after the second barrier);
//   __syncthreads(); READS conflict-free shared loads and FMAS dependent FMAs per thread; GSTORES shared
//   loads whose values each thread stores to global memory (a transpose's second phase); __syncthreads().
// Config lines:  name blocks threads iters type loads fed reads fmas region_log2 [gstores]
//   type 4 (float) or 8 (double); loads 1, 2 or 4; fed 0/1; region_log2: bytes read are 2^region_log2,
//   wrapping (28: 256 MiB from DRAM; 24: 16 MiB, L2-resident after the first touch).
// The host checks every thread's result (OK / FAIL per CONFIG line, with the cudaEvent time).
// Usage: tile_phase CONFIGS.txt
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #x, __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1);} } while (0)

static const size_t kBufferBytes = (size_t)1 << 28;

struct Params {
    int iters, reads, fmas, gstores;
    size_t mask;  // elements of the region - 1
};

template <typename T, int L, bool FED>
__global__ void __launch_bounds__(1024) tile_phase(const T* __restrict__ in, T* __restrict__ out, Params p)
{
    extern __shared__ __align__(1024) unsigned char smem[];
    T* tile = reinterpret_cast<T*>(smem);
    const int n = blockDim.x, t = threadIdx.x;
    T acc = 0;
    for (int it = 0; it < p.iters; ++it) {
        const size_t base = ((size_t)it * gridDim.x + blockIdx.x) * L * n + t;
        T v[L];
#pragma unroll
        for (int j = 0; j < L; ++j) v[j] = in[(base + (size_t)j * n) & p.mask];
#pragma unroll
        for (int j = 0; j < L; ++j) tile[j * n + t] = FED ? v[j] : (T)(it + j);
        __syncthreads();
        for (int k = 0; k < p.reads; ++k) acc += tile[(k % L) * n + (t + k) % n];
        for (int k = 0; k < p.fmas; ++k) acc = acc * (T)0.5 + (T)1;
        for (int k = 0; k < p.gstores; ++k)
            out[(size_t)gridDim.x * n + ((((size_t)it * gridDim.x + blockIdx.x) * p.gstores + k) * n + t & p.mask)] =
                tile[(k % L) * n + (t + 1) % n];  // after the results: a sink never read back
        if (!FED) {
#pragma unroll
            for (int j = 0; j < L; ++j) acc += v[j];
        }
        __syncthreads();
    }
    out[(size_t)blockIdx.x * n + t] = acc;
}

struct Config {
    std::string name;
    int blocks, threads, iters, type, loads, fed, reads, fmas, region_log2, gstores;
};

// The results of the first and the last block (every block does the same work on other data).
template <typename T>
static void expected(const Config& c, const std::vector<T>& in, size_t mask, std::vector<T>& want)
{
    const int n = c.threads, L = c.loads;
    want.assign((size_t)c.blocks * n, 0);
    for (int b : {0, c.blocks - 1})
        for (int t = 0; t < n; ++t) {
            T acc = 0;
            for (int it = 0; it < c.iters; ++it) {
                const size_t base = ((size_t)it * c.blocks + b) * L * n;
                for (int k = 0; k < c.reads; ++k) {
                    const int j = k % L, u = (t + k) % n;
                    acc += c.fed ? in[(base + (size_t)j * n + u) & mask] : (T)(it + j);
                }
                for (int k = 0; k < c.fmas; ++k) acc = acc * (T)0.5 + (T)1;
                if (!c.fed)
                    for (int j = 0; j < L; ++j) acc += in[(base + (size_t)j * n + t) & mask];
            }
            want[(size_t)b * n + t] = acc;
        }
}

template <typename T>
static size_t run(const Config& c, void* buffer, const std::vector<T>& in, float* ms)
{
    typedef void (*K)(const T*, T*, Params);
    K fn = nullptr;
#define PICK(LL) if (c.loads == LL) fn = c.fed ? tile_phase<T, LL, true> : tile_phase<T, LL, false>;
    PICK(1) PICK(2) PICK(4)
#undef PICK
    if (!fn) return (size_t)-1;
    Params p{c.iters, c.reads, c.fmas, c.gstores, (((size_t)1 << c.region_log2) / sizeof(T)) - 1};
    const size_t smem = (size_t)c.loads * c.threads * sizeof(T);
    CK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    T* out;
    const size_t count = (size_t)c.blocks * c.threads;
    // the global stores of the second phase wrap in the same region size as the loads
    CK(cudaMalloc(&out, count * sizeof(T) + (c.gstores ? (size_t)1 << c.region_log2 : 0)));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    CK(cudaEventRecord(e0));
    fn<<<c.blocks, c.threads, smem>>>((const T*)buffer, out, p);
    CK(cudaEventRecord(e1));
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaEventElapsedTime(ms, e0, e1));
    std::vector<T> got(count), want;
    CK(cudaMemcpy(got.data(), out, count * sizeof(T), cudaMemcpyDeviceToHost));
    CK(cudaFree(out));
    expected<T>(c, in, p.mask, want);
    size_t wrong = 0;
    for (int b : {0, c.blocks - 1})
        for (int t = 0; t < c.threads; ++t) wrong += got[(size_t)b * c.threads + t] != want[(size_t)b * c.threads + t];
    return wrong;
}

int main(int argc, char** argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s CONFIGS.txt\n", argv[0]); return 2; }
    void* buffer;
    CK(cudaMalloc(&buffer, kBufferBytes));
    // small integers, so that sums stay exact; the buffer holds the type of the configuration
    std::vector<float> floats(kBufferBytes / 4);
    std::vector<double> doubles(kBufferBytes / 8);
    for (size_t i = 0; i < floats.size(); ++i) floats[i] = (float)(i % 7);
    for (size_t i = 0; i < doubles.size(); ++i) doubles[i] = (double)(i % 7);
    int held = 0;
    FILE* f = fopen(argv[1], "r");
    if (!f) { perror("open configs"); return 2; }
    char line[512], name[128];
    int n = 0, failed = 0;
    while (fgets(line, sizeof line, f)) {
        Config c{};
        if (sscanf(line, "%127s %d %d %d %d %d %d %d %d %d %d", name, &c.blocks, &c.threads, &c.iters, &c.type,
                   &c.loads, &c.fed, &c.reads, &c.fmas, &c.region_log2, &c.gstores) < 10 || name[0] == '#')
            continue;
        c.name = name;
        if (c.threads < 32 || c.threads > 1024 || c.threads % 32 || c.blocks < 1 || c.iters < 1 ||
            (c.type != 4 && c.type != 8) || c.gstores < 0 || c.region_log2 < 12 || c.region_log2 > 28 || c.reads < 0 || c.fmas < 0) {
            fprintf(stderr, "%s: bad configuration\n", name); return 2;
        }
        float ms = 0;
        if (held != c.type) {
            CK(cudaMemcpy(buffer, c.type == 4 ? (void*)floats.data() : (void*)doubles.data(), kBufferBytes,
                          cudaMemcpyHostToDevice));
            held = c.type;
        }
        const size_t wrong = c.type == 4 ? run<float>(c, buffer, floats, &ms) : run<double>(c, buffer, doubles, &ms);
        if (wrong == (size_t)-1) { fprintf(stderr, "%s: loads must be 1, 2 or 4\n", name); return 2; }
        printf("CONFIG %d %s blocks=%d threads=%d iters=%d type=%d loads=%d fed=%d reads=%d fmas=%d region=%d "
               "gstores=%d sts=%lld wrong=%zu ms=%.4f %s\n", n++, name, c.blocks, c.threads, c.iters, c.type, c.loads,
               c.fed, c.reads, c.fmas, c.region_log2, c.gstores, (long long)c.blocks * (c.threads / 32) * c.iters * c.loads, wrong,
               ms, wrong ? "FAIL" : "OK");
        fflush(stdout);
        failed += wrong != 0;
    }
    fclose(f);
    printf("DONE %d configs, %d failed\n", n, failed);
    CK(cudaFree(buffer));
    return failed ? 1 : 0;
}
