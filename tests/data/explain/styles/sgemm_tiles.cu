// Launches the header's kernel (the kernel's lines are the header's).
#include "sgemm_tiles.cuh"

void run_sgemm(int M, int N, int K, float alpha, float *A, float *B, float beta, float *C) {
  const int BK = 8, TM = 8, TN = 8, BM = 64, BN = 64;
  dim3 gridDim(CEIL_DIV(N, BN), CEIL_DIV(M, BM));
  dim3 blockDim((BM * BN) / (TM * TN));
  sgemmTiled<BM, BN, BK, TM, TN><<<gridDim, blockDim>>>(M, N, K, alpha, A, B, beta, C);
}
