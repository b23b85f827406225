// Per-thread arrays read back as other types (reach, issue 19): the bytes are the GPU's
// (little-endian, IEEE half, bfloat16 = top half of a float), and shared addresses depend on them.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

template <typename T, int M, const int N = 2>
__device__ inline void fill_2d(T (&r)[M][N], T v) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j)
      r[i][j] = v + i * N + j;
}

__global__ void punned(float *out) {
  __shared__ float s[2048];
  const int t = threadIdx.x;

  half h[8];  // eight halves copied as one float4, read back as unsigned ints
  for (int i = 0; i < 8; ++i) h[i] = __int2half_rn(t + i);
  unsigned int u[4];
  reinterpret_cast<float4 *>(u)[0] = reinterpret_cast<float4 *>(h)[0];
  s[(u[1] >> 16) & 2047] = 1.0f;

  unsigned int rc[2];  // an accumulator of unsigned ints seen as halves through a reference
  half (&rh)[4] = reinterpret_cast<half (&)[4]>(rc);
  for (int i = 0; i < 4; ++i) rh[i] = __int2half_rn((i + 1) * t);
  s[rc[1] & 2047] = 2.0f;
  half2 pair = reinterpret_cast<half2 *>(rc)[0];
  s[__half2int_rn(pair.y)] = 3.0f;

  float f[2];  // floats written through a half pointer, then read as floats and as halves
  half *fh = reinterpret_cast<half *>(f);
  for (int i = 0; i < 4; ++i) fh[i] = __int2half_rn(4 * t + i);
  s[__float_as_uint(f[1]) & 2047] = 4.0f;
  s[__half2int_rn(fh[3])] = 5.0f;

  __nv_bfloat16 b[2];  // bfloat16 bits
  b[0] = __float2bfloat16(t + 1.0f);
  b[1] = __float2bfloat16(-2.0f);
  s[reinterpret_cast<unsigned int *>(b)[0] & 2047] = 6.0f;

  unsigned int w[1];  // float bits kept in an unsigned int, read back as the float
  w[0] = __float_as_uint(5.0f * t);
  s[(int)reinterpret_cast<float *>(w)[0]] = 7.0f;

  int g[3][2];  // a reference-to-array parameter with a default size
  fill_2d<int, 3>(g, 3 * t);
  s[g[2][1] - 5] = 8.0f;

  __syncthreads();
  out[t] = s[t];
}

int main() {
  float *out;
  cudaMalloc(&out, 64 * sizeof(float));
  punned<<<1, 64>>>(out);
  cudaDeviceSynchronize();
  return 0;
}
