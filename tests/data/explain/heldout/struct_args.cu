// heldout: struct templates as template arguments of a kernel (Block<32, 32> sizes read as
// Tile::kM), a static member named through an object (s.cols_), a reference member bound by a
// constructor and called through (tile_(r, c)).
template <int R, int C_> struct Block { static constexpr int kM = R; static constexpr int kN = C_; };
template <typename T, int ROWS, int COLS> struct Span {
  T *buffer;
  __device__ Span(T *b) : buffer(b) {}
  __device__ T &operator()(int r, int c) { return buffer[COLS * r + c]; }
  static constexpr int cols_ = COLS;
};
template <class Tile, class Warp>
__global__ void tiles(float *out) {
  __shared__ float raw[Tile::kM * (Tile::kN + 1)];
  using Rows = Span<float, Tile::kM, Tile::kN + 1>;
  Rows s(raw);
  s(threadIdx.x % Tile::kM, threadIdx.x / Tile::kM) = 1.f;
  __syncthreads();
  out[threadIdx.x] = raw[threadIdx.x * s.cols_ % (Tile::kM * Warp::kN)];
}
template <typename Tile>
struct Loader {
  Tile &tile_;
  __device__ Loader(Tile &tile) : tile_(tile) {}
  __device__ void put(int r, int c, float v) { tile_(r, c) = v; }
};

__global__ void bound(float *out) {
  __shared__ float raw[32 * 33];
  using Rows = Span<float, 32, 33>;
  Rows rows(raw);
  Loader<Rows> loader(rows);
  loader.put(threadIdx.x, 0, 1.f);
  __syncthreads();
  out[threadIdx.x] = raw[threadIdx.x];
}

__global__ void deduced(float *out) {
  __shared__ float raw[32 * 33];
  Span<float, 32, 33> rows(&raw[0]);
  using Put = Loader<decltype(rows)>;
  Put loader{rows};
  loader.put(threadIdx.x, 1, 1.f);
  out[threadIdx.x] = raw[0];
}

void launch(float *out) {
  using tile = Block<32, 32>;
  tiles<tile, Block<1, 32>><<<1, 32>>>(out);
  bound<<<1, 32>>>(out);
  deduced<<<1, 32>>>(out);
}
