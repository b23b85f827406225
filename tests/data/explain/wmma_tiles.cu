// bankism test kernel: WMMA m16n16k16 fragments loaded from unpadded and padded shared tiles,
// in every layout, and accumulators stored and reloaded through shared memory.
//
// Two warps; warp w works on tile w of each array. A tile row of As is 16 halves (32 bytes),
// of Ap 16 + PAD halves (48 bytes). The kernel computes, per warp,
//   acc  = A * B (B col-major from Bs) + A * B' (B' row-major from Bs), A from As and Ap,
//   hacc = A^T * B in half precision (A col-major from Ap),
// stores acc row-major to Cs and hacc col-major to Hs, reloads Cs col-major (its transpose)
// and stores that col-major to Cp. The host checks Cp and Hs.
//
// Usage: wmma_tiles
#include <mma.h>
#include <cuda_fp16.h>
#include <cstdio>
#include <vector>
using namespace nvcuda;

constexpr int PAD = 8, CPAD = 4, WARPS = 2;

__global__ void wmma_tiles(const half* A, const half* B, float* C, half* H)
{
    __shared__ __align__(128) half As[WARPS][16][16];
    __shared__ __align__(128) half Ap[WARPS][16][16 + PAD];
    __shared__ __align__(128) half Bs[WARPS][16][16];
    __shared__ __align__(128) float Cs[WARPS][16][16];
    __shared__ __align__(128) float Cp[WARPS][16][16 + CPAD];
    __shared__ __align__(128) half Hs[WARPS][16][16 + PAD];
    const int warp = threadIdx.x / 32;
    for (int i = threadIdx.x; i < WARPS * 256; i += blockDim.x) {
        const int w = i / 256, r = i / 16 % 16, c = i % 16;
        As[w][r][c] = A[i];
        Ap[w][r][c] = A[i];
        Bs[w][r][c] = B[i];
    }
    __syncthreads();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a_plain;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a_padded;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::col_major> a_col;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b_col;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b_row;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fragment<wmma::accumulator, 16, 16, 16, half> hacc;
    wmma::load_matrix_sync(a_plain, &As[warp][0][0], 16);
    wmma::load_matrix_sync(a_padded, &Ap[warp][0][0], 16 + PAD);
    wmma::load_matrix_sync(a_col, &Ap[warp][0][0], 16 + PAD);
    wmma::load_matrix_sync(b_col, &Bs[warp][0][0], 16);
    wmma::load_matrix_sync(b_row, &Bs[warp][0][0], 16);
    wmma::fill_fragment(acc, 0.0f);
    wmma::fill_fragment(hacc, __float2half(0.0f));
    wmma::mma_sync(acc, a_plain, b_col, acc);
    wmma::mma_sync(acc, a_padded, b_row, acc);
    wmma::mma_sync(hacc, a_col, b_col, hacc);
    wmma::store_matrix_sync(&Cs[warp][0][0], acc, 16, wmma::mem_row_major);
    wmma::store_matrix_sync(&Hs[warp][0][0], hacc, 16 + PAD, wmma::mem_col_major);
    __syncthreads();
    wmma::load_matrix_sync(acc, &Cs[warp][0][0], 16, wmma::mem_col_major);
    wmma::store_matrix_sync(&Cp[warp][0][0], acc, 16 + CPAD, wmma::mem_col_major);
    __syncthreads();
    for (int i = threadIdx.x; i < WARPS * 16 * (16 + CPAD); i += blockDim.x)
        C[i] = Cp[i / (16 * (16 + CPAD))][i / (16 + CPAD) % 16][i % (16 + CPAD)];
    for (int i = threadIdx.x; i < WARPS * 16 * (16 + PAD); i += blockDim.x)
        H[i] = Hs[i / (16 * (16 + PAD))][i / (16 + PAD) % 16][i % (16 + PAD)];
}

int main()
{
    const int n = WARPS * 256;
    std::vector<float> fa(n), fb(n);
    std::vector<half> a(n), b(n);
    for (int i = 0; i < n; ++i) {
        fa[i] = ((i * 7) % 5 - 2) * 0.5f;
        fb[i] = ((i * 3) % 5 - 2) * 0.5f;
        a[i] = __float2half(fa[i]);
        b[i] = __float2half(fb[i]);
    }
    half *dA, *dB, *dH;
    float* dC;
    const int nc = WARPS * 16 * (16 + CPAD), nh = WARPS * 16 * (16 + PAD);
    cudaMalloc(&dA, n * 2);
    cudaMalloc(&dB, n * 2);
    cudaMalloc(&dC, nc * 4);
    cudaMalloc(&dH, nh * 2);
    cudaMemcpy(dA, a.data(), n * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, b.data(), n * 2, cudaMemcpyHostToDevice);
    wmma_tiles<<<1, 32 * WARPS>>>(dA, dB, dC, dH);
    cudaError_t error = cudaDeviceSynchronize();
    std::vector<float> c(nc);
    std::vector<half> h(nh);
    cudaMemcpy(c.data(), dC, nc * 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(h.data(), dH, nh * 2, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int w = 0; w < WARPS; ++w) {
        const float* fa_w = &fa[w * 256];
        const float* fb_w = &fb[w * 256];
        for (int i = 0; i < 16; ++i)
            for (int j = 0; j < 16; ++j) {
                float acc = 0, hacc = 0;
                for (int k = 0; k < 16; ++k) {
                    acc += fa_w[i * 16 + k] * fb_w[j * 16 + k] + fa_w[i * 16 + k] * fb_w[k * 16 + j];
                    hacc += fa_w[k * 16 + i] * fb_w[j * 16 + k];
                }
                bad += c[w * 16 * (16 + CPAD) + i * (16 + CPAD) + j] != acc;       // Cp: acc transposed twice
                bad += __half2float(h[w * 16 * (16 + PAD) + j * (16 + PAD) + i]) != hacc;  // Hs: col-major
            }
    }
    printf("wmma_tiles: %s, %d wrong\n", cudaGetErrorString(error), bad);
    return bad == 0 && error == cudaSuccess ? 0 : 1;
}
