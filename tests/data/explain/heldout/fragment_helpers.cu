// heldout: arrays of WMMA fragments passed to helpers as `fragment *frag` and `fragment frag[]`
// (an array decays to a pointer to its first element); the same tiles as tc_constructs.cu's
// fragment_arrays, so the sites cost what they cost there.
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

constexpr int LDA = 24, LDC = 20;

__device__ void load_a(wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> *frag,
                       const half *tile) {
  for (int i = 0; i < 2; ++i)
    wmma::load_matrix_sync(frag[i], tile + i * 16 * LDA, LDA);
}

__device__ void store_c(float *tile, wmma::fragment<wmma::accumulator, 16, 16, 16, float> frag[]) {
  for (int i = 0; i < 2; ++i)
    wmma::store_matrix_sync(tile + i * 16 * LDC, frag[i], LDC, wmma::mem_row_major);
}

__device__ void put(float row[], int i) { row[i] = 1.0f; }  // `T p[]` is a `T *p`

__global__ void fragment_helpers(const half *A, float *C) {
  __shared__ __align__(128) half As[2][16][LDA];
  __shared__ __align__(128) float Cs[2][16][LDC];
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a[2];
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2];
  for (int i = threadIdx.x; i < 2 * 16 * LDA; i += blockDim.x)
    As[i / (16 * LDA)][i / LDA % 16][i % LDA] = A[i];
  __syncthreads();
  load_a(a, &As[0][0][0]);
  wmma::load_matrix_sync(b, &As[1][0][0], LDA);
  for (int i = 0; i < 2; ++i) {
    wmma::fill_fragment(acc[i], 0.0f);
    wmma::mma_sync(acc[i], a[i], b, acc[i]);
  }
  store_c(&Cs[0][0][0], acc);
  put(&Cs[1][0][0], 2 * threadIdx.x);
  __syncthreads();
  C[threadIdx.x] = Cs[0][threadIdx.x / LDC][threadIdx.x % LDC];
}

int main() { fragment_helpers<<<1, 32>>>(0, 0); }
