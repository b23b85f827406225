// Overloads told apart by the element type of a reference-to-array parameter (a public mma.sync GEMM, scout 6).
// c[1][0] + h[0][0] = 1 + 2: stride 3, no conflict; the float overload on h would give stride 2 (2-way).
#include <cstdint>
__device__ void acc(float (&c)[4], const uint32_t (&a)[4]) { c[0] += a[0]; }
__device__ void acc(uint32_t (&c)[2], const uint32_t (&a)[4]) { c[0] += 2 * a[0]; }
__global__ void k(float *out) {
    __shared__ float s[32 * 32];
    float c[2][4] = {};
    uint32_t h[2][2] = {};
    uint32_t a[4] = {1, 1, 1, 1};
    acc(c[1], a);
    acc(h[0], a);
    s[threadIdx.x * (int)(c[1][0] + h[0][0])] = 1.f;
}
int main() { k<<<1, 32>>>(nullptr); }
