// Shared atomics on an address every lane of the warp shares, and what nvcc 13.0 (-O3 -arch=sm_90) makes of
// each (cuobjdump -sass of this file): "one lane" = VOTEU.ANY + UFLO + REDUX (or POPC) + one predicated
// ATOMS, one wavefront a warp; "every lane" = one ATOMS from all 32 lanes (test_explain_uniform_atomics.py).
//   add_value    atomicAdd(&c, v), result unused      REDUX.SUM + @P0 ATOMS.ADD          one lane
//   add_used     p = atomicAdd(&c, 1)                  POPC + @P1 ATOMS.ADD + SHFL.IDX    one lane
//   add_one      atomicAdd(&c, 1), result unused      ATOMS.POPC.INC.32                  every lane
//   add_two      atomicAdd(&c, 2), result unused      POPC + @P1 ATOMS.ADD               one lane
//   max_value    atomicMax(&c, v)                      REDUX.MAX.S32 + @P0 ATOMS.MAX.S32  one lane
//   max_used     old = atomicMax(&c, v)                ATOMS.MAX.S32                      every lane
//   bitwise      atomicAnd/Or/Xor(&c, v)               REDUX, .OR, .XOR + @P0 ATOMS        one lane
//   exchange     atomicExch(&c, v)                     ATOMS.EXCH                         every lane
//   constant     atomicAdd(&c[3], v)                   REDUX.SUM + @P0 ATOMS.ADD          one lane
//   per_block    atomicAdd(&c[blockIdx.x % 32], v)     REDUX.SUM + @P0 ATOMS.ADD          one lane
//   parameter    atomicAdd(&c[k & 31], v)              REDUX.SUM + @P0 ATOMS.ADD          one lane
//   per_warp     atomicAdd(&c[threadIdx.x / 32], v)    ATOMS.ADD                          every lane
//   through_ptr  p = &c[1]; atomicAdd(p, v)            REDUX.SUM + @P0 ATOMS.ADD          one lane
//                (explain does not follow the local pointer: it counts every lane, an over-count)
#include <cuda_runtime.h>

__global__ void add_value(int *o, const int *in)
{
    __shared__ int c;
    if (threadIdx.x == 0) c = 0;
    __syncthreads();
    atomicAdd(&c, in[threadIdx.x]);
    __syncthreads();
    o[threadIdx.x] = c;
}

__global__ void add_used(int *o)
{
    __shared__ int c;
    if (threadIdx.x == 0) c = 0;
    __syncthreads();
    int p = atomicAdd(&c, 1);
    o[threadIdx.x] = p;
}

__global__ void add_one(int *o)
{
    __shared__ int c;
    if (threadIdx.x == 0) c = 0;
    __syncthreads();
    atomicAdd(&c, 1);
    __syncthreads();
    o[threadIdx.x] = c;
}

__global__ void add_two(int *o)
{
    __shared__ int c;
    if (threadIdx.x == 0) c = 0;
    __syncthreads();
    atomicAdd(&c, 2);
    __syncthreads();
    o[threadIdx.x] = c;
}

__global__ void max_value(int *o, const int *in)
{
    __shared__ int c;
    if (threadIdx.x == 0) c = 0;
    __syncthreads();
    atomicMax(&c, in[threadIdx.x]);
    __syncthreads();
    o[threadIdx.x] = c;
}

__global__ void max_used(int *o, const int *in)
{
    __shared__ int c;
    if (threadIdx.x == 0) c = 0;
    __syncthreads();
    int old = atomicMax(&c, in[threadIdx.x]);
    o[threadIdx.x] = old;
}

__global__ void bitwise(unsigned *o, const unsigned *in)
{
    __shared__ unsigned c;
    if (threadIdx.x == 0) c = 0;
    __syncthreads();
    atomicAnd(&c, in[threadIdx.x]);
    atomicOr(&c, in[threadIdx.x]);
    atomicXor(&c, in[threadIdx.x]);
    __syncthreads();
    o[threadIdx.x] = c;
}

__global__ void exchange(int *o, const int *in)
{
    __shared__ int c;
    if (threadIdx.x == 0) c = 0;
    __syncthreads();
    atomicExch(&c, in[threadIdx.x]);
    __syncthreads();
    o[threadIdx.x] = c;
}

__global__ void constant(int *o, const int *in)
{
    __shared__ int c[32];
    c[threadIdx.x % 32] = 0;
    __syncthreads();
    atomicAdd(&c[3], in[threadIdx.x]);
    __syncthreads();
    o[threadIdx.x] = c[3];
}

__global__ void per_block(int *o, const int *in)
{
    __shared__ int c[32];
    c[threadIdx.x % 32] = 0;
    __syncthreads();
    atomicAdd(&c[blockIdx.x % 32], in[threadIdx.x]);
    __syncthreads();
    o[threadIdx.x] = c[3];
}

__global__ void parameter(int *o, const int *in, int k)
{
    __shared__ int c[32];
    c[threadIdx.x % 32] = 0;
    __syncthreads();
    atomicAdd(&c[k & 31], in[threadIdx.x]);
    __syncthreads();
    o[threadIdx.x] = c[3];
}

__global__ void per_warp(int *o, const int *in)
{
    __shared__ int c[32];
    c[threadIdx.x % 32] = 0;
    __syncthreads();
    atomicAdd(&c[threadIdx.x / 32], in[threadIdx.x]);
    __syncthreads();
    o[threadIdx.x] = c[3];
}

__global__ void through_ptr(int *o, const int *in)
{
    __shared__ int c[4];
    int *p = &c[1];
    if (threadIdx.x < 4) c[threadIdx.x] = 0;
    __syncthreads();
    atomicAdd(p, in[threadIdx.x]);
    __syncthreads();
    o[threadIdx.x] = c[1];
}
