// The values behind the shared addresses of tests/data/explain/misc/punning.cu and asm_forms.cu,
// computed on the GPU: each index expression of those kernels, written per thread instead of
// used as an address. Run: nvcc -arch=sm_90 -O3 -o values_probe values_probe.cu && ./values_probe
// Prints "name t value" lines (64 threads); tests/test_explain_misc.py compares them with the
// addresses explain computes.
#include <cstdio>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <typename T, int M, const int N = 2>
__device__ inline void fill_2d(T (&r)[M][N], T v) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      r[i][j] = v + i * N + j;
}

#define ROWS 9
__global__ void values(int *idx) {
  const int t = threadIdx.x;
  int *row = idx + t;

  half h[8];
  for (int i = 0; i < 8; ++i) h[i] = __int2half_rn(t + i);
  unsigned int u[4];
  reinterpret_cast<float4 *>(u)[0] = reinterpret_cast<float4 *>(h)[0];
  row[0 * 64] = (u[1] >> 16) & 2047;

  unsigned int rc[2];
  half (&rh)[4] = reinterpret_cast<half (&)[4]>(rc);
  for (int i = 0; i < 4; ++i) rh[i] = __int2half_rn((i + 1) * t);
  row[1 * 64] = rc[1] & 2047;
  half2 pair = reinterpret_cast<half2 *>(rc)[0];
  row[2 * 64] = __half2int_rn(pair.y);

  float f[2];
  half *fh = reinterpret_cast<half *>(f);
  for (int i = 0; i < 4; ++i) fh[i] = __int2half_rn(4 * t + i);
  row[3 * 64] = __float_as_uint(f[1]) & 2047;
  row[4 * 64] = __half2int_rn(fh[3]);

  __nv_bfloat16 b[2];
  b[0] = __float2bfloat16(t + 1.0f);
  b[1] = __float2bfloat16(-2.0f);
  row[5 * 64] = reinterpret_cast<unsigned int *>(b)[0] & 2047;

  unsigned int w[1];
  w[0] = __float_as_uint(5.0f * t);
  row[6 * 64] = (int)reinterpret_cast<float *>(w)[0];

  int g[3][2];
  fill_2d<int, 3>(g, 3 * t);
  row[7 * 64] = g[2][1] - 5;

  unsigned below;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(below));
  row[8 * 64] = __popc(below) * 32;
}

int main() {
  const char *names[ROWS] = {"punning:21", "punning:26", "punning:28", "punning:33", "punning:34",
                             "punning:39", "punning:43", "punning:47", "asm_forms:20"};
  int *d, h[ROWS * 64];
  cudaMalloc(&d, sizeof(h));
  values<<<1, 64>>>(d);
  cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
  for (int r = 0; r < ROWS; ++r)
    for (int t = 0; t < 64; ++t) printf("%s %d %d\n", names[r], t, h[r * 64 + t]);
  return cudaDeviceSynchronize() != cudaSuccess;
}
