#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void k(float *out)
{
    __shared__ float s[32];
    cg::grid_group grid = cg::this_grid();
    s[threadIdx.x] = 1.0f;
    if (gridDim.x > 100000) grid.sync();   // never runs here: no refusal
    grid.sync();
    out[threadIdx.x] = s[threadIdx.x];
}
void run(float *o) { k<<<4, 32>>>(o); }
