// Shared reads guarded by a kernel pointer's null test (a public scan's `if (aux != nullptr)`): explain
// refused them, and -D aux=... was silently ignored. The launch passing nullptr, or -D aux=0, makes the
// pointer null; -D aux=1 (any other number) makes it not null.
__global__ void scan(const float *in, float *out, float *aux, int n)
{
    __shared__ float s[256];
    const int i = blockIdx.x * 256 + threadIdx.x;
    s[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    if (i < n) out[i] = s[threadIdx.x];
    if (aux != nullptr && threadIdx.x < 32) aux[blockIdx.x * 32 + threadIdx.x] = s[8 * threadIdx.x];  // 8-way
}

int main()
{
    const float *in = nullptr;
    float *out = nullptr;
    scan<<<4096, 256>>>(in, out, nullptr, 1 << 20);
    return 0;
}
