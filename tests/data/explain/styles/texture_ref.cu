// A texture reference (the pre-CUDA-12 API) read into a padded tile: its values are not known,
// its shared accesses are.
texture<float, 2, cudaReadModeElementType> texRef;
__global__ void blur(float *out, int w) {
  __shared__ float tile[16][17];
  int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = tex2D(texRef, x + 0.5f, y + 0.5f);
  __syncthreads();
  out[y * w + x] = tile[threadIdx.x][threadIdx.y];
}
void run(float *o) { blur<<<dim3(4, 4), dim3(16, 16)>>>(o, 64); }
