#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;
template <int LD> __global__ void a_row(const float* in, float* out) {
 __shared__ __align__(128) half S[16*LD];
 for (int i = threadIdx.x; i < 16*LD; i += 32) S[i] = (half)in[i];
 __syncthreads();
 wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> f;
 wmma::load_matrix_sync(f, S, LD);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void a_row<16>(const float*, float*);
template __global__ void a_row<24>(const float*, float*);
template __global__ void a_row<40>(const float*, float*);
template <int LD> __global__ void a_col(const float* in, float* out) {
 __shared__ __align__(128) half S[16*LD];
 for (int i = threadIdx.x; i < 16*LD; i += 32) S[i] = (half)in[i];
 __syncthreads();
 wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::col_major> f;
 wmma::load_matrix_sync(f, S, LD);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void a_col<16>(const float*, float*);
template __global__ void a_col<24>(const float*, float*);
template __global__ void a_col<40>(const float*, float*);
template <int LD> __global__ void b_row(const float* in, float* out) {
 __shared__ __align__(128) half S[16*LD];
 for (int i = threadIdx.x; i < 16*LD; i += 32) S[i] = (half)in[i];
 __syncthreads();
 wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> f;
 wmma::load_matrix_sync(f, S, LD);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void b_row<16>(const float*, float*);
template __global__ void b_row<24>(const float*, float*);
template __global__ void b_row<40>(const float*, float*);
template <int LD> __global__ void b_col(const float* in, float* out) {
 __shared__ __align__(128) half S[16*LD];
 for (int i = threadIdx.x; i < 16*LD; i += 32) S[i] = (half)in[i];
 __syncthreads();
 wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> f;
 wmma::load_matrix_sync(f, S, LD);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void b_col<16>(const float*, float*);
template __global__ void b_col<24>(const float*, float*);
template __global__ void b_col<40>(const float*, float*);
template <int LD> __global__ void cf_ld_row(const float* in, float* out) {
 __shared__ __align__(128) float S[16*LD];
 for (int i = threadIdx.x; i < 16*LD; i += 32) S[i] = (float)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 16, 16, 16, float> f;
 wmma::load_matrix_sync(f, S, LD, wmma::mem_row_major);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void cf_ld_row<16>(const float*, float*);
template __global__ void cf_ld_row<24>(const float*, float*);
template __global__ void cf_ld_row<40>(const float*, float*);
template <int LD> __global__ void cf_ld_col(const float* in, float* out) {
 __shared__ __align__(128) float S[16*LD];
 for (int i = threadIdx.x; i < 16*LD; i += 32) S[i] = (float)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 16, 16, 16, float> f;
 wmma::load_matrix_sync(f, S, LD, wmma::mem_col_major);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void cf_ld_col<16>(const float*, float*);
template __global__ void cf_ld_col<24>(const float*, float*);
template __global__ void cf_ld_col<40>(const float*, float*);
template <int LD> __global__ void cf_st_row(const float* in, float* out) {
 __shared__ __align__(128) float S[16*LD];
 for (int i = threadIdx.x; i < 16*LD; i += 32) S[i] = (float)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 16, 16, 16, float> f;
 for (int i = 0; i < f.num_elements; i++) f.x[i] = (float)in[threadIdx.x*f.num_elements+i];
 wmma::store_matrix_sync(S, f, LD, wmma::mem_row_major);
 __syncthreads(); out[threadIdx.x] = (float)S[threadIdx.x*7];
}
template __global__ void cf_st_row<16>(const float*, float*);
template __global__ void cf_st_row<24>(const float*, float*);
template __global__ void cf_st_row<40>(const float*, float*);
template <int LD> __global__ void cf_st_col(const float* in, float* out) {
 __shared__ __align__(128) float S[16*LD];
 for (int i = threadIdx.x; i < 16*LD; i += 32) S[i] = (float)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 16, 16, 16, float> f;
 for (int i = 0; i < f.num_elements; i++) f.x[i] = (float)in[threadIdx.x*f.num_elements+i];
 wmma::store_matrix_sync(S, f, LD, wmma::mem_col_major);
 __syncthreads(); out[threadIdx.x] = (float)S[threadIdx.x*7];
}
template __global__ void cf_st_col<16>(const float*, float*);
template __global__ void cf_st_col<24>(const float*, float*);
template __global__ void cf_st_col<40>(const float*, float*);
template <int LD> __global__ void ch_ld_row(const float* in, float* out) {
 __shared__ __align__(128) half S[16*LD];
 for (int i = threadIdx.x; i < 16*LD; i += 32) S[i] = (half)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 16, 16, 16, half> f;
 wmma::load_matrix_sync(f, S, LD, wmma::mem_row_major);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void ch_ld_row<16>(const float*, float*);
template __global__ void ch_ld_row<24>(const float*, float*);
template __global__ void ch_ld_row<40>(const float*, float*);
template <int LD> __global__ void ch_ld_col(const float* in, float* out) {
 __shared__ __align__(128) half S[16*LD];
 for (int i = threadIdx.x; i < 16*LD; i += 32) S[i] = (half)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 16, 16, 16, half> f;
 wmma::load_matrix_sync(f, S, LD, wmma::mem_col_major);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void ch_ld_col<16>(const float*, float*);
template __global__ void ch_ld_col<24>(const float*, float*);
template __global__ void ch_ld_col<40>(const float*, float*);
template <int LD> __global__ void ch_st_row(const float* in, float* out) {
 __shared__ __align__(128) half S[16*LD];
 for (int i = threadIdx.x; i < 16*LD; i += 32) S[i] = (half)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 16, 16, 16, half> f;
 for (int i = 0; i < f.num_elements; i++) f.x[i] = (half)in[threadIdx.x*f.num_elements+i];
 wmma::store_matrix_sync(S, f, LD, wmma::mem_row_major);
 __syncthreads(); out[threadIdx.x] = (float)S[threadIdx.x*7];
}
template __global__ void ch_st_row<16>(const float*, float*);
template __global__ void ch_st_row<24>(const float*, float*);
template __global__ void ch_st_row<40>(const float*, float*);
template <int LD> __global__ void ch_st_col(const float* in, float* out) {
 __shared__ __align__(128) half S[16*LD];
 for (int i = threadIdx.x; i < 16*LD; i += 32) S[i] = (half)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 16, 16, 16, half> f;
 for (int i = 0; i < f.num_elements; i++) f.x[i] = (half)in[threadIdx.x*f.num_elements+i];
 wmma::store_matrix_sync(S, f, LD, wmma::mem_col_major);
 __syncthreads(); out[threadIdx.x] = (float)S[threadIdx.x*7];
}
template __global__ void ch_st_col<16>(const float*, float*);
template __global__ void ch_st_col<24>(const float*, float*);
template __global__ void ch_st_col<40>(const float*, float*);
