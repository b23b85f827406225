// Loops for the repeating-loop shortcut: one whose iterations repeat (a tile loop over K),
// a double-buffered one (the buffer index alternates: iterations repeat in pairs), and one
// whose shared index changes at one iteration (it must not be extrapolated).
__global__ void loops(const float *in, float *out, int K)
{
    __shared__ float tile[2][8][33];
    __shared__ float other[64];
    float acc = 0.0f;
    int tx = threadIdx.x, ty = threadIdx.y;
    for (int k0 = 0; k0 < K; k0 += 8) {                 // repeats
        tile[0][ty][tx] = in[k0 * 32 + ty * 32 + tx];
        __syncthreads();
        for (int k = 0; k < 8; ++k) acc += tile[0][k][ty];
        __syncthreads();
    }
    int buf = 0;
    for (int k0 = 0; k0 < K; k0 += 8) {                 // double buffering
        tile[buf][ty][tx] = acc;
        __syncthreads();
        acc += tile[buf][tx % 8][ty * 4];
        buf ^= 1;
    }
    int shift = 0;
    for (int i = 0; i < 40; ++i) {                      // changes at i == 7
        other[(tx + shift) % 64] = acc;
        if (i == 7) shift = 1;
        __syncthreads();
    }
    out[ty * 32 + tx] = acc + other[tx];
}
void run(const float *in, float *out) { loops<<<1, dim3(32, 8)>>>(in, out, 512); }
