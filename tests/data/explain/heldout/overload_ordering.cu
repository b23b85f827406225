// Two function templates that a call matches alike (a public attention kernel's ceilDiv(T, T) beside
// ceilDiv(T1, T2)) were refused as "several overloads match". nvcc takes the more specialized one by
// partial ordering: stride(int, int) is the (T, T) overload, 1; stride(int, unsigned) deduces only with
// (T1, T2), 2; the (T*, T) overload beats (T1, T2) for a pointer and its pointee type: 4.
template <typename T> __device__ T stride(T a, T b) { return 1; }
template <typename T1, typename T2> __device__ T1 stride(T1 a, T2 b) { return 2; }
template <typename T> __device__ int step(T *p, T v) { return 4; }
template <typename T1, typename T2> __device__ int step(T1 p, T2 v) { return 8; }

__global__ void ordered(float *out, int n)
{
    __shared__ float tile[32 * 8];
    const int lane = threadIdx.x;
    tile[lane * stride(n, 3)] = 1.0f;                 // 1: conflict-free
    tile[lane * stride(n, 3u)] = 2.0f;                // 2: 2-way
    tile[lane * step(tile, 1.0f)] = 3.0f;             // 4: 4-way
    __syncthreads();
    out[lane] = tile[lane];
}

int main()
{
    float *out = nullptr;
    ordered<<<1, 32>>>(out, 1 << 20);
    return 0;
}
