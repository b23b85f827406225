// heldout: range-based for over a brace list, a local array by reference and by value.
__global__ void ranges(float *out) {
  __shared__ float tile[256];
  float regs[4] = {0.f, 1.f, 2.f, 3.f};
  for (int k : {1, 3}) tile[threadIdx.x * 2 + k] = 1.f;
  for (auto &r : regs) r += tile[threadIdx.x * 4];
  for (float r : regs) out[threadIdx.x] += r;
  int idx[2] = {5, 7};
  for (const int &j : idx) tile[threadIdx.x + j] = 2.f;
}
int main() { ranges<<<1, 32>>>(0); }
