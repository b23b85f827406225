// Inline PTX that touches only registers and that explain does not evaluate (wmma.mma.sync written by
// hand, as some GEMMs do): its outputs are unknown values, the shared accesses around it are counted.
#include <cuda_fp16.h>

__device__ void mma_16x16(float *acc, const unsigned *a, const unsigned *b)
{
    asm volatile(
        "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f16 "
        "{%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9,%10,%11,%12,%13,%14,%15}, "
        "{%16,%17,%18,%19,%20,%21,%22,%23}, {%0,%1,%2,%3,%4,%5,%6,%7};"
        : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3]), "+f"(acc[4]), "+f"(acc[5]), "+f"(acc[6]),
          "+f"(acc[7])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(a[4]), "r"(a[5]), "r"(a[6]), "r"(a[7]),
          "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(b[4]), "r"(b[5]), "r"(b[6]), "r"(b[7]));
}

__global__ void hand_mma(const unsigned *A, float *C)
{
    __shared__ unsigned tile[32][9];
    unsigned lane = threadIdx.x;
    for (int k = 0; k < 8; ++k) tile[lane][k] = A[lane * 8 + k];
    __syncwarp();
    unsigned a[8], b[8];
    for (int k = 0; k < 8; ++k) {
        a[k] = tile[lane][k];      // 9-word rows: conflict-free
        b[k] = tile[k * 4][lane % 8];
    }
    float acc[8] = {0};
    mma_16x16(acc, a, b);
    C[lane] = acc[0];
}

int main()
{
    hand_mma<<<1, 32>>>(nullptr, nullptr);
    return 0;
}
