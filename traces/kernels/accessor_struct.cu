// bankism corpus: a struct-based shared-memory accessor. SharedMemory<T> hands out the
// extern __shared__ array through its conversion operator (the classic CUDA-samples struct),
// and Tile<T> indexes it as rows of PITCH elements through operator(). Each thread of a
// 32x8 block stores a 32x32 tile of doubles row by row and reads it back column by column:
// 8-byte accesses, with PITCH 32 (conflicts) or 33 (none).
//
// Usage: accessor_struct plain|padded
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #call, __FILE__, __LINE__, cudaGetErrorString(e_)); \
    exit(1); } } while (0)

template <class T>
struct SharedMemory {
    __device__ inline operator T *() {
        extern __shared__ int __smem[];
        return (T *)__smem;
    }
};

template <class T>
struct Tile {
    T *base;
    int pitch;
    __device__ Tile(T *b, int p) : base(b), pitch(p) {}
    __device__ T &operator()(int row, int col) { return base[row * pitch + col]; }
};

constexpr int N = 128;

template <int PITCH>
__global__ void accessor_transpose(const double *in, double *out, int n)
{
    Tile<double> tile(SharedMemory<double>(), PITCH);
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        tile(threadIdx.y + j, threadIdx.x) = in[(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8)
        out[(y + j) * n + x] = tile(threadIdx.x, threadIdx.y + j);
}

int main(int argc, char **argv)
{
    const bool padded = argc > 1 && strcmp(argv[1], "padded") == 0;
    if (argc < 2 || (!padded && strcmp(argv[1], "plain") != 0)) {
        fprintf(stderr, "usage: %s plain|padded\n", argv[0]);
        return 2;
    }
    std::vector<double> in(N * N), out(N * N);
    for (int i = 0; i < N * N; ++i) in[i] = (double)(i * 3 + 1);
    double *dIn, *dOut;
    CK(cudaMalloc(&dIn, sizeof(double) * N * N));
    CK(cudaMalloc(&dOut, sizeof(double) * N * N));
    CK(cudaMemcpy(dIn, in.data(), sizeof(double) * N * N, cudaMemcpyHostToDevice));
    dim3 block(32, 8), grid(N / 32, N / 32);
    if (padded)
        accessor_transpose<33><<<grid, block, 32 * 33 * sizeof(double)>>>(dIn, dOut, N);
    else
        accessor_transpose<32><<<grid, block, 32 * 32 * sizeof(double)>>>(dIn, dOut, N);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(out.data(), dOut, sizeof(double) * N * N, cudaMemcpyDeviceToHost));
    long bad = 0;
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j) bad += out[j * N + i] != in[i * N + j];
    printf("accessor_transpose %s: %dx%d double, grid 4x4, block 32x8: %ld wrong %s\n", argv[1], N, N, bad,
           bad == 0 ? "OK" : "FAIL");
    return bad == 0 ? 0 : 1;
}
