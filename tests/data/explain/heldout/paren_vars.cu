// heldout: macro arguments in parentheses that tree-sitter reads as casts: `(i) + (j) * ld`
// reads as a cast of `+(j)` to a type `i`; the variables stay variables, a real cast to a
// typedef'd name stays a cast.
#define AT(i, j) tile[(i) + (j) * ld]
typedef int Index;

__global__ void paren_vars(float *out) {
  __shared__ float tile[32 * 33];
  const int ld = 32;
  int r = threadIdx.x, c = 1;
  AT(c, r) = 1.f;                  // 1 + 32t: 32-way
  tile[(r) * 2 + (c)] = 2.f;       // 2t + 1: 2-way
  tile[(r) - (c) + 1] = 3.f;       // t: conflict-free
  tile[(Index) -(-r) * 4] = 4.f;   // 4t: 4-way
  out[r] = tile[r];
}

int main() { paren_vars<<<1, 32>>>(0); }
