// misc: the correctly rounded reciprocal and square-root intrinsics (flash-attention kernels
// scale by __frcp_rn): a stride computed through them.
__global__ void reciprocal(float *out) {
  __shared__ float s[32 * 33];
  int stride = (int)__frcp_rn(0.125f);            // 8
  int pad = (int)__fsqrt_rn(4.0f) - 1;            // 1
  s[threadIdx.x * stride] = 1.f;                  // 8 floats apart: 8-way
  s[threadIdx.x * (32 + pad)] = 2.f;              // 33 floats apart: conflict-free
  out[threadIdx.x] = s[threadIdx.x];
}

int main() { reciprocal<<<1, 32>>>(0); }
