// bankism corpus: whole structs copied into and out of shared memory. nvcc copies a struct
// member by member and ptxas merges neighbouring members into 64- and 128-bit accesses where
// the address is aligned: Quad (4 floats) moves as one 128-bit access, Pair (2 floats) as one
// 64-bit access, Triple (3 floats, 12-byte stride) as three 32-bit ones, Tagged (int, double,
// built in registers) as a 32-bit and a 64-bit one, Six (6 floats, 24-byte stride) as three
// 64-bit ones and Wide (2 doubles) as one 128-bit access.
//
// Usage: struct_copy
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "CUDA error %s at %s:%d: %s\n", #call, __FILE__, __LINE__, cudaGetErrorString(e_)); \
    exit(1); } } while (0)

struct Quad { float x, y, z, w; };
struct Pair { float a, b; };
struct Triple { float a, b, c; };
struct Tagged { int id; double weight; };
struct Six { float v[6]; };
struct Wide { double lo, hi; };

constexpr int THREADS = 64;

__device__ Pair fetch(const Pair *pairs, int i) { return pairs[i]; }

__global__ void struct_copy(const Quad *quads, const Pair *pairs, const Triple *triples, const Tagged *tags,
                            const Six *sixes, const Wide *wides, float *out)
{
    __shared__ Quad sq[THREADS];
    __shared__ Pair sp[THREADS];
    __shared__ Triple st[THREADS];
    __shared__ Tagged sg[THREADS];
    __shared__ Six ss[THREADS];
    __shared__ Wide sw[THREADS];
    int t = threadIdx.x;
    int g = blockIdx.x * THREADS + t;
    sq[(t * 2) % THREADS + t / 32] = quads[g];
    sp[t] = pairs[g];
    st[t] = triples[g];
    Tagged tag;
    tag.id = tags[g].id;
    tag.weight = tags[g].weight;
    sg[(t * 4) % THREADS + t / 16] = tag;
    ss[t] = sixes[g];
    sw[(t * 2) % THREADS + t / 32] = wides[g];
    __syncthreads();
    Quad q = sq[THREADS - 1 - t];
    Pair p = fetch(sp, (t * 8) % THREADS + t / 8);
    Triple r = st[(t + 1) % THREADS];
    Tagged w = sg[t];
    Six s = ss[(t * 3) % THREADS];
    Wide k = sw[t];
    float sum = q.x + q.y + q.z + q.w + p.a + p.b + r.a + r.b + r.c + w.id + (float)w.weight;
    for (int i = 0; i < 6; ++i) sum += s.v[i];
    out[g] = sum + (float)(k.lo + k.hi);
}

int main()
{
    const int blocks = 4, n = blocks * THREADS;
    std::vector<Quad> q(n); std::vector<Pair> p(n); std::vector<Triple> r(n); std::vector<Tagged> w(n);
    std::vector<Six> s(n); std::vector<Wide> h(n);
    for (int i = 0; i < n; ++i) {
        q[i] = {1.f * i, 2.f, 3.f, 4.f}; p[i] = {1.f, 1.f * i}; r[i] = {1.f, 2.f, 1.f * i};
        w[i] = {i, 0.5}; for (int j = 0; j < 6; ++j) s[i].v[j] = j; h[i] = {0.25, 1.0 * i};
    }
    Quad *dq; Pair *dp; Triple *dr; Tagged *dw; Six *ds; Wide *dh; float *dOut;
    CK(cudaMalloc(&dq, n * sizeof(Quad))); CK(cudaMalloc(&dp, n * sizeof(Pair)));
    CK(cudaMalloc(&dr, n * sizeof(Triple))); CK(cudaMalloc(&dw, n * sizeof(Tagged)));
    CK(cudaMalloc(&ds, n * sizeof(Six))); CK(cudaMalloc(&dh, n * sizeof(Wide)));
    CK(cudaMalloc(&dOut, n * sizeof(float)));
    CK(cudaMemcpy(dq, q.data(), n * sizeof(Quad), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dp, p.data(), n * sizeof(Pair), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dr, r.data(), n * sizeof(Triple), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dw, w.data(), n * sizeof(Tagged), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(ds, s.data(), n * sizeof(Six), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dh, h.data(), n * sizeof(Wide), cudaMemcpyHostToDevice));
    struct_copy<<<blocks, THREADS>>>(dq, dp, dr, dw, ds, dh, dOut);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<float> out(n);
    CK(cudaMemcpy(out.data(), dOut, n * sizeof(float), cudaMemcpyDeviceToHost));
    long bad = 0;
    for (int b = 0; b < blocks; ++b)
        for (int t = 0; t < THREADS; ++t) {
            auto at = [&](int i) { return b * THREADS + i; };
            int iq = THREADS - 1 - t, ip = (t * 8) % THREADS + t / 8;
            // where sq, sg and sw were stored: sq[(u*2)%64 + u/32] = quads[u]: find u
            int uq = -1, ug = -1, uw = -1;
            for (int u = 0; u < THREADS; ++u) {
                if ((u * 2) % THREADS + u / 32 == iq) uq = u;
                if ((u * 4) % THREADS + u / 16 == t) ug = u;
                if ((u * 2) % THREADS + u / 32 == t) uw = u;
            }
            const Quad &Q = q[at(uq)]; const Pair &P = p[at(ip)]; const Triple &R = r[at((t + 1) % THREADS)];
            const Tagged &W = w[at(ug)]; const Six &S = s[at((t * 3) % THREADS)];
            const Wide &H = h[at(uw)];
            float want = Q.x + Q.y + Q.z + Q.w + P.a + P.b + R.a + R.b + R.c + W.id + (float)W.weight;
            for (int i = 0; i < 6; ++i) want += S.v[i];
            want += (float)(H.lo + H.hi);
            bad += out[at(t)] != want;
        }
    printf("struct_copy: %d blocks of %d threads: %ld wrong %s\n", blocks, THREADS, bad, bad == 0 ? "OK" : "FAIL");
    return bad == 0 ? 0 : 1;
}
