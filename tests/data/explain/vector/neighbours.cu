// Neighbouring scalar shared-memory accesses that nvcc merges into LDS.64/LDS.128 (STS.64), and ones it
// keeps scalar. The SASS each line gets from nvcc 13.0 -O3 -arch=sm_90 is in its comment.
#define TILE 16

__global__ void neighbours(const float *in, float *out, int stride) {
    __shared__ float tile[TILE][TILE];
    __shared__ float row_major[TILE][TILE];
    __shared__ float padded[TILE][TILE + 1];
    __shared__ float flat[256 * 4];
    const int tx = threadIdx.x, ty = threadIdx.y, t = ty * TILE + tx;
    tile[ty][tx] = in[t];
    row_major[ty][tx] = in[256 + t];
    padded[ty][tx] = in[512 + t];
    flat[2 * t] = in[t];      // STS.64 with the next line: adjacent and 8-byte aligned
    flat[2 * t + 1] = in[t + 1];
    __syncthreads();
    float acc = 0.0f;
    for (int k = 0; k < TILE; ++k) acc += tile[ty][k] * row_major[k][tx];  // LDS.128 x4 (tile), LDS x16
    for (int k = 0; k < TILE; ++k) acc += padded[ty][k];                   // LDS x16: rows of 68 bytes
    float r[4];
    for (int i = 0; i < 4; ++i) r[i] = flat[4 * tx + i];                  // one LDS.128
    for (int i = 0; i < 4; ++i) acc += r[i] * flat[ty * stride + i];      // LDS x4: a run-time stride
#pragma unroll 1
    for (int k = 0; k < 4; ++k) acc += flat[4 * ty + k];                  // LDS x1 in a kept loop
    out[t] = acc;
}

int main() {
    neighbours<<<1, dim3(TILE, TILE)>>>(nullptr, nullptr, 4);
    return 0;
}
