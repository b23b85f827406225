// A register-tiled GEMM step whose k loop nvcc unrolls or keeps by its size (no #pragma unroll): while it
// is unrolled, As's loads merge over k (LDS.128); once kept, each k reads As with scalar LDS. The SASS per
// instance from nvcc 13.0 -O3 -arch=sm_90 (static instructions; the loop runs BK times when kept):
//   BK=8  TM=4 TN=4: LDS.128 x16 (8 iterations x 24 statements: unrolled)
//   BK=8  TM=8 TN=8: LDS x8, LDS.128 x2, in a kept loop of 8 (As: 64 LDS a warp, Bs: 16 LDS.128)
//   BK=4  TM=8 TN=8: LDS x8, LDS.128 x2, in a kept loop of 4 (As: 32 LDS, Bs: 8 LDS.128)
//   BK=8  TM=2 TN=2: LDS.128 x4 (As), LDS.64 x8 (Bs): unrolled
template <int BK, int TM, int TN>
__global__ void gemm_step(const float *in, float *out) {
    __shared__ float As[128 * BK];
    __shared__ float Bs[128 * BK];
    const int t = threadIdx.x, ty = t / 16, tx = t % 16;
    for (int i = 0; i < 128 * BK / 256; ++i) {
        As[t + 256 * i] = in[t + 256 * i];
        Bs[t + 256 * i] = in[t + 256 * i + 5];
    }
    __syncthreads();
    float acc[TM * TN] = {0.f};
    float rm[TM], rn[TN];
    for (int d = 0; d < BK; d++) {
        for (int i = 0; i < TM; i++) rm[i] = As[(ty * TM + i) * BK + d];
        for (int i = 0; i < TN; i++) rn[i] = Bs[d * 128 + tx * TN + i];
        for (int i = 0; i < TM; i++)
            for (int j = 0; j < TN; j++) acc[i * TN + j] += rm[i] * rn[j];
    }
    for (int j = 0; j < TM * TN; j++) out[t * TM * TN + j] = acc[j];
}

int main() {
    gemm_step<BK_, TM_, TN_><<<1, 256>>>(nullptr, nullptr);
    return 0;
}
