// bankism corpus: half-precision sums in shared memory through cuda_fp16.h's atomicAdd.
//
// 16 blocks of 128 threads; each warp adds 1.0 into its own __half2 s_acc[warp][32] (lane i into element
// (i * 7) % 32) 64 times, then block sums go to global memory. atomicAdd(__half2*) takes a generic
// pointer: nvcc emits a generic ATOM.E.ADD.F16x2 and, for a shared address, an LDS + ATOMS.CAST.SPIN
// retry loop. A trace of it holds opcodes bankism may not model; analyze must still report the rest.
#include <cstdio>
#include <cstdlib>
#include <cuda_fp16.h>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #call, __FILE__, __LINE__, cudaGetErrorString(e_)); \
    exit(1); } } while (0)

constexpr int WARPS = 4;
constexpr int REPS = 64;

__global__ void half_atomics(float* __restrict__ out)
{
    __shared__ __half2 s_acc[WARPS][32];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    s_acc[warp][lane] = __floats2half2_rn(0.0f, 0.0f);
    __syncwarp();
#pragma unroll 1
    for (int r = 0; r < REPS; ++r) atomicAdd(&s_acc[warp][(lane * 7) % 32], __floats2half2_rn(1.0f, 1.0f));
    __syncthreads();
    if (threadIdx.x < 32) {
        float sum = 0.0f;
        for (int w = 0; w < WARPS; ++w) sum += __low2float(s_acc[w][lane]) + __high2float(s_acc[w][lane]);
        atomicAdd(&out[lane], sum);
    }
}

int main()
{
    float* dOut;
    float got[32];
    CK(cudaMalloc(&dOut, sizeof(got)));
    CK(cudaMemset(dOut, 0, sizeof(got)));
    half_atomics<<<16, WARPS * 32>>>(dOut);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(got, dOut, sizeof(got), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < 32; ++i) bad += got[i] != 16.0f * WARPS * REPS * 2.0f;
    printf("half_atomics: grid 16, block 128: %d wrong sums %s\n", bad, bad ? "FAIL" : "OK");
    return bad == 0 ? 0 : 1;
}
