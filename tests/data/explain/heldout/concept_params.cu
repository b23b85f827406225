// Type template parameters constrained by a concept (`Arith T`, `std::floating_point T`) were read as
// values: `-D T=float` was refused as "not a number" (a public matmul library's kernels). They declare a
// type: the double kernel's row store takes 2 wavefronts, the float one's 1.
#include <concepts>

template <typename T>
concept Arith = std::same_as<T, float> || std::same_as<T, double>;

template <unsigned BS, Arith T>
__global__ void fill_row(T *out)
{
    __shared__ T row[BS];
    row[threadIdx.x] = T(threadIdx.x);
    __syncthreads();
    out[blockIdx.x * BS + threadIdx.x] = row[BS - 1 - threadIdx.x];
}

template <std::floating_point T>
__global__ void fill_pairs(T *out)
{
    __shared__ T pairs[64];
    pairs[2 * threadIdx.x] = T(1);
    __syncthreads();
    out[threadIdx.x] = pairs[2 * threadIdx.x];
}

int main()
{
    double *d = nullptr;
    float *f = nullptr;
    fill_row<32, double><<<4, 32>>>(d);
    fill_pairs<float><<<1, 32>>>(f);
    return 0;
}
