// bankism test kernel: the WMMA shapes besides m16n16k16 (m32n8k16, m8n32k16 of half; bf16
// m16n16k16; tf32 m16n16k8; double m8n8k4), each fragment loaded from shared memory in both
// layouts and the accumulators stored in both layouts.
//
// Two warps; warp w works on tile w of each array. Every input element is 1, so every element of
// an accumulator after one mma_sync from zero is the shape's K (16, 8 or 4), after two 2K; the host
// checks every stored accumulator. bf16, tf32 and double fragments are loaded and stored with generic
// (LD/ST), not shared (LDS/STS), instructions by nvcc 13.0 for sm_90: see traces/wmma_sass/.
//
// Usage: wmma_shapes
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstdio>
#include <vector>
using namespace nvcuda;

constexpr int WARPS = 2, PAD = 8;

template <typename T>
__device__ void fill(T* tile, int n, const float* ones)
{
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        tile[i] = static_cast<T>(ones[i % 64]);
}

__global__ void wmma_shapes(const float* ones, float* out, double* dout)
{
    __shared__ __align__(128) half Ha[WARPS][32][16];            // 32-byte rows
    __shared__ __align__(128) half Hp[WARPS][32][16 + PAD];      // 48-byte rows
    __shared__ __align__(128) half Hk[WARPS][2][16][32];         // 64-byte rows
    __shared__ __align__(128) float Cf[WARPS][32][8 + 4];
    __shared__ __align__(128) float Ct[WARPS][8][32 + 4];
    __shared__ __align__(128) half Ch[WARPS][8][32 + PAD];
    __shared__ __align__(128) half Ch2[WARPS][32][8 + PAD];
    __shared__ __align__(128) __nv_bfloat16 Bf[WARPS][4][16][16 + PAD];
    __shared__ __align__(128) float Bc[WARPS][16][16];
    __shared__ __align__(128) float Tf[WARPS][4][16][16];
    __shared__ __align__(128) float Ta[WARPS][16][16 + 4];
    __shared__ __align__(128) float Ta2[WARPS][16][16 + 4];
    __shared__ __align__(128) double Dd[WARPS][4][8][8];
    __shared__ __align__(128) double Dc[WARPS][8][8 + 2];
    __shared__ __align__(128) double Dc2[WARPS][8][8 + 2];
    const int warp = threadIdx.x / 32;
    fill(&Ha[0][0][0], WARPS * 32 * 16, ones);
    fill(&Hp[0][0][0], WARPS * 32 * (16 + PAD), ones);
    fill(&Hk[0][0][0][0], WARPS * 2 * 16 * 32, ones);
    fill(&Bf[0][0][0][0], WARPS * 4 * 16 * (16 + PAD), ones);
    fill(&Tf[0][0][0][0], WARPS * 4 * 16 * 16, ones);
    fill(&Dd[0][0][0][0], WARPS * 4 * 8 * 8, ones);
    __syncthreads();

    // m32n8k16, half
    wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::row_major> a32_row;
    wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::col_major> a32_col;
    wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::row_major> b32_row;
    wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::col_major> b32_col;
    wmma::fragment<wmma::accumulator, 32, 8, 16, float> c32;
    wmma::load_matrix_sync(a32_row, &Ha[warp][0][0], 16);
    wmma::load_matrix_sync(a32_col, &Hk[warp][0][0][0], 32);
    wmma::load_matrix_sync(b32_row, &Hk[warp][1][0][0], 32);
    wmma::load_matrix_sync(b32_col, &Hp[warp][0][0], 16 + PAD);
    wmma::fill_fragment(c32, 0.0f);
    wmma::mma_sync(c32, a32_row, b32_col, c32);
    wmma::store_matrix_sync(&Cf[warp][0][0], c32, 8 + 4, wmma::mem_row_major);
    wmma::mma_sync(c32, a32_col, b32_row, c32);
    wmma::store_matrix_sync(&Ct[warp][0][0], c32, 32 + 4, wmma::mem_col_major);

    // m8n32k16, half
    wmma::fragment<wmma::matrix_a, 8, 32, 16, half, wmma::row_major> a8_row;
    wmma::fragment<wmma::matrix_a, 8, 32, 16, half, wmma::col_major> a8_col;
    wmma::fragment<wmma::matrix_b, 8, 32, 16, half, wmma::row_major> b8_row;
    wmma::fragment<wmma::matrix_b, 8, 32, 16, half, wmma::col_major> b8_col;
    wmma::fragment<wmma::accumulator, 8, 32, 16, half> h8;
    wmma::load_matrix_sync(a8_row, &Hp[warp][8][0], 16 + PAD);
    wmma::load_matrix_sync(a8_col, &Hk[warp][0][0][0], 16);
    wmma::load_matrix_sync(b8_row, &Hk[warp][1][0][0], 16);
    wmma::load_matrix_sync(b8_col, &Ha[warp][0][0], 16);
    wmma::fill_fragment(h8, __float2half(0.0f));
    wmma::mma_sync(h8, a8_row, b8_col, h8);
    wmma::store_matrix_sync(&Ch[warp][0][0], h8, 32 + PAD, wmma::mem_row_major);
    wmma::store_matrix_sync(&Ch2[warp][0][0], h8, 8 + PAD, wmma::mem_col_major);
    __syncwarp();
    wmma::load_matrix_sync(h8, &Ch2[warp][0][0], 8 + PAD, wmma::mem_col_major);
    wmma::mma_sync(h8, a8_col, b8_row, h8);
    wmma::store_matrix_sync(&Ch[warp][0][0], h8, 32 + PAD, wmma::mem_row_major);

    // m16n16k16, bf16 (generic loads)
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> bfa_row;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::col_major> bfa_col;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> bfb_row;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> bfb_col;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> bfc;
    wmma::load_matrix_sync(bfa_row, &Bf[warp][0][0][0], 16 + PAD);
    wmma::load_matrix_sync(bfa_col, &Bf[warp][1][0][0], 16 + PAD);
    wmma::load_matrix_sync(bfb_row, &Bf[warp][2][0][0], 16 + PAD);
    wmma::load_matrix_sync(bfb_col, &Bf[warp][3][0][0], 16);
    wmma::fill_fragment(bfc, 0.0f);
    wmma::mma_sync(bfc, bfa_row, bfb_col, bfc);
    wmma::mma_sync(bfc, bfa_col, bfb_row, bfc);
    wmma::store_matrix_sync(&Bc[warp][0][0], bfc, 16, wmma::mem_row_major);

    // m16n16k8, tf32 (generic loads and stores)
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> ta_row;
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::col_major> ta_col;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> tb_row;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> tb_col;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> tc;
    wmma::load_matrix_sync(ta_row, &Tf[warp][0][0][0], 16);
    wmma::load_matrix_sync(ta_col, &Tf[warp][1][0][0], 16);
    wmma::load_matrix_sync(tb_row, &Tf[warp][2][0][0], 16);
    wmma::load_matrix_sync(tb_col, &Tf[warp][3][0][0], 8);
    wmma::fill_fragment(tc, 0.0f);
    wmma::mma_sync(tc, ta_row, tb_col, tc);
    wmma::store_matrix_sync(&Ta[warp][0][0], tc, 16 + 4, wmma::mem_row_major);
    __syncwarp();
    wmma::load_matrix_sync(tc, &Ta[warp][0][0], 16 + 4, wmma::mem_col_major);
    wmma::mma_sync(tc, ta_col, tb_row, tc);
    wmma::store_matrix_sync(&Ta2[warp][0][0], tc, 16 + 4, wmma::mem_col_major);

    // m8n8k4, double (generic loads and stores)
    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> da_row;
    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::col_major> da_col;
    wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> db_row;
    wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> db_col;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> dc;
    wmma::load_matrix_sync(da_row, &Dd[warp][0][0][0], 8);
    wmma::load_matrix_sync(da_col, &Dd[warp][1][0][0], 8);
    wmma::load_matrix_sync(db_row, &Dd[warp][2][0][0], 8);
    wmma::load_matrix_sync(db_col, &Dd[warp][3][0][0], 4);
    wmma::fill_fragment(dc, 0.0);
    wmma::mma_sync(dc, da_row, db_col, dc);
    wmma::store_matrix_sync(&Dc[warp][0][0], dc, 8 + 2, wmma::mem_row_major);
    __syncwarp();
    wmma::load_matrix_sync(dc, &Dc[warp][0][0], 8 + 2, wmma::mem_col_major);
    wmma::mma_sync(dc, da_col, db_row, dc);
    wmma::store_matrix_sync(&Dc2[warp][0][0], dc, 8 + 2, wmma::mem_col_major);
    __syncthreads();

    // every element written: Cf 16, Ct 32, Ch 32, Ch2 16, Bc 32, Ta 8, Ta2 16, Dc 4, Dc2 8
    for (int i = threadIdx.x; i < WARPS * 256; i += blockDim.x) {
        const int w = i / 256, r = i / 16 % 16, c = i % 16;
        out[0 * WARPS * 256 + i] = Cf[w][r * 2 + c / 8][c % 8];
        out[1 * WARPS * 256 + i] = Ct[w][r / 2][(r % 2) * 16 + c];
        out[2 * WARPS * 256 + i] = __half2float(Ch[w][r / 2][(r % 2) * 16 + c]);
        out[3 * WARPS * 256 + i] = __half2float(Ch2[w][r * 2 + c / 8][c % 8]);
        out[4 * WARPS * 256 + i] = Bc[w][r][c];
        out[5 * WARPS * 256 + i] = Ta[w][r][c];
        out[6 * WARPS * 256 + i] = Ta2[w][r][c];
    }
    for (int i = threadIdx.x; i < WARPS * 64; i += blockDim.x) {
        dout[i] = Dc[i / 64][i / 8 % 8][i % 8];
        dout[WARPS * 64 + i] = Dc2[i / 64][i / 8 % 8][i % 8];
    }
}

int main()
{
    const int n = WARPS * 32 * 32, n_out = 7 * WARPS * 256, n_dout = 2 * WARPS * 64;
    std::vector<float> ones(n, 1.0f), out(n_out);
    std::vector<double> dout(n_dout);
    float *d_ones, *d_out;
    double* d_dout;
    cudaMalloc(&d_ones, n * 4);
    cudaMalloc(&d_out, n_out * 4);
    cudaMalloc(&d_dout, n_dout * 8);
    cudaMemcpy(d_ones, ones.data(), n * 4, cudaMemcpyHostToDevice);
    wmma_shapes<<<1, 32 * WARPS>>>(d_ones, d_out, d_dout);
    cudaError_t error = cudaDeviceSynchronize();
    cudaMemcpy(out.data(), d_out, n_out * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(dout.data(), d_dout, n_dout * 8, cudaMemcpyDeviceToHost);
    const float expected[7] = {16, 32, 32, 16, 32, 8, 16};
    int bad = 0;
    for (int region = 0; region < 7; ++region) {
        int wrong = 0;
        for (int i = region * WARPS * 256; i < (region + 1) * WARPS * 256; ++i)
            if (out[i] != expected[region]) {
                if (!wrong) printf("region %d: out[%d] = %g, expected %g\n", region, i, out[i], expected[region]);
                ++wrong;
            }
        bad += wrong;
    }
    for (int i = 0; i < n_dout; ++i)
        if (dout[i] != (i < WARPS * 64 ? 4.0 : 8.0)) {
            if (bad < 1000) printf("dout[%d] = %g\n", i, dout[i]);
            bad += 1000;
        }
    printf("wmma_shapes: %s, %d wrong\n", cudaGetErrorString(error), bad);
    return bad == 0 && error == cudaSuccess ? 0 : 1;
}
