// Neighbouring loads whose index uses a run-time value (blockDim): nvcc merges them only from a start it can
// prove aligned (nvcc 13.0 -O3 -arch=sm_90, SASS per line in the comments; tests/test_explain_vectorize.py).
#include <cstddef>

template <int BK, int BN, int TN>
__global__ void tiles(const float *in, float *out)
{
    __shared__ float a[128][BK];
    __shared__ float b[BK][BN];
    __shared__ float c[BK][BN];
    unsigned tid = threadIdx.y * blockDim.x + threadIdx.x;      // run time: blockDim
    for (unsigned i = tid; i < 128 * BK; i += 256) {
        a[i / BK][i % BK] = in[i];
        b[i / BN % BK][i % BN] = in[i + 1];
        c[i / BN % BK][i % BN] = in[i + 2];
    }
    __syncthreads();
    size_t const col = tid % (BN / TN) * TN;                     // a multiple of TN = 8 floats: 32 bytes
    size_t const odd = tid % (BN / TN) * 2;                      // a multiple of 2 floats: 8 bytes
    size_t const row = tid / (BN / TN) * 8;                      // whole rows of a
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k < BK; ++k) {
        float va[8], vb[TN], vc[2];
#pragma unroll
        for (int i = 0; i < 8; ++i)
            va[i] = a[row + i][k];                                  // line 27: LDS.128 over k (row stride 64 B)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            vb[j] = b[k][col + j];                                  // line 30: 2 x LDS.128
#pragma unroll
        for (int j = 0; j < 2; ++j)
            vc[j] = c[k][odd + j];                                  // line 33: LDS.64 (8 bytes proven)
#pragma unroll
        for (int i = 0; i < 8; ++i)
            acc += va[i] * vb[i % TN] + vc[i % 2];
    }
    out[tid] = acc;
}

// A row stride that is blockDim: nothing proven, scalar loads.
__global__ void strided(float *out)
{
    __shared__ float s[4096];
    for (unsigned i = threadIdx.x; i < 4096; i += blockDim.x)
        s[i] = i;
    __syncthreads();
    float acc = 0.0f;
#pragma unroll
    for (int j = 0; j < 4; ++j)
        acc += s[threadIdx.x % 16 * blockDim.x + j];               // line 51: 4 x LDS
    out[threadIdx.x] = acc;
}

int main()
{
    tiles<16, 128, 8><<<1, dim3(16, 16)>>>(nullptr, nullptr);
    strided<<<1, 64>>>(nullptr);
    return 0;
}
