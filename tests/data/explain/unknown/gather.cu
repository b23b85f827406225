// Accesses at addresses that depend on input data: explain lists them with their warp-instruction
// counts and goes on with the rest of the kernel (tests/test_explain_unknown_addresses.py).
__global__ void gather(const int *index, const float *in, float *out)
{
    __shared__ float table[256];
    __shared__ float copy[256];
    __shared__ int slots[256];
    int t = threadIdx.x;
    table[t] = in[blockIdx.x * 256 + t];                   // 9: counted
    slots[t] = t;                                          // 10: counted
    __syncthreads();
    float v = table[index[blockIdx.x * 256 + t] & 255];    // 12: the load's address is data
    slots[index[t] & 255] = 7;                             // 13: a store at data addresses
    __syncthreads();
    copy[t] = v;                                           // 15: counted (the value is unknown)
    int s = slots[t];                                      // 16: counted (slots may have changed)
    out[t] = copy[(t * 2) % 256] + table[s & 255];         // 17: copy counted, table at slots' values
}

void run(const int *index, const float *in, float *out) { gather<<<2, 256>>>(index, in, out); }
