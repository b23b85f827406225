// decl: a class template with an anonymous union member of its template type, a member
// operator+=, and `auto *` deduced from a cast pointer.
template <typename T, int N>
struct alignas(sizeof(T) * N) Pack {
  __device__ Pack(T v) { for (int i = 0; i < N; i++) lanes[i] = v; }
  union {
    T lanes[N];
  };
  __device__ void operator+=(Pack<T, N> other) { for (int i = 0; i < N; i++) lanes[i] += other.lanes[i]; }
};

__global__ void packs(const float *in, float *out) {
  __shared__ float sums[4][33];
  const auto *rows = reinterpret_cast<const Pack<float, 4> *>(in);
  Pack<float, 4> acc(1.f), step(2.f);
  acc += step;
  for (int i = 0; i < 4; i++) sums[(int)acc.lanes[i] - i][threadIdx.x] = acc.lanes[i];
  Pack<float, 4> loaded = rows[threadIdx.x];
  loaded += acc;
  out[threadIdx.x] = sums[threadIdx.x % 4][0] + loaded.lanes[3];
}

int main() { packs<<<1, 32>>>(0, 0); }
