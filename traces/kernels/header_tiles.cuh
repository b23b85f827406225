// bankism corpus: a kernel kept in a header (included by header_tiles.cu). float4 loads of A
// are stored transposed into As[BK][BM] (4-byte stores, conflicts), B tiles are copied with
// float4 stores, and the inner product reads As and Bs with 4-byte loads. The tile loader is
// a function template in a namespace, called with constexpr template arguments.
#pragma once

namespace hdr {

template <int BM, int BN, int BK, int STRIDE_A>
__device__ void load_tiles(const float *A, const float *B, float *As, float *Bs, int K, int N)
{
    const int rowA = threadIdx.x / (BK / 4), colA = threadIdx.x % (BK / 4);
    for (int off = 0; off < BM; off += STRIDE_A) {
        const float4 a = reinterpret_cast<const float4 *>(&A[(rowA + off) * K + colA * 4])[0];
        As[(colA * 4 + 0) * BM + rowA + off] = a.x;
        As[(colA * 4 + 1) * BM + rowA + off] = a.y;
        As[(colA * 4 + 2) * BM + rowA + off] = a.z;
        As[(colA * 4 + 3) * BM + rowA + off] = a.w;
    }
    const int rowB = threadIdx.x / (BN / 4), colB = threadIdx.x % (BN / 4);
    reinterpret_cast<float4 *>(&Bs[rowB * BN + colB * 4])[0] =
        reinterpret_cast<const float4 *>(&B[rowB * N + colB * 4])[0];
}

}  // namespace hdr

template <int BM, int BN, int BK, int TM>
__global__ void header_tiles(const float *A, const float *B, float *C, int M, int N, int K)
{
    __shared__ float As[BK * BM];
    __shared__ float Bs[BK * BN];
    constexpr int strideA = (BM * BN / TM) * 4 / BK;
    const int col = threadIdx.x % BN, row0 = threadIdx.x / BN * TM;
    A += blockIdx.y * BM * K;
    B += blockIdx.x * BN;
    float acc[TM] = {0.0f};
    for (int k0 = 0; k0 < K; k0 += BK) {
        hdr::load_tiles<BM, BN, BK, strideA>(A, B, As, Bs, K, N);
        __syncthreads();
        for (int k = 0; k < BK; ++k) {
            const float b = Bs[k * BN + col];
            for (int i = 0; i < TM; ++i) acc[i] += As[k * BM + row0 + i] * b;
        }
        __syncthreads();
        A += BK;
        B += BK * N;
    }
    for (int i = 0; i < TM; ++i)
        C[(blockIdx.y * BM + row0 + i) * N + blockIdx.x * BN + col] = acc[i];
}
