// A header-style registry with a partial specialization on a function-pointer type (`Ret (*)(Arg)`), in a
// file whose kernel never uses it: explain refused the whole file ("declarator
// abstract_function_declarator"; 9 kernels of one public repository). The specialization is now kept
// with its error, raised only if a kernel uses it.
template <typename F> struct func_traits;
template <typename Ret, typename Arg> struct func_traits<Ret (*)(Arg)> { using arg_t = Arg; };

struct param_t { const float *src; float *dst; int n; };

__global__ void copy_tile(param_t p)
{
    __shared__ float s[256];
    const int i = blockIdx.x * 256 + threadIdx.x;
    s[threadIdx.x * 2 % 256] = i < p.n ? p.src[i] : 0.0f;  // stride 2: 2-way
    __syncthreads();
    if (i < p.n) p.dst[i] = s[255 - threadIdx.x];
}

int main()
{
    param_t p{nullptr, nullptr, 1 << 20};
    copy_tile<<<4096, 256>>>(p);
    return 0;
}
