// C semantics the interpreter must get right; each result lands in shared memory, where
// the snapshot reads it back.
__device__ int clamp_add(int a, int b)
{
    int s = a + b;
    if (s > 100)
        return 100;
    return s;
}

__global__ void semantics(int *out)
{
    __shared__ int r[8][32];
    __shared__ unsigned int u[32];
    int t = threadIdx.x;
    r[0][t] = (t - 16) / 5;
    r[1][t] = (t - 16) % 5;
    r[2][t] = t % 3 == 0 ? t * 10 : -t;
    int acc = 0;
    for (int k = 0; k < 40; ++k) {
        if (k == t)
            break;
        if (k % 2)
            continue;
        acc += k;
    }
    r[3][t] = acc;
    r[4][t] = clamp_add(t, 90);
    r[5][t] = (t << 27) >> 27;
    r[6][t] = __shfl_xor_sync(0xffffffff, t, 1);
    int w = 0;
    while (w < t / 4)
        w++;
    r[7][t] = w;
    u[t] = threadIdx.x - 1u;
    __syncthreads();
    out[t] = r[0][t] + u[t];
}

void run(int *out)
{
    semantics<<<1, 32>>>(out);
}
