// heldout: class templates chosen by partial and explicit (full) specializations: a trait selected by
// a type and an int (primary, partial, full, pointer and nested template-id patterns, the most
// specialized of two matching ones), a primary template only declared (its default argument used),
// per-specialization member functions, and a function template deducing from a specialization.
template <typename T, int N> struct Vec { T v[N]; };

template <typename T, int W> struct Pad { static constexpr int stride = W; };                // P
template <int W> struct Pad<float, W> { static constexpr int stride = W + 1; };              // F
template <> struct Pad<float, 32> { static constexpr int stride = 2; };                      // E
template <typename T, int W> struct Pad<T *, W> { static constexpr int stride = sizeof(T); }; // Q
template <typename T, int N, int W> struct Pad<Vec<T, N>, W> {                                // V
  using elem = T;
  static constexpr int stride = N;
};
template <typename T, int W> struct Pad<Vec<T, 32>, W> { static constexpr int stride = W + 2; }; // V32

__global__ void traits(float *out) {
  __shared__ float s[32 * 32];
  __shared__ float padded[32 * Pad<float, 7>::stride];  // F: 8 per lane, 256 floats
  int t = threadIdx.x;
  s[t * Pad<int, 16>::stride] = 1.f;                   // line 21: P
  padded[t * Pad<float, 7>::stride] = 2.f;             // line 22: F
  s[t * Pad<float, 32>::stride] = 3.f;                 // line 23: E
  s[t * Pad<double *, 32>::stride] = 4.f;              // line 24: Q
  s[t * Pad<Vec<int, 16>, 1>::stride] = 5.f;           // line 25: V
  s[t * Pad<Vec<int, 32>, 2>::stride] = 6.f;           // line 26: V32
  typename Pad<Vec<short, 8>, 1>::elem e = 3;          // V's member alias: elem = short
  s[t * (int)sizeof(e)] = 7.f;                         // line 28
}

struct row_tag {};
struct col_tag {};
template <typename Use, int M, typename T, typename Layout = void> struct Tile;  // only declared
template <int M> struct Tile<row_tag, M, float> {       // Layout: the default, void
  float x[4];
  __device__ void load(const float *s, int lane) {
    for (int i = 0; i < 4; i++) x[i] = s[lane * M + i];   // line 37: a row per lane
  }
};
template <int M, typename L> struct Tile<col_tag, M, float, L> {
  float x[4];
  __device__ void load(const float *s, int lane) {
    for (int i = 0; i < 4; i++) x[i] = s[i * M + lane];   // line 43: a column per lane
  }
};

template <int K>  // K, not the specialization's M: deduced by position
__device__ float first(const Tile<row_tag, K, float> &tile, const float *s) {
  return tile.x[0] + s[threadIdx.x * K];                  // line 49
}
template <int K>  // an overload for the other specialization: chosen by the argument's pattern
__device__ float first(const Tile<col_tag, K, float, col_tag> &tile, const float *s) {
  return tile.x[0] + s[threadIdx.x * 2 + K];              // line 53
}

__global__ void tiles(float *out) {
  __shared__ float tile[33 * 32];
  Tile<row_tag, 32, float> a;
  Tile<col_tag, 32, float, col_tag> b;
  Tile<row_tag, 33, float> c;
  a.load(tile, threadIdx.x);
  b.load(tile, threadIdx.x);
  c.load(tile, threadIdx.x);
  out[threadIdx.x] = first(c, tile) + first(b, tile) + a.x[1] + b.x[2];
}

template <typename A, typename B> struct Pair { static constexpr int n = 1; };
template <typename A> struct Pair<A, int> { static constexpr int n = 2; };
template <typename B> struct Pair<int, B> { static constexpr int n = 3; };

__global__ void ambiguous(float *out) {
  __shared__ float s[128];
  s[threadIdx.x * Pair<int, int>::n] = 1.f;
  out[threadIdx.x] = s[threadIdx.x];
}

int main() {
  traits<<<1, 32>>>(0);
  tiles<<<1, 32>>>(0);
  ambiguous<<<1, 32>>>(0);
}
