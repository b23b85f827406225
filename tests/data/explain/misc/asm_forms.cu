// Inline-asm forms public kernels use: operands with no comma between them (nvcc accepts
// them as separate operands), clock and lane-mask special registers.
#include <cstdint>

__global__ void asm_forms(unsigned *out) {
  __shared__ float s[1024];
  const unsigned t = threadIdx.x;
  uint32_t base;
  asm volatile("{.reg .u64 a;\n cvta.to.shared.u64 a, %1;\n cvt.u32.u64 %0, a;}\n"
               : "=r"(base) : "l"(s));
  uint32_t start;
  asm volatile("mov.u32 %0, %%clock;\n" : "=r"(start) : : "memory");
  asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n"
               :
               : "r"(base + 8 * t)
                 "f"(1.0f) "f"(2.0f)
               : "memory");
  unsigned below;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(below));
  s[__popc(below) * 32] = 3.0f;
  uint32_t stop;
  asm volatile("mov.u32 %0, %%clock;\n" : "=r"(stop) : : "memory");
  out[t] = stop - start + (unsigned)s[t];
}

int main() {
  unsigned *out;
  cudaMalloc(&out, 64 * sizeof(unsigned));
  asm_forms<<<1, 64>>>(out);
  cudaDeviceSynchronize();
  return 0;
}
