// decl: enums (plain, scoped, nested in a struct), non-virtual inheritance, anonymous unions
// and structs as members.
enum Layout { ROW_MAJOR, COL_MAJOR = 4 };
enum class Pad : int { NONE, ONE, TWO };
struct Shape { enum { ROWS = 8, COLS = 32 }; };

struct Strided { int stride; __device__ int at(int r, int c) const { return r * stride + c; } };
struct Skewed : Strided {
  int skew;
  __device__ Skewed(int s, int k) : Strided{s}, skew(k) {}
  __device__ int slot(int r, int c) const { return at(r, (c + skew * r) % stride); }
};

struct Packet {
  union { float value; unsigned bits; };
  struct { unsigned short lo, hi; };
};

__global__ void records(float *out) {
  __shared__ float tile[Shape::ROWS][Shape::COLS + (int)Pad::ONE];
  __shared__ Packet packets[64];
  Layout layout = COL_MAJOR;
  Skewed sk(Shape::COLS + static_cast<int>(Pad::ONE), 1);
  int r = threadIdx.x / Shape::COLS, c = threadIdx.x % Shape::COLS;
  tile[0][0] = 0.f;
  reinterpret_cast<float *>(tile)[sk.slot(c % Shape::ROWS, r)] = 1.f;
  tile[r][layout == COL_MAJOR ? c : 0] = 2.f;
  Packet p;
  p.lo = threadIdx.x;
  p.hi = Shape::ROWS;
  packets[threadIdx.x].bits = p.lo;
  packets[(p.lo * p.hi) % 64].hi = p.hi;
  out[threadIdx.x] = tile[c % Shape::ROWS][r] + packets[threadIdx.x].value;
}

int main() { records<<<1, 64>>>(0); }
