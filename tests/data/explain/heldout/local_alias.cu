// heldout: `using` and `typedef` inside a function body name types for the rest of the block.
__global__ void local_alias(float *out) {
  __shared__ float s[32 * 33];
  using wide = unsigned long long;
  typedef short narrow;
  wide big = (wide)threadIdx.x << 33;   // needs 64 bits
  narrow step = 3;
  s[(big >> 33) * step] = 1.f;          // 3t: conflict-free
  s[sizeof(wide) * threadIdx.x] = 2.f;  // 8t: 8-way
  out[threadIdx.x] = s[threadIdx.x];
}

int main() { local_alias<<<1, 32>>>(0); }
