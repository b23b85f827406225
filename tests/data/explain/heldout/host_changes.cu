// heldout: host variables changed after their declaration (set through a reference parameter,
// assigned) are not their declared values at the launch: the grid is not known, explain answers per block.
__global__ void host_changes(float *out) {
  __shared__ float s[32 * 33];
  s[threadIdx.x * gridDim.x] = 1.f;   // a stride of gridDim.x words
  out[threadIdx.x] = s[threadIdx.x];
}

void config(int &blocks) { blocks = 4; }
void show(const int &blocks) {}

void run(float *out) {
  int blocks = 1;
  show(blocks);
  config(blocks);
  host_changes<<<blocks, 32>>>(out);
}
