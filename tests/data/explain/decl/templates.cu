// decl: default template type arguments, dependent `typename X<T>::type` parameters, decltype.
template <typename T> struct Traits { typedef T type; using wide = float2; static constexpr int lanes = 16 / sizeof(T); };

template <typename V = int4, int SPREAD = 2>
__device__ void clear(V *slots, int i) { slots[SPREAD * i] = V{}; }

template <typename V = int4>
__device__ void zero(void *base, int i) { reinterpret_cast<V *>(base)[i] = V{}; }

template <typename T>
__device__ void stash(float *s, typename Traits<T>::type v, int i) { s[i] = v; }

template <typename T>
__device__ typename Traits<T>::wide pairAt(const typename Traits<T>::wide *s, int i) { return s[i]; }

__global__ void templated(float *out) {
  __shared__ int4 quads[64];
  __shared__ float words[256];
  clear<>(quads, threadIdx.x % 32);
  clear<int4, 1>(quads, threadIdx.x);
  zero(words, (threadIdx.x * 2) % 64);
  stash<float>(words, 1.f, threadIdx.x * Traits<float>::lanes);
  decltype(threadIdx.x) step = threadIdx.x * 3;
  decltype(step + 1u) slot = step % 256;
  words[slot] = 2.f;
  float2 p = pairAt<float>(reinterpret_cast<const float2 *>(words), threadIdx.x);
  out[threadIdx.x] = p.x + p.y;
}

int main() { templated<<<1, 64>>>(0); }
