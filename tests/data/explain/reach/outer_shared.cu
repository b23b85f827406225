// reach: __shared__ arrays outside the kernel body: at file scope, and in __device__ helpers
// (one helper used by this kernel only, one used by two kernels).
__shared__ float staged[64];

__device__ float pairSum(float v) {
  __shared__ float lanes2[64];
  lanes2[2 * (threadIdx.x % 32)] = v;
  __syncwarp();
  return lanes2[threadIdx.x % 32];
}

__device__ int shared2(int v) {
  __shared__ int common[32];
  common[threadIdx.x % 32] = v;
  return common[(threadIdx.x + 1) % 32];
}

__global__ void outerUser(const float *in, float *out) {
  __shared__ float own[32];
  staged[threadIdx.x] = in[threadIdx.x];
  own[threadIdx.x % 32] = pairSum(staged[63 - threadIdx.x]);
  out[threadIdx.x] = own[threadIdx.x % 32] + shared2(threadIdx.x);
}

__global__ void otherUser(int *out) { out[threadIdx.x] = shared2(threadIdx.x); }

template <int N> __device__ float perInstance(float v) {
  __shared__ float cell[N];
  cell[threadIdx.x % N] = v;
  return cell[0];
}

__global__ void templated(float *out) { out[threadIdx.x] = perInstance<8>(out[0]); }

int main() {
  outerUser<<<1, 64>>>(0, 0);
  otherUser<<<1, 64>>>(0);
  templated<<<1, 64>>>(0);
}
