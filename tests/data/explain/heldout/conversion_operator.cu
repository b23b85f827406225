// A shared buffer reached through a struct's conversion operator and indexed directly (smem[i] with no
// operator[]), the idiom of the CUDA samples' SharedMemory<T>; and `unsigned const &` (the qualifier after
// the type, inside tree-sitter's sized type specifier).
template <typename T>
struct DynamicShared {
    __device__ operator T *() {
        extern __shared__ int raw_words[];
        return reinterpret_cast<T *>(raw_words);
    }
    __device__ operator const T *() const {
        extern __shared__ int raw_words[];
        return reinterpret_cast<const T *>(raw_words);
    }
};

__device__ unsigned twice(unsigned const &value) { return 2u * value; }

__global__ void strided_sum(const double *in, double *out, unsigned *counts)
{
    DynamicShared<double> partial;
    unsigned t = threadIdx.x;
    partial[t] = in[blockIdx.x * blockDim.x + t];              // 8-byte stores, consecutive
    __syncthreads();
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        if (t % (2 * stride) == 0) partial[t] += partial[t + stride];  // interleaved: conflicts
        __syncthreads();
    }
    DynamicShared<unsigned> tally;
    if (t < 32) tally[64 + 2 * t] = twice(t);                    // 4-byte stores, stride 2 words
    if (t == 0) out[blockIdx.x] = partial[0];
    if (t < 32) counts[t] = tally[64 + 2 * t];
}

int main()
{
    strided_sum<<<4, 128, 128 * sizeof(double)>>>(nullptr, nullptr, nullptr);
    return 0;
}
