// Launch shapes written the ways scout 9's public programs write them (tests/test_explain_host_values.py):
// a constant in a namespace, a size assigned after its declaration, a dim3 set member by member, and one
// assigned only under a condition the source does not decide (still unknown).
namespace lab {
constexpr int ROWS_PER_BLOCK = 256;
}

__global__ void in_namespace(float *x)
{
    __shared__ float s[lab::ROWS_PER_BLOCK];
    s[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    x[threadIdx.x] = s[(threadIdx.x * 2) % lab::ROWS_PER_BLOCK];  // 2-way
}

__global__ void assigned_later(float *x)
{
    __shared__ float s[1024];
    s[threadIdx.x * 4] = 1.0f;  // 4-way
    __syncthreads();
    x[threadIdx.x] = s[threadIdx.x];
}

__global__ void member_by_member(float *x)
{
    __shared__ float s[32][33];
    s[threadIdx.y][threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    x[threadIdx.x] = s[threadIdx.x][threadIdx.y];  // padded: no conflict
}

__global__ void assigned_if(float *x)
{
    __shared__ float s[256];
    s[threadIdx.x] = x[threadIdx.x];
}

#define MAX_BLOCK 128

namespace lab {
void run_namespace(float *x)
{
    dim3 block(ROWS_PER_BLOCK);
    in_namespace<<<8, block>>>(x);
}
}

void run_assigned(float *x, int n)
{
    unsigned int threads;
    unsigned int blocks;
    threads = MAX_BLOCK;
    blocks = n / threads;
    assigned_later<<<blocks, threads>>>(x);
}

void run_members(float *x)
{
    dim3 block;
    block.x = 32;
    block.y = 8;
    dim3 grid(4, 4);
    member_by_member<<<grid, block>>>(x);
}

void run_if(float *x, int n)
{
    int threads = 64;
    if (n > 4096)
        threads = 256;
    assigned_if<<<1, threads>>>(x);
}
