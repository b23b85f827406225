// bfloat16 data through shared memory (a training repository's floatX): 2-byte accesses.
#include <cuda_bf16.h>
typedef __nv_bfloat16 floatX;
__global__ void reverse(floatX *out, const floatX *in) {
    __shared__ floatX tile[64];
    tile[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    float v = __bfloat162float(tile[63 - threadIdx.x]) * 2.0f;
    out[threadIdx.x] = __float2bfloat16(v);
}
void run(floatX *o, const floatX *i) { reverse<<<1, 64>>>(o, i); }
