// bankism test kernel: a double-buffered tile loop whose block is split in two halves that
// reach __syncthreads() by different code paths (as register-tiled SGEMMs with "split"
// double buffering do). Threads 0-63 read buffer 0 while threads 64-127 fill buffer 1, then
// they swap; the two halves meet at each barrier. On the GPU the block's barrier completes
// when every thread reaches one of the __syncthreads() calls, whichever.
//
// Usage: split_barrier (K = 256)
constexpr int TILE = 64, THREADS = 128;

__device__ void load_tile(float* tile, const float* in, int half_rank)
{
    tile[half_rank] = in[half_rank];
}

__device__ float sum_column(const float* tile, int half_rank)
{
    float sum = 0.0f;
    for (int k = 0; k < 8; ++k)
        sum += tile[(half_rank % 8) * 8 + k];   // 8 lanes per row of 8 floats: bank (r*8+k) % 32
    return sum;
}

__global__ void split_barrier(const float* in, float* out, int K)
{
    __shared__ float buffer[2][TILE];
    const int half = threadIdx.x / (THREADS / 2), half_rank = threadIdx.x % (THREADS / 2);
    float acc = 0.0f;
    if (half == 0)
        load_tile(buffer[0], in, half_rank);
    __syncthreads();
    for (int k = 0; k < K; k += 2 * TILE) {
        if (half == 0) {
            acc += sum_column(buffer[0], half_rank);
            __syncthreads();
            acc += sum_column(buffer[1], half_rank);
            __syncthreads();
            if (k + 2 * TILE < K)
                load_tile(buffer[0], in + k + 2 * TILE, half_rank);
        } else {
            load_tile(buffer[1], in + k + TILE, half_rank);
            __syncthreads();
            acc += sum_column(buffer[0], half_rank);
            __syncthreads();
            acc += sum_column(buffer[1], half_rank);
        }
        __syncthreads();
    }
    out[threadIdx.x] = acc;
}

void run(const float* in, float* out) { split_barrier<<<1, THREADS>>>(in, out, 256); }
