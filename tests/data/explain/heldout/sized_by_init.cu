// heldout: local arrays whose size comes from their initializer: numbers, and pointers to
// per-thread arrays indexed by constants (a tensor-core kernel's register fragments).
__device__ void fill(unsigned *frag, int t) {
  for (int i = 0; i < 4; ++i) frag[i] = t * 8 + i;
}

__global__ void sized_by_init(float *out) {
  __shared__ float s[32 * 33];
  int t = threadIdx.x;
  int strides[] = {1, 2, 33};
  s[t * strides[1]] = 0.f;
  s[t * strides[2]] = 1.f;
  unsigned frag1[4];
  unsigned frag2[4];
  unsigned *frags[] = {frag1, frag2};
  fill(frags[0], t);
  fill(frags[1], 2 * t);
  s[frags[0][3]] = 2.f;
  s[frags[1][1] + sizeof(strides) / sizeof(strides[0])] = 3.f;
  out[t] = s[t];
}

int main() { sized_by_init<<<1, 32>>>(0); }
