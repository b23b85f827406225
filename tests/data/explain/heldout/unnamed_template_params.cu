// Unnamed template parameters (SFINAE guards and unused non-type parameters) were an internal error
// (AttributeError) in explain: found on a public PTX GEMM whose tile helpers take
// `template <typename S, typename = std::enable_if_t<...>>` (enable_if_t itself is refused in one line).
template <int W, typename = int, int = 0>
__device__ void store_row(float *tile, int lane)
{
    tile[lane * W] = 1.0f;  // W = 2: 2-way conflict
}

__global__ void unnamed_params(float *out)
{
    __shared__ float tile[64];
    store_row<2>(tile, threadIdx.x);
    __syncthreads();
    out[threadIdx.x] = tile[threadIdx.x];
}

int main()
{
    float *out = nullptr;
    unnamed_params<<<1, 32>>>(out);
    return 0;
}
