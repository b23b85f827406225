// A shared tile seen through a pointer to an array (`float (*t)[33]`), as public GEMM kernels view their
// dynamic shared memory: refused ("pointer to an array"). t[r][c] is raw[33 r + c]; passed to a helper
// as `float (*rows)[33]` and moved by whole rows (`t + 2`, `t + x`).
__device__ void store_column(float (*rows)[33], int lane, float v)
{
    rows[lane][0] = v;  // column 0 of 32 rows 33 floats apart: conflict-free
}

__global__ void tile(const float *in, float *out)
{
    extern __shared__ float raw[];
    float (*t)[33] = reinterpret_cast<float (*)[33]>(raw);
    const int x = threadIdx.x, y = threadIdx.y;
    t[y][x] = in[y * 32 + x];                 // rows: conflict-free
    __syncthreads();
    out[y * 32 + x] = t[x][y];                // columns, padded: conflict-free
    float (*below)[33] = t + 2;               // two rows further
    below[y % 30][x] = 1.0f;                  // a row two further: conflict-free
    (t + x)[0][x] = 3.0f;                     // word 34 x: 2-way
    store_column(t, x, 2.0f);
}

int main()
{
    float *a = nullptr, *b = nullptr;
    tile<<<1, dim3(32, 32), 32 * 33 * sizeof(float)>>>(a, b);
    return 0;
}
