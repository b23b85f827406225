// Neighbours that nvcc merges out of program order, and 2-byte elements. The SASS each line gets from
// nvcc 13.0 -O3 -arch=sm_90 -lineinfo is in its comment.
#define BK 8
#define TM 8

__global__ void outer_loop(const float *in, float *out) {
    __shared__ float As[64 * BK];
    __shared__ short sh[1024];
    const int t = threadIdx.x, ty = (t / 8) * TM;
    for (int i = 0; i < 64 * BK / 64; ++i) As[t + 64 * i] = in[t + 64 * i];  // STS x8
    sh[t] = (short)in[t];                                                      // STS.U16
    __syncthreads();
    float tmp[TM] = {0.f};
#pragma unroll
    for (int i = 0; i < BK; i++) {
#pragma unroll
        for (int j = 0; j < TM; j++) tmp[j] += As[(ty + j) * BK + i] * in[i];  // LDS.128 x16: over i, the outer loop
    }
    float acc = 0.f;
    for (int i = 0; i < 8; ++i) acc += sh[8 * t + i];  // LDS.64 x2: 2-byte elements merge to 8 bytes at most
    for (int j = 0; j < TM; j++) out[t * TM + j] = tmp[j] + acc;
}

int main() {
    outer_loop<<<1, 64>>>(nullptr, nullptr);
    return 0;
}
