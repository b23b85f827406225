// A WMMA fragment loaded straight from global memory with an ldm explain does not know (a member of a
// by-value struct argument) refused the kernel ("ldm must be a known integer"; a public WMMA GEMM). Only a
// shared-memory operand's ldm places shared accesses: B's 16x16 tile, rows 32 bytes apart, is 2-way.
#include <mma.h>
using namespace nvcuda;

struct Mat { half *p; int ld; };

__global__ void mm(Mat A, Mat B, float *C)
{
    __shared__ half sb[16 * 16];
    for (int i = threadIdx.x; i < 256; i += 32) sb[i] = B.p[(i / 16) * B.ld + i % 16];
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    wmma::load_matrix_sync(fa, A.p, A.ld);
    wmma::load_matrix_sync(fb, sb, 16);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(C, fc, 16, wmma::mem_row_major);
}

int main()
{
    Mat a{nullptr, 1024}, b{nullptr, 1024};
    float *c = nullptr;
    mm<<<1, 32>>>(a, b, c);
    return 0;
}
