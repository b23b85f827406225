// Functors called through a temporary: `Op()(a, b)` and `Op{}(a, b)`, the functor a template
// type parameter (a tile loader picks its copy policy this way).
struct copy_word {
    __device__ void operator()(float *dst, const float *src) const { *dst = *src; }
};

struct copy_strided {
    int stride;
    __device__ void operator()(float *dst, const float *src) const { dst[0] = src[0] * stride; }
};

template <typename Copy>
__device__ void load_row(float *tile, const float *in) {
    Copy()(&tile[threadIdx.x], &in[threadIdx.x]);
}

__global__ void functor_tiles(const float *in, float *out) {
    __shared__ float tile[2][32 * 2];
    load_row<copy_word>(tile[0], in);
    copy_strided{2}(&tile[1][2 * threadIdx.x], &in[32 + threadIdx.x]);
    __syncthreads();
    out[threadIdx.x] = tile[0][31 - threadIdx.x] + tile[1][2 * threadIdx.x];
}

int main() {
    functor_tiles<<<1, 32>>>(nullptr, nullptr);
    return 0;
}
