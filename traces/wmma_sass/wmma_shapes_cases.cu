#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using namespace nvcuda;
template <int LD> __global__ void h16_a_row(const half* in, float* out) {
 __shared__ __align__(128) half S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = in[i];
 __syncthreads();
 wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> f;
 wmma::load_matrix_sync(f, S, LD);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void h16_a_row<40>(const half*, float*);
template __global__ void h16_a_row<72>(const half*, float*);
template <int LD> __global__ void h16_a_col(const half* in, float* out) {
 __shared__ __align__(128) half S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = in[i];
 __syncthreads();
 wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::col_major> f;
 wmma::load_matrix_sync(f, S, LD);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void h16_a_col<40>(const half*, float*);
template __global__ void h16_a_col<72>(const half*, float*);
template <int LD> __global__ void h16_b_row(const half* in, float* out) {
 __shared__ __align__(128) half S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = in[i];
 __syncthreads();
 wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> f;
 wmma::load_matrix_sync(f, S, LD);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void h16_b_row<40>(const half*, float*);
template __global__ void h16_b_row<72>(const half*, float*);
template <int LD> __global__ void h16_b_col(const half* in, float* out) {
 __shared__ __align__(128) half S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = in[i];
 __syncthreads();
 wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> f;
 wmma::load_matrix_sync(f, S, LD);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void h16_b_col<40>(const half*, float*);
template __global__ void h16_b_col<72>(const half*, float*);
template <int LD> __global__ void h16_cf_ld_row(const half* in, float* out) {
 __shared__ __align__(128) float S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (float)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 16, 16, 16, float> f;
 wmma::load_matrix_sync(f, S, LD, wmma::mem_row_major);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void h16_cf_ld_row<40>(const half*, float*);
template __global__ void h16_cf_ld_row<72>(const half*, float*);
template <int LD> __global__ void h16_cf_st_row(const half* in, float* out) {
 __shared__ __align__(128) float S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (float)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 16, 16, 16, float> f;
 for (int i = 0; i < f.num_elements; i++) f.x[i] = (float)in[threadIdx.x*f.num_elements+i];
 wmma::store_matrix_sync(S, f, LD, wmma::mem_row_major);
 __syncthreads(); out[threadIdx.x] = (float)S[threadIdx.x*7];
}
template __global__ void h16_cf_st_row<40>(const half*, float*);
template __global__ void h16_cf_st_row<72>(const half*, float*);
template <int LD> __global__ void h16_cf_ld_col(const half* in, float* out) {
 __shared__ __align__(128) float S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (float)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 16, 16, 16, float> f;
 wmma::load_matrix_sync(f, S, LD, wmma::mem_col_major);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void h16_cf_ld_col<40>(const half*, float*);
template __global__ void h16_cf_ld_col<72>(const half*, float*);
template <int LD> __global__ void h16_cf_st_col(const half* in, float* out) {
 __shared__ __align__(128) float S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (float)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 16, 16, 16, float> f;
 for (int i = 0; i < f.num_elements; i++) f.x[i] = (float)in[threadIdx.x*f.num_elements+i];
 wmma::store_matrix_sync(S, f, LD, wmma::mem_col_major);
 __syncthreads(); out[threadIdx.x] = (float)S[threadIdx.x*7];
}
template __global__ void h16_cf_st_col<40>(const half*, float*);
template __global__ void h16_cf_st_col<72>(const half*, float*);
template <int LD> __global__ void h16_ch_ld_row(const half* in, float* out) {
 __shared__ __align__(128) half S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (half)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 16, 16, 16, half> f;
 wmma::load_matrix_sync(f, S, LD, wmma::mem_row_major);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void h16_ch_ld_row<40>(const half*, float*);
template __global__ void h16_ch_ld_row<72>(const half*, float*);
template <int LD> __global__ void h16_ch_st_row(const half* in, float* out) {
 __shared__ __align__(128) half S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (half)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 16, 16, 16, half> f;
 for (int i = 0; i < f.num_elements; i++) f.x[i] = (half)in[threadIdx.x*f.num_elements+i];
 wmma::store_matrix_sync(S, f, LD, wmma::mem_row_major);
 __syncthreads(); out[threadIdx.x] = (float)S[threadIdx.x*7];
}
template __global__ void h16_ch_st_row<40>(const half*, float*);
template __global__ void h16_ch_st_row<72>(const half*, float*);
template <int LD> __global__ void h16_ch_ld_col(const half* in, float* out) {
 __shared__ __align__(128) half S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (half)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 16, 16, 16, half> f;
 wmma::load_matrix_sync(f, S, LD, wmma::mem_col_major);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void h16_ch_ld_col<40>(const half*, float*);
template __global__ void h16_ch_ld_col<72>(const half*, float*);
template <int LD> __global__ void h16_ch_st_col(const half* in, float* out) {
 __shared__ __align__(128) half S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (half)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 16, 16, 16, half> f;
 for (int i = 0; i < f.num_elements; i++) f.x[i] = (half)in[threadIdx.x*f.num_elements+i];
 wmma::store_matrix_sync(S, f, LD, wmma::mem_col_major);
 __syncthreads(); out[threadIdx.x] = (float)S[threadIdx.x*7];
}
template __global__ void h16_ch_st_col<40>(const half*, float*);
template __global__ void h16_ch_st_col<72>(const half*, float*);
template <int LD> __global__ void h32x8_a_row(const half* in, float* out) {
 __shared__ __align__(128) half S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = in[i];
 __syncthreads();
 wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::row_major> f;
 wmma::load_matrix_sync(f, S, LD);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void h32x8_a_row<40>(const half*, float*);
template __global__ void h32x8_a_row<72>(const half*, float*);
template <int LD> __global__ void h32x8_a_col(const half* in, float* out) {
 __shared__ __align__(128) half S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = in[i];
 __syncthreads();
 wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::col_major> f;
 wmma::load_matrix_sync(f, S, LD);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void h32x8_a_col<40>(const half*, float*);
template __global__ void h32x8_a_col<72>(const half*, float*);
template <int LD> __global__ void h32x8_b_row(const half* in, float* out) {
 __shared__ __align__(128) half S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = in[i];
 __syncthreads();
 wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::row_major> f;
 wmma::load_matrix_sync(f, S, LD);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void h32x8_b_row<40>(const half*, float*);
template __global__ void h32x8_b_row<72>(const half*, float*);
template <int LD> __global__ void h32x8_b_col(const half* in, float* out) {
 __shared__ __align__(128) half S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = in[i];
 __syncthreads();
 wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::col_major> f;
 wmma::load_matrix_sync(f, S, LD);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void h32x8_b_col<40>(const half*, float*);
template __global__ void h32x8_b_col<72>(const half*, float*);
template <int LD> __global__ void h32x8_cf_ld_row(const half* in, float* out) {
 __shared__ __align__(128) float S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (float)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 32, 8, 16, float> f;
 wmma::load_matrix_sync(f, S, LD, wmma::mem_row_major);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void h32x8_cf_ld_row<40>(const half*, float*);
template __global__ void h32x8_cf_ld_row<72>(const half*, float*);
template <int LD> __global__ void h32x8_cf_st_row(const half* in, float* out) {
 __shared__ __align__(128) float S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (float)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 32, 8, 16, float> f;
 for (int i = 0; i < f.num_elements; i++) f.x[i] = (float)in[threadIdx.x*f.num_elements+i];
 wmma::store_matrix_sync(S, f, LD, wmma::mem_row_major);
 __syncthreads(); out[threadIdx.x] = (float)S[threadIdx.x*7];
}
template __global__ void h32x8_cf_st_row<40>(const half*, float*);
template __global__ void h32x8_cf_st_row<72>(const half*, float*);
template <int LD> __global__ void h32x8_cf_ld_col(const half* in, float* out) {
 __shared__ __align__(128) float S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (float)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 32, 8, 16, float> f;
 wmma::load_matrix_sync(f, S, LD, wmma::mem_col_major);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void h32x8_cf_ld_col<40>(const half*, float*);
template __global__ void h32x8_cf_ld_col<72>(const half*, float*);
template <int LD> __global__ void h32x8_cf_st_col(const half* in, float* out) {
 __shared__ __align__(128) float S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (float)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 32, 8, 16, float> f;
 for (int i = 0; i < f.num_elements; i++) f.x[i] = (float)in[threadIdx.x*f.num_elements+i];
 wmma::store_matrix_sync(S, f, LD, wmma::mem_col_major);
 __syncthreads(); out[threadIdx.x] = (float)S[threadIdx.x*7];
}
template __global__ void h32x8_cf_st_col<40>(const half*, float*);
template __global__ void h32x8_cf_st_col<72>(const half*, float*);
template <int LD> __global__ void h32x8_ch_ld_row(const half* in, float* out) {
 __shared__ __align__(128) half S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (half)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 32, 8, 16, half> f;
 wmma::load_matrix_sync(f, S, LD, wmma::mem_row_major);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void h32x8_ch_ld_row<40>(const half*, float*);
template __global__ void h32x8_ch_ld_row<72>(const half*, float*);
template <int LD> __global__ void h32x8_ch_st_row(const half* in, float* out) {
 __shared__ __align__(128) half S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (half)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 32, 8, 16, half> f;
 for (int i = 0; i < f.num_elements; i++) f.x[i] = (half)in[threadIdx.x*f.num_elements+i];
 wmma::store_matrix_sync(S, f, LD, wmma::mem_row_major);
 __syncthreads(); out[threadIdx.x] = (float)S[threadIdx.x*7];
}
template __global__ void h32x8_ch_st_row<40>(const half*, float*);
template __global__ void h32x8_ch_st_row<72>(const half*, float*);
template <int LD> __global__ void h32x8_ch_ld_col(const half* in, float* out) {
 __shared__ __align__(128) half S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (half)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 32, 8, 16, half> f;
 wmma::load_matrix_sync(f, S, LD, wmma::mem_col_major);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void h32x8_ch_ld_col<40>(const half*, float*);
template __global__ void h32x8_ch_ld_col<72>(const half*, float*);
template <int LD> __global__ void h32x8_ch_st_col(const half* in, float* out) {
 __shared__ __align__(128) half S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (half)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 32, 8, 16, half> f;
 for (int i = 0; i < f.num_elements; i++) f.x[i] = (half)in[threadIdx.x*f.num_elements+i];
 wmma::store_matrix_sync(S, f, LD, wmma::mem_col_major);
 __syncthreads(); out[threadIdx.x] = (float)S[threadIdx.x*7];
}
template __global__ void h32x8_ch_st_col<40>(const half*, float*);
template __global__ void h32x8_ch_st_col<72>(const half*, float*);
template <int LD> __global__ void h8x32_a_row(const half* in, float* out) {
 __shared__ __align__(128) half S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = in[i];
 __syncthreads();
 wmma::fragment<wmma::matrix_a, 8, 32, 16, half, wmma::row_major> f;
 wmma::load_matrix_sync(f, S, LD);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void h8x32_a_row<40>(const half*, float*);
template __global__ void h8x32_a_row<72>(const half*, float*);
template <int LD> __global__ void h8x32_a_col(const half* in, float* out) {
 __shared__ __align__(128) half S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = in[i];
 __syncthreads();
 wmma::fragment<wmma::matrix_a, 8, 32, 16, half, wmma::col_major> f;
 wmma::load_matrix_sync(f, S, LD);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void h8x32_a_col<40>(const half*, float*);
template __global__ void h8x32_a_col<72>(const half*, float*);
template <int LD> __global__ void h8x32_b_row(const half* in, float* out) {
 __shared__ __align__(128) half S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = in[i];
 __syncthreads();
 wmma::fragment<wmma::matrix_b, 8, 32, 16, half, wmma::row_major> f;
 wmma::load_matrix_sync(f, S, LD);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void h8x32_b_row<40>(const half*, float*);
template __global__ void h8x32_b_row<72>(const half*, float*);
template <int LD> __global__ void h8x32_b_col(const half* in, float* out) {
 __shared__ __align__(128) half S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = in[i];
 __syncthreads();
 wmma::fragment<wmma::matrix_b, 8, 32, 16, half, wmma::col_major> f;
 wmma::load_matrix_sync(f, S, LD);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void h8x32_b_col<40>(const half*, float*);
template __global__ void h8x32_b_col<72>(const half*, float*);
template <int LD> __global__ void h8x32_cf_ld_row(const half* in, float* out) {
 __shared__ __align__(128) float S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (float)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 8, 32, 16, float> f;
 wmma::load_matrix_sync(f, S, LD, wmma::mem_row_major);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void h8x32_cf_ld_row<40>(const half*, float*);
template __global__ void h8x32_cf_ld_row<72>(const half*, float*);
template <int LD> __global__ void h8x32_cf_st_row(const half* in, float* out) {
 __shared__ __align__(128) float S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (float)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 8, 32, 16, float> f;
 for (int i = 0; i < f.num_elements; i++) f.x[i] = (float)in[threadIdx.x*f.num_elements+i];
 wmma::store_matrix_sync(S, f, LD, wmma::mem_row_major);
 __syncthreads(); out[threadIdx.x] = (float)S[threadIdx.x*7];
}
template __global__ void h8x32_cf_st_row<40>(const half*, float*);
template __global__ void h8x32_cf_st_row<72>(const half*, float*);
template <int LD> __global__ void h8x32_cf_ld_col(const half* in, float* out) {
 __shared__ __align__(128) float S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (float)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 8, 32, 16, float> f;
 wmma::load_matrix_sync(f, S, LD, wmma::mem_col_major);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void h8x32_cf_ld_col<40>(const half*, float*);
template __global__ void h8x32_cf_ld_col<72>(const half*, float*);
template <int LD> __global__ void h8x32_cf_st_col(const half* in, float* out) {
 __shared__ __align__(128) float S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (float)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 8, 32, 16, float> f;
 for (int i = 0; i < f.num_elements; i++) f.x[i] = (float)in[threadIdx.x*f.num_elements+i];
 wmma::store_matrix_sync(S, f, LD, wmma::mem_col_major);
 __syncthreads(); out[threadIdx.x] = (float)S[threadIdx.x*7];
}
template __global__ void h8x32_cf_st_col<40>(const half*, float*);
template __global__ void h8x32_cf_st_col<72>(const half*, float*);
template <int LD> __global__ void h8x32_ch_ld_row(const half* in, float* out) {
 __shared__ __align__(128) half S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (half)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 8, 32, 16, half> f;
 wmma::load_matrix_sync(f, S, LD, wmma::mem_row_major);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void h8x32_ch_ld_row<40>(const half*, float*);
template __global__ void h8x32_ch_ld_row<72>(const half*, float*);
template <int LD> __global__ void h8x32_ch_st_row(const half* in, float* out) {
 __shared__ __align__(128) half S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (half)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 8, 32, 16, half> f;
 for (int i = 0; i < f.num_elements; i++) f.x[i] = (half)in[threadIdx.x*f.num_elements+i];
 wmma::store_matrix_sync(S, f, LD, wmma::mem_row_major);
 __syncthreads(); out[threadIdx.x] = (float)S[threadIdx.x*7];
}
template __global__ void h8x32_ch_st_row<40>(const half*, float*);
template __global__ void h8x32_ch_st_row<72>(const half*, float*);
template <int LD> __global__ void h8x32_ch_ld_col(const half* in, float* out) {
 __shared__ __align__(128) half S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (half)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 8, 32, 16, half> f;
 wmma::load_matrix_sync(f, S, LD, wmma::mem_col_major);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void h8x32_ch_ld_col<40>(const half*, float*);
template __global__ void h8x32_ch_ld_col<72>(const half*, float*);
template <int LD> __global__ void h8x32_ch_st_col(const half* in, float* out) {
 __shared__ __align__(128) half S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (half)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 8, 32, 16, half> f;
 for (int i = 0; i < f.num_elements; i++) f.x[i] = (half)in[threadIdx.x*f.num_elements+i];
 wmma::store_matrix_sync(S, f, LD, wmma::mem_col_major);
 __syncthreads(); out[threadIdx.x] = (float)S[threadIdx.x*7];
}
template __global__ void h8x32_ch_st_col<40>(const half*, float*);
template __global__ void h8x32_ch_st_col<72>(const half*, float*);
template <int LD> __global__ void tf32_a_row(const float* in, float* out) {
 __shared__ __align__(128) float S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = in[i];
 __syncthreads();
 wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> f;
 wmma::load_matrix_sync(f, S, LD);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void tf32_a_row<40>(const float*, float*);
template __global__ void tf32_a_row<72>(const float*, float*);
template <int LD> __global__ void tf32_a_col(const float* in, float* out) {
 __shared__ __align__(128) float S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = in[i];
 __syncthreads();
 wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::col_major> f;
 wmma::load_matrix_sync(f, S, LD);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void tf32_a_col<40>(const float*, float*);
template __global__ void tf32_a_col<72>(const float*, float*);
template <int LD> __global__ void tf32_b_row(const float* in, float* out) {
 __shared__ __align__(128) float S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = in[i];
 __syncthreads();
 wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> f;
 wmma::load_matrix_sync(f, S, LD);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void tf32_b_row<40>(const float*, float*);
template __global__ void tf32_b_row<72>(const float*, float*);
template <int LD> __global__ void tf32_b_col(const float* in, float* out) {
 __shared__ __align__(128) float S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = in[i];
 __syncthreads();
 wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> f;
 wmma::load_matrix_sync(f, S, LD);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void tf32_b_col<40>(const float*, float*);
template __global__ void tf32_b_col<72>(const float*, float*);
template <int LD> __global__ void tf32_cf_ld_row(const float* in, float* out) {
 __shared__ __align__(128) float S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (float)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 16, 16, 8, float> f;
 wmma::load_matrix_sync(f, S, LD, wmma::mem_row_major);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void tf32_cf_ld_row<40>(const float*, float*);
template __global__ void tf32_cf_ld_row<72>(const float*, float*);
template <int LD> __global__ void tf32_cf_st_row(const float* in, float* out) {
 __shared__ __align__(128) float S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (float)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 16, 16, 8, float> f;
 for (int i = 0; i < f.num_elements; i++) f.x[i] = (float)in[threadIdx.x*f.num_elements+i];
 wmma::store_matrix_sync(S, f, LD, wmma::mem_row_major);
 __syncthreads(); out[threadIdx.x] = (float)S[threadIdx.x*7];
}
template __global__ void tf32_cf_st_row<40>(const float*, float*);
template __global__ void tf32_cf_st_row<72>(const float*, float*);
template <int LD> __global__ void tf32_cf_ld_col(const float* in, float* out) {
 __shared__ __align__(128) float S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (float)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 16, 16, 8, float> f;
 wmma::load_matrix_sync(f, S, LD, wmma::mem_col_major);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void tf32_cf_ld_col<40>(const float*, float*);
template __global__ void tf32_cf_ld_col<72>(const float*, float*);
template <int LD> __global__ void tf32_cf_st_col(const float* in, float* out) {
 __shared__ __align__(128) float S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (float)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 16, 16, 8, float> f;
 for (int i = 0; i < f.num_elements; i++) f.x[i] = (float)in[threadIdx.x*f.num_elements+i];
 wmma::store_matrix_sync(S, f, LD, wmma::mem_col_major);
 __syncthreads(); out[threadIdx.x] = (float)S[threadIdx.x*7];
}
template __global__ void tf32_cf_st_col<40>(const float*, float*);
template __global__ void tf32_cf_st_col<72>(const float*, float*);
template <int LD> __global__ void d884_a_row(const double* in, float* out) {
 __shared__ __align__(128) double S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = in[i];
 __syncthreads();
 wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> f;
 wmma::load_matrix_sync(f, S, LD);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void d884_a_row<40>(const double*, float*);
template __global__ void d884_a_row<72>(const double*, float*);
template <int LD> __global__ void d884_a_col(const double* in, float* out) {
 __shared__ __align__(128) double S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = in[i];
 __syncthreads();
 wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::col_major> f;
 wmma::load_matrix_sync(f, S, LD);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void d884_a_col<40>(const double*, float*);
template __global__ void d884_a_col<72>(const double*, float*);
template <int LD> __global__ void d884_b_row(const double* in, float* out) {
 __shared__ __align__(128) double S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = in[i];
 __syncthreads();
 wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> f;
 wmma::load_matrix_sync(f, S, LD);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void d884_b_row<40>(const double*, float*);
template __global__ void d884_b_row<72>(const double*, float*);
template <int LD> __global__ void d884_b_col(const double* in, float* out) {
 __shared__ __align__(128) double S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = in[i];
 __syncthreads();
 wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> f;
 wmma::load_matrix_sync(f, S, LD);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void d884_b_col<40>(const double*, float*);
template __global__ void d884_b_col<72>(const double*, float*);
template <int LD> __global__ void d884_cd_ld_row(const double* in, float* out) {
 __shared__ __align__(128) double S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (double)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 8, 8, 4, double> f;
 wmma::load_matrix_sync(f, S, LD, wmma::mem_row_major);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void d884_cd_ld_row<40>(const double*, float*);
template __global__ void d884_cd_ld_row<72>(const double*, float*);
template <int LD> __global__ void d884_cd_st_row(const double* in, float* out) {
 __shared__ __align__(128) double S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (double)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 8, 8, 4, double> f;
 for (int i = 0; i < f.num_elements; i++) f.x[i] = (double)in[threadIdx.x*f.num_elements+i];
 wmma::store_matrix_sync(S, f, LD, wmma::mem_row_major);
 __syncthreads(); out[threadIdx.x] = (float)S[threadIdx.x*7];
}
template __global__ void d884_cd_st_row<40>(const double*, float*);
template __global__ void d884_cd_st_row<72>(const double*, float*);
template <int LD> __global__ void d884_cd_ld_col(const double* in, float* out) {
 __shared__ __align__(128) double S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (double)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 8, 8, 4, double> f;
 wmma::load_matrix_sync(f, S, LD, wmma::mem_col_major);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void d884_cd_ld_col<40>(const double*, float*);
template __global__ void d884_cd_ld_col<72>(const double*, float*);
template <int LD> __global__ void d884_cd_st_col(const double* in, float* out) {
 __shared__ __align__(128) double S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (double)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 8, 8, 4, double> f;
 for (int i = 0; i < f.num_elements; i++) f.x[i] = (double)in[threadIdx.x*f.num_elements+i];
 wmma::store_matrix_sync(S, f, LD, wmma::mem_col_major);
 __syncthreads(); out[threadIdx.x] = (float)S[threadIdx.x*7];
}
template __global__ void d884_cd_st_col<40>(const double*, float*);
template __global__ void d884_cd_st_col<72>(const double*, float*);
template <int LD> __global__ void bf32x8_a_row(const __nv_bfloat16* in, float* out) {
 __shared__ __align__(128) __nv_bfloat16 S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = in[i];
 __syncthreads();
 wmma::fragment<wmma::matrix_a, 32, 8, 16, __nv_bfloat16, wmma::row_major> f;
 wmma::load_matrix_sync(f, S, LD);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void bf32x8_a_row<40>(const __nv_bfloat16*, float*);
template __global__ void bf32x8_a_row<72>(const __nv_bfloat16*, float*);
template <int LD> __global__ void bf32x8_a_col(const __nv_bfloat16* in, float* out) {
 __shared__ __align__(128) __nv_bfloat16 S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = in[i];
 __syncthreads();
 wmma::fragment<wmma::matrix_a, 32, 8, 16, __nv_bfloat16, wmma::col_major> f;
 wmma::load_matrix_sync(f, S, LD);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void bf32x8_a_col<40>(const __nv_bfloat16*, float*);
template __global__ void bf32x8_a_col<72>(const __nv_bfloat16*, float*);
template <int LD> __global__ void bf32x8_b_row(const __nv_bfloat16* in, float* out) {
 __shared__ __align__(128) __nv_bfloat16 S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = in[i];
 __syncthreads();
 wmma::fragment<wmma::matrix_b, 32, 8, 16, __nv_bfloat16, wmma::row_major> f;
 wmma::load_matrix_sync(f, S, LD);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void bf32x8_b_row<40>(const __nv_bfloat16*, float*);
template __global__ void bf32x8_b_row<72>(const __nv_bfloat16*, float*);
template <int LD> __global__ void bf32x8_b_col(const __nv_bfloat16* in, float* out) {
 __shared__ __align__(128) __nv_bfloat16 S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = in[i];
 __syncthreads();
 wmma::fragment<wmma::matrix_b, 32, 8, 16, __nv_bfloat16, wmma::col_major> f;
 wmma::load_matrix_sync(f, S, LD);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void bf32x8_b_col<40>(const __nv_bfloat16*, float*);
template __global__ void bf32x8_b_col<72>(const __nv_bfloat16*, float*);
template <int LD> __global__ void bf32x8_cf_ld_row(const __nv_bfloat16* in, float* out) {
 __shared__ __align__(128) float S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (float)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 32, 8, 16, float> f;
 wmma::load_matrix_sync(f, S, LD, wmma::mem_row_major);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void bf32x8_cf_ld_row<40>(const __nv_bfloat16*, float*);
template __global__ void bf32x8_cf_ld_row<72>(const __nv_bfloat16*, float*);
template <int LD> __global__ void bf32x8_cf_st_row(const __nv_bfloat16* in, float* out) {
 __shared__ __align__(128) float S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (float)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 32, 8, 16, float> f;
 for (int i = 0; i < f.num_elements; i++) f.x[i] = (float)in[threadIdx.x*f.num_elements+i];
 wmma::store_matrix_sync(S, f, LD, wmma::mem_row_major);
 __syncthreads(); out[threadIdx.x] = (float)S[threadIdx.x*7];
}
template __global__ void bf32x8_cf_st_row<40>(const __nv_bfloat16*, float*);
template __global__ void bf32x8_cf_st_row<72>(const __nv_bfloat16*, float*);
template <int LD> __global__ void bf32x8_cf_ld_col(const __nv_bfloat16* in, float* out) {
 __shared__ __align__(128) float S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (float)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 32, 8, 16, float> f;
 wmma::load_matrix_sync(f, S, LD, wmma::mem_col_major);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void bf32x8_cf_ld_col<40>(const __nv_bfloat16*, float*);
template __global__ void bf32x8_cf_ld_col<72>(const __nv_bfloat16*, float*);
template <int LD> __global__ void bf32x8_cf_st_col(const __nv_bfloat16* in, float* out) {
 __shared__ __align__(128) float S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (float)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 32, 8, 16, float> f;
 for (int i = 0; i < f.num_elements; i++) f.x[i] = (float)in[threadIdx.x*f.num_elements+i];
 wmma::store_matrix_sync(S, f, LD, wmma::mem_col_major);
 __syncthreads(); out[threadIdx.x] = (float)S[threadIdx.x*7];
}
template __global__ void bf32x8_cf_st_col<40>(const __nv_bfloat16*, float*);
template __global__ void bf32x8_cf_st_col<72>(const __nv_bfloat16*, float*);
template <int LD> __global__ void s8_32x8_a_row(const signed char* in, float* out) {
 __shared__ __align__(128) signed char S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = in[i];
 __syncthreads();
 wmma::fragment<wmma::matrix_a, 32, 8, 16, signed char, wmma::row_major> f;
 wmma::load_matrix_sync(f, S, LD);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void s8_32x8_a_row<40>(const signed char*, float*);
template __global__ void s8_32x8_a_row<72>(const signed char*, float*);
template <int LD> __global__ void s8_32x8_a_col(const signed char* in, float* out) {
 __shared__ __align__(128) signed char S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = in[i];
 __syncthreads();
 wmma::fragment<wmma::matrix_a, 32, 8, 16, signed char, wmma::col_major> f;
 wmma::load_matrix_sync(f, S, LD);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void s8_32x8_a_col<40>(const signed char*, float*);
template __global__ void s8_32x8_a_col<72>(const signed char*, float*);
template <int LD> __global__ void s8_32x8_b_row(const signed char* in, float* out) {
 __shared__ __align__(128) signed char S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = in[i];
 __syncthreads();
 wmma::fragment<wmma::matrix_b, 32, 8, 16, signed char, wmma::row_major> f;
 wmma::load_matrix_sync(f, S, LD);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void s8_32x8_b_row<40>(const signed char*, float*);
template __global__ void s8_32x8_b_row<72>(const signed char*, float*);
template <int LD> __global__ void s8_32x8_b_col(const signed char* in, float* out) {
 __shared__ __align__(128) signed char S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = in[i];
 __syncthreads();
 wmma::fragment<wmma::matrix_b, 32, 8, 16, signed char, wmma::col_major> f;
 wmma::load_matrix_sync(f, S, LD);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void s8_32x8_b_col<40>(const signed char*, float*);
template __global__ void s8_32x8_b_col<72>(const signed char*, float*);
template <int LD> __global__ void s8_32x8_ci_ld_row(const signed char* in, float* out) {
 __shared__ __align__(128) int S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (int)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 32, 8, 16, int> f;
 wmma::load_matrix_sync(f, S, LD, wmma::mem_row_major);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void s8_32x8_ci_ld_row<40>(const signed char*, float*);
template __global__ void s8_32x8_ci_ld_row<72>(const signed char*, float*);
template <int LD> __global__ void s8_32x8_ci_st_row(const signed char* in, float* out) {
 __shared__ __align__(128) int S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (int)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 32, 8, 16, int> f;
 for (int i = 0; i < f.num_elements; i++) f.x[i] = (int)in[threadIdx.x*f.num_elements+i];
 wmma::store_matrix_sync(S, f, LD, wmma::mem_row_major);
 __syncthreads(); out[threadIdx.x] = (float)S[threadIdx.x*7];
}
template __global__ void s8_32x8_ci_st_row<40>(const signed char*, float*);
template __global__ void s8_32x8_ci_st_row<72>(const signed char*, float*);
template <int LD> __global__ void s8_32x8_ci_ld_col(const signed char* in, float* out) {
 __shared__ __align__(128) int S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (int)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 32, 8, 16, int> f;
 wmma::load_matrix_sync(f, S, LD, wmma::mem_col_major);
 for (int i = 0; i < f.num_elements; i++) out[threadIdx.x*f.num_elements+i] = (float)f.x[i];
}
template __global__ void s8_32x8_ci_ld_col<40>(const signed char*, float*);
template __global__ void s8_32x8_ci_ld_col<72>(const signed char*, float*);
template <int LD> __global__ void s8_32x8_ci_st_col(const signed char* in, float* out) {
 __shared__ __align__(128) int S[64*LD];
 for (int i = threadIdx.x; i < 64*LD; i += 32) S[i] = (int)in[i];
 __syncthreads();
 wmma::fragment<wmma::accumulator, 32, 8, 16, int> f;
 for (int i = 0; i < f.num_elements; i++) f.x[i] = (int)in[threadIdx.x*f.num_elements+i];
 wmma::store_matrix_sync(S, f, LD, wmma::mem_col_major);
 __syncthreads(); out[threadIdx.x] = (float)S[threadIdx.x*7];
}
template __global__ void s8_32x8_ci_st_col<40>(const signed char*, float*);
template __global__ void s8_32x8_ci_st_col<72>(const signed char*, float*);
