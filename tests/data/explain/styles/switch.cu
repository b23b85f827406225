// A switch choosing the shared-memory stride per warp, with fall-through and default.
__global__ void pick(float *out)
{
    __shared__ float s[32 * 33];
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int stride = 1;
    switch (warp) {
    case 0:
        stride = 32;          // column walk: conflicts
        break;
    case 1:
    case 2:
        stride = 33;          // padded column walk
        break;
    default:
        stride = 2;
    }
    s[lane * stride % (32 * 33)] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = s[lane];
}
void run(float *o) { pick<<<1, 128>>>(o); }
