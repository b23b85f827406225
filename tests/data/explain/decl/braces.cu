// decl: brace initialisation: constants, zero-initialised locals, a vector from a load.
constexpr int TILE{32};
inline constexpr int PAD { 1 };
struct Steps { static constexpr int ROW{2}; int skew{3}; };

__global__ void braces(const float *in, float *out) {
  __shared__ float tile[TILE][TILE + PAD];
  constexpr int ROWS{4};
  int zero{};
  float acc{};
  int4 raw{*reinterpret_cast<const int4 *>(in + 4 * threadIdx.x)};
  int lane{static_cast<int>(threadIdx.x)};
  Steps steps;
  for (int r{zero}; r < ROWS; r += Steps::ROW) tile[lane][r] = acc + raw.x;
  tile[zero][lane] = acc;
  out[lane] = tile[(lane * steps.skew) % TILE][lane % PAD];
}

int main() { braces<<<1, 32>>>(0, 0); }
