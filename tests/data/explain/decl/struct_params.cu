// decl: structs passed to a kernel by value: a matrix descriptor and a lock holding an int*.
#define TILE 16

struct Matrix {
  int width;
  int height;
  int stride;
  float *elements;
};

__device__ float element(const Matrix m, int row, int col) { return m.elements[row * m.stride + col]; }

__device__ Matrix block(Matrix m, int row, int col) {
  Matrix sub;
  sub.width = TILE;
  sub.height = TILE;
  sub.stride = m.stride;
  sub.elements = &m.elements[m.stride * TILE * row + TILE * col];
  return sub;
}

__global__ void tiledProduct(Matrix A, Matrix B, Matrix C) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = threadIdx.y, col = threadIdx.x;
  float sum = 0.f;
  for (int m = 0; m < A.width / TILE; ++m) {
    Matrix a = block(A, blockIdx.y, m);
    Matrix b = block(B, m, blockIdx.x);
    As[row][col] = element(a, row, col);
    Bs[row][col] = element(b, row, col);
    __syncthreads();
    for (int e = 0; e < TILE; ++e) sum += As[row][e] * Bs[e][col];
    __syncthreads();
  }
  C.elements[(blockIdx.y * TILE + row) * C.stride + blockIdx.x * TILE + col] = sum;
}

struct Lock {
  int *mutex;
  __device__ void lock() { while (atomicCAS(mutex, 0, 1) != 0) {} }
  __device__ void unlock() { atomicExch(mutex, 0); }
};

__global__ void lockedSum(Lock lock, const float *in, float *total) {
  __shared__ float cache[128];
  cache[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (int i = blockDim.x / 2; i > 0; i /= 2) {
    if (threadIdx.x < i) cache[threadIdx.x] += cache[threadIdx.x + i];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    lock.lock();
    *total += cache[0];
    lock.unlock();
  }
}

int main() {
  Matrix A, B, C;
  tiledProduct<<<dim3(2, 2), dim3(TILE, TILE)>>>(A, B, C);
  Lock lock;
  lockedSum<<<4, 128>>>(lock, 0, 0);
}
