// reach: C casts to a typedef'd name written `(T)(expr)`, and stores with cache hints.
typedef float real_t;
typedef unsigned short idx_t;

__global__ void hinted(const float *in, float *out) {
  __shared__ float buf[128];
  __shared__ real_t col[32][32];
  int i = (idx_t)(threadIdx.x + 65536);
  buf[(int)(idx_t)(4 * i) % 128] = (real_t)(in[i] * 2.0f);
  col[threadIdx.x][(idx_t)(i / 32)] = 1.0f;
  __syncthreads();
  __stcs(out + i, buf[127 - i]);
  __stcg(out + 32 + i, (real_t)(buf[i] + 1.0f));
}

int main() { hinted<<<1, 32>>>(0, 0); }
