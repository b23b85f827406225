// A __shared__ array the kernel body names only inside [&] lambdas (a double-buffered WMMA GEMM of
// scout 7 does this): it is used, so it is laid out, and the lambdas' accesses are counted.
// lroundf/lrintf place the stores (a wrong rounding moves them).
__global__ void lambda_only(const float *in, float *out)
{
    __shared__ float buffer[2][256];
    unsigned stage = 0;
    auto fill = [&](unsigned into) {
        buffer[into][threadIdx.x] = in[threadIdx.x];
    };
    auto drain = [&](unsigned from) {
        out[threadIdx.x] = buffer[from][(threadIdx.x * 2) % 256];
    };
    fill(stage);
    __syncthreads();
    drain(stage);
    long at = lroundf(threadIdx.x * 2.5f) % 256;          // 2.5 * t rounded half away from zero
    long even = lrintf(threadIdx.x * 0.5f) % 256;         // t / 2 rounded half to even
    buffer[1][at] = 1.0f;                                  // 19
    buffer[0][even] = 2.0f;                                // 20
}

void run(const float *in, float *out) { lambda_only<<<1, 64>>>(in, out); }
