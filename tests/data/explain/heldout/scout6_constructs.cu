// Constructs of public tensor-core kernels that explain refused (scout 6), each setting a shared stride.
#include <cuda_fp16.h>

template <int kRows_, int kCols_, int kRowStride_ = kCols_>  // a default naming an earlier parameter
struct Layout { static constexpr int kRowStride = kRowStride_; };

struct Frag { float x[4] = {0.f, 2.f}; };  // a default member initializer of an array member
struct Acc { float x[4]; };
using AccReg = float;

template <typename L>
__global__ void constructs(float *out, __half beta) {
    __shared__ float s[32 * 33];
    s[threadIdx.x * L::kRowStride] = 1.f;                    // stride 33: no conflict
    Frag f;
    s[threadIdx.x * (int)f.x[1]] = f.x[0];                    // stride 2: 2-way
    Acc acc[2];                                               // a local array of structs
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 4; ++j) acc[i].x[j] = (float)(i * 4 + j);
    s[threadIdx.x * (int)acc[1].x[0]] = AccReg(0);            // stride 4: 4-way
    const bool zero = __heq(beta, __float2half(0.f));         // a half comparison
    s[threadIdx.x * (zero ? 2 : 1)] = 2.f;                    // beta = 0: stride 2, 2-way
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x];
}

int main() {
    constructs<Layout<32, 33>><<<1, 32>>>(nullptr, __float2half(0.f));
    return 0;
}
