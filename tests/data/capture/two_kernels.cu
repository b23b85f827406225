__global__ void first(float* x) { __shared__ float s[64]; s[threadIdx.x] = x[threadIdx.x]; __syncthreads(); x[threadIdx.x] = s[63 - threadIdx.x]; }
__global__ void second(int* x) { __shared__ int s[64]; s[threadIdx.x] = x[threadIdx.x]; __syncthreads(); x[threadIdx.x] = s[(threadIdx.x * 2) % 64]; }
