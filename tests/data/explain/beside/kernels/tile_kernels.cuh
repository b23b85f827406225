// A header of kernels that launches none of them: ../runner.cu includes it and launches both
// (explain finds that launch; tests/test_explain_launch_beside.py).
#pragma once

template <int TILE>
__global__ void column_read(float *out, const float *in, int n)
{
    __shared__ float tile[TILE][TILE];
    int x = threadIdx.x, y = threadIdx.y;
    tile[y][x] = in[(blockIdx.x * TILE + y) * n + x];
    __syncthreads();
    out[(blockIdx.x * TILE + x) * n + y] = tile[x][y];  // a column: TILE-way
}

__global__ void padded_read(float *out, const float *in, int n)
{
    __shared__ float tile[32][33];
    int x = threadIdx.x, y = threadIdx.y;
    tile[y][x] = in[(blockIdx.x * 32 + y) * n + x];
    __syncthreads();
    out[(blockIdx.x * 32 + x) * n + y] = tile[x][y];  // padded: no conflict
}
