// heldout: launch shapes computed on the host with ceil() of a float division, a constexpr
// helper with one return statement, and a template argument named by a local `using` alias.
#include <cmath>

constexpr int ceil_div(int a, int b) { return (a + b - 1) / b; }

template <typename T>
__global__ void host_launch(T *out) {
  __shared__ T s[32 * 32];
  s[threadIdx.x * gridDim.x] = T(1);   // a stride of gridDim.x elements
  s[threadIdx.x * gridDim.y + 1] = T(2);
  out[threadIdx.x] = s[threadIdx.x];
}

void run(float *d_out, int n) {
  using Elem = double;
  dim3 grid(ceil(n / (float)64), ceil_div(100, 32));
  dim3 block(ceil_div(n, 32));
  host_launch<Elem><<<grid, block>>>(d_out);
}
