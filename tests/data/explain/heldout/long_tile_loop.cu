// A tile loop the repeating-loop shortcut counts once and copies (scout 7: a public register-tiled
// GEMM run with a long K died of MemoryError): the copies count against the accesses limit before
// they are made (tests/test_explain_scout7.py).
__global__ void long_tiles(const float *a, float *c, int n)
{
    __shared__ float tile[512];
    float acc = 0.f;
    for (int b = 0; b < n; b += 4) {
        tile[threadIdx.x] = a[b + threadIdx.x];
        tile[threadIdx.x + 256] = a[b + threadIdx.x + 1];
        __syncthreads();
        for (int i = 0; i < 4; ++i)
            acc += tile[(threadIdx.x % 32) * 16 + i];
        __syncthreads();
    }
    c[threadIdx.x] = acc;
}

void run(const float *a, float *c) { long_tiles<<<64, 256>>>(a, c, 4096); }
