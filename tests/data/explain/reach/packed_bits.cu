// reach: a 128-bit packed value built with memcpy from an int4 global load (the style of
// training repositories' Packed128), used as values only; then once as an address.
template <class E> struct alignas(16) Wide128 {
  Wide128() = default;
  __device__ explicit Wide128(int4 raw) { memcpy(&lanes, &raw, sizeof(raw)); }
  __device__ E &operator[](int i) { return lanes[i]; }
  static constexpr int count = sizeof(int4) / sizeof(E);
  E lanes[count];
};

__global__ void packedRows(const float *in, float *out) {
  __shared__ float rows[4][129];
  Wide128<float> w(*reinterpret_cast<const int4 *>(in + 4 * threadIdx.x));
  for (int k = 0; k < Wide128<float>::count; k++) rows[k][threadIdx.x] = w[k];
  __syncthreads();
  out[threadIdx.x] = rows[threadIdx.x % 4][threadIdx.x / 4];
}

__global__ void packedIndex(const float *in, float *out) {
  __shared__ float cells[128];
  Wide128<int> w(*reinterpret_cast<const int4 *>(in + 4 * threadIdx.x));
  cells[w[0] & 127] = 1.0f;
}

int main() {
  packedRows<<<1, 128>>>(0, 0);
  packedIndex<<<1, 128>>>(0, 0);
}
