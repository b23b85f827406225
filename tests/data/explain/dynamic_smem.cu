// Dynamic shared memory carved into two tiles through pointers, float2 accesses, and a
// __device__ helper taking a reference.
#define TILE 32

__device__ void store_pair(float2 &slot, float a, float b)
{
    slot = make_float2(a, b);
}

__global__ void carve(const float *in, float *out)
{
    extern __shared__ float smem[];
    float *first = smem;
    float2 *second = reinterpret_cast<float2 *>(smem + TILE * TILE);
    int t = threadIdx.x;
    for (int r = 0; r < TILE; ++r)
        first[r * TILE + t] = in[r * TILE + t];
    store_pair(second[t], (float)t, 2.0f * t);
    __syncthreads();
    float2 p = second[(t * 2) % TILE];
    out[t] = first[t * TILE] + p.x + p.y;
}

int main()
{
    carve<<<1, TILE, (TILE * TILE + 2 * TILE) * sizeof(float)>>>(in_d, out_d);
}
